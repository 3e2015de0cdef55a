/** The installed command, run as a user would: not on a terminal, under CI. */
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { packageRoot } from "../../pipeline/paths.js";

/** What a finished command did. */
export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const BIN = path.join(packageRoot(), "bin", "error-catalog.js");

/** Runs `error-catalog <args>` (with `input` on stdin, and `env` added to this process's) and returns its status and output. */
export function cli(args: readonly string[], input?: string, env: NodeJS.ProcessEnv = {}): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", input, env: { ...process.env, CI: "true", ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Starts `error-catalog <args>` as a process of its own (`env` added to this process's); resolves when it has ended. */
export function cliProcess(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, CI: "true", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}
