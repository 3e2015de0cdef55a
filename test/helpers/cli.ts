/** The installed command, run as a user would: not on a terminal, under CI. */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { packageRoot } from "../../pipeline/paths.js";

/** Runs `error-catalog <args>` (with `input` on stdin) and returns its status and output. */
export function cli(args: readonly string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [path.join(packageRoot(), "bin", "error-catalog.js"), ...args], { encoding: "utf8", input, env: { ...process.env, CI: "true" } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
