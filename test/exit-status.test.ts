/**
 * Exit statuses as a CI step reads them: 0 success, 1 a finding, 2 bad input, 3 a failure that is
 * not the input's; in `--help`; a closed stdout (`| head`) ends quietly; whatever escapes is one
 * line and exit 3, its stack only with ERROR_CATALOG_DEBUG.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import { EXIT, exitCode, formatError, PipelineError } from "../pipeline/errors.js";
import { packageRoot } from "../pipeline/paths.js";
import { cli, type CliResult } from "./helpers/cli.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const history = makeRepo([fixture("history", "1"), fixture("history", "2")]);
const scratch = tempDir("error-catalog-exit-");
after(() => {
  rmSync(history.dir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});
const config = path.join(scratch, "config.json");
writeFileSync(config, `${JSON.stringify({ output: "out", cacheDir: "cache", targets: [{ repo: "example/history", url: history.dir, sha: history.shas[0] }] }, null, 2)}\n`);
for (const sha of history.shas) assert.equal(cli(["run", "--config", config, "--sha", sha]).status, 0);

const BIN = path.join(packageRoot(), "bin", "error-catalog.js");

/** Runs the CLI with its stdout closed by the reader before anything is written, as `| head -0` does. */
function closedStdout(args: readonly string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CI: "true" } });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout: "", stderr }));
  });
}

describe("exit statuses", () => {
  test("0, 1 and 2 as the commands give them", () => {
    assert.equal(cli(["diff", "--config", config]).status, EXIT.ok);
    assert.equal(cli(["diff", "--config", config, "--exit-code"]).status, EXIT.finding);
    assert.equal(cli(["match", "nothing like any record", "--config", config]).status, EXIT.finding);
    assert.equal(cli(["diff", "--config", config, "nope"]).status, EXIT.input);
    assert.equal(cli(["run", "--bogus"]).status, EXIT.input);
  });

  test("every command's --help lists them", () => {
    for (const args of [["--help"], ["run", "--help"], ["diff", "--help"], ["match", "--help"], ["pin", "--help"], ["validate", "--help"]]) {
      const help = cli(args);
      assert.equal(help.status, 0);
      assert.match(help.stdout, /Exit status:\n {2}0 {2}success\n {2}1 {2}a finding: .*\n {2}2 {2}bad input: [^]*\n {2}3 {2}a failure that is not the input's: /);
    }
  });

  test("a closed stdout ends quietly, with the command's own status", async () => {
    const diff = await closedStdout(["diff", "--config", config, "--format", "json"]);
    assert.deepEqual([diff.status, diff.stderr], [EXIT.ok, ""]);
    const differences = await closedStdout(["diff", "--config", config, "--exit-code"]);
    assert.deepEqual([differences.status, differences.stderr], [EXIT.finding, ""]);
    const match = await closedStdout(["match", "out of range", "--config", config]);
    assert.equal(match.stderr, "");
    assert.ok(match.status === EXIT.ok || match.status === EXIT.finding);
  });

  test("an exception that escapes every handler is one line and exit 3", async () => {
    const script = `import(${JSON.stringify(path.join(packageRoot(), "dist", "pipeline", "cli.bundle.js"))}).then((m) => { m.guardProcess(); setTimeout(() => { throw new TypeError("boom"); }); });`;
    const run = (env: NodeJS.ProcessEnv) =>
      new Promise<CliResult>((resolve) => {
        const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
        let stderr = "";
        child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
        child.on("close", (status) => resolve({ status, stdout: "", stderr }));
      });
    const plain = await run({ ERROR_CATALOG_DEBUG: "" });
    assert.equal(plain.status, EXIT.failure);
    assert.equal(plain.stderr, "error: unexpected failure (a bug in error-catalog; please report it, with the trace ERROR_CATALOG_DEBUG=1 prints): TypeError: boom\n");
    const debug = await run({ ERROR_CATALOG_DEBUG: "1" });
    assert.equal(debug.status, EXIT.failure);
    assert.match(debug.stderr, /^error: unexpected failure .*TypeError: boom\nTypeError: boom\n\s+at /);
  });
});

describe("formatError and exitCode", () => {
  test("bad input is 2; git, the disk, a lock and anything else 3", () => {
    for (const code of ["E_USAGE", "E_CONFIG", "E_INPUT"] as const) assert.equal(exitCode(new PipelineError(code, "x")), 2);
    for (const code of ["E_GIT", "E_IO", "E_SCHEMA", "E_LOCK"] as const) assert.equal(exitCode(new PipelineError(code, "x")), 3);
    assert.equal(exitCode(new TypeError("x")), 3);
    assert.equal(exitCode("a string"), 3);
  });

  test("an error of the file system is named as such, in one line", () => {
    const full = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28, syscall: "write" });
    assert.equal(formatError(full), "error[E_IO]: ENOSPC: no space left on device, write (check that the disk has room and the folders can be written)");
    assert.equal(formatError(new RangeError("first\nsecond")), "error: unexpected failure (a bug in error-catalog; please report it, with the trace ERROR_CATALOG_DEBUG=1 prints): RangeError: first");
  });

  test("a PipelineError: message, details, hint; its cause only when debugging", () => {
    const error = new PipelineError("E_GIT", "could not clone x", { details: ["fatal: y"], hint: "check z", cause: new Error("inner") });
    assert.equal(formatError(error), "error[E_GIT]: could not clone x\n  fatal: y\nhint: check z");
    assert.match(formatError(error, true), /hint: check z\nPipelineError: could not clone x\n[^]*caused by: Error: inner/);
  });
});
