/**
 * The commands that read datasets (`diff`, `validate`, `match`) work from the output folder
 * alone, from any working directory, with no config file.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { packageRoot } from "../pipeline/paths.js";
import { burnlikeCounts } from "./helpers/burnlike.js";
import { cli } from "./helpers/cli.js";
import { writeConfig } from "./helpers/config.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

/** Runs the command in `cwd` (where there is no config.json). */
function cliIn(cwd: string, args: readonly string[]) {
  const result = spawnSync(process.execPath, [path.join(packageRoot(), "bin", "error-catalog.js"), ...args], { cwd, encoding: "utf8", env: { ...process.env, CI: "true" } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("diff, validate and match without a config", () => {
  const repo = makeRepo([fixture("burnlike", "tree")]);
  const config = writeConfig(repo.dir, repo.shas[0]!);
  const out = path.join(path.dirname(config), "out");
  const ran = cli(["run", "--config", config]);
  const elsewhere = tempDir("error-catalog-elsewhere-");

  it("take --out and --repo, or --out alone when it holds one repository", () => {
    assert.equal(ran.status, 0, ran.stderr);
    for (const repoArgs of [["--repo", "example/burnlike"], []]) {
      const diff = cliIn(elsewhere, ["diff", "--out", out, ...repoArgs, "--format", "json"]);
      assert.equal(diff.status, 0, diff.stderr);
      assert.equal((JSON.parse(diff.stdout) as { added: unknown[] }).added.length, burnlikeCounts.records);
      const validate = cliIn(elsewhere, ["validate", "--out", out, ...repoArgs]);
      assert.equal(validate.status, 0, validate.stderr);
      assert.match(validate.stdout, new RegExp(`valid, ${burnlikeCounts.records} records`));
      const match = cliIn(elsewhere, ["match", "--out", out, ...repoArgs, "Autodiff should not wrap an autodiff tensor."]);
      assert.equal(match.status, 0, match.stderr);
      assert.match(match.stdout, /^1 record matches/);
    }
  });

  it("say which repositories there are when --out holds several, and what to give when nothing says where", () => {
    mkdirSync(path.join(out, "other"), { recursive: true });
    const several = cli(["run", "--config", writeConfig(repo.dir, repo.shas[0]!, { targets: [{ repo: "other/repo", url: repo.dir, sha: repo.shas[0]! }], output: out })]);
    assert.equal(several.status, 0, several.stderr);
    const diff = cliIn(elsewhere, ["diff", "--out", out]);
    assert.equal(diff.status, 2);
    assert.match(diff.stderr, /holds datasets of 2 repositories/);
    assert.match(diff.stderr, /--repo with one of: example\/burnlike, other\/repo/);
    const none = cliIn(elsewhere, ["validate"]);
    assert.equal(none.status, 2);
    assert.match(none.stderr, /no output folder given and no config\.json here/);
  });
});
