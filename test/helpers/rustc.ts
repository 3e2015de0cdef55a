/** Whether rustc is here for the tests that compile small programs, and which one. */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { tempDir } from "./git.js";

/** rustc's version line, or why there is none (the suites that need it then say so and skip). */
export function findRustc(): { ok: true; version: string } | { ok: false; why: string } {
  try {
    return { ok: true, version: execFileSync("rustc", ["--version"], { encoding: "utf8" }).trim() };
  } catch (error) {
    return { ok: false, why: (error as Error).message.split("\n")[0]! };
  }
}

/** A program compiled into a temp dir of its own (removed by the caller), and the cases its `list` argument prints. */
export function compileCases(source: string, name: string, flags: readonly string[] = []): { dir: string; binary: string; cases: string[] } {
  const dir = tempDir(`error-catalog-${name}-`);
  const binary = path.join(dir, name);
  execFileSync("rustc", ["--edition", "2021", ...flags, "-o", binary, source], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  return { dir, binary, cases: execFileSync(binary, ["list"], { encoding: "utf8" }).trim().split("\n") };
}
