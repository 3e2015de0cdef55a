/** The installed command end to end: argv in, exit status and printed lines out. */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { burnlikeCounts } from "./helpers/burnlike.js";
import { cli } from "./helpers/cli.js";
import { writeConfig } from "./helpers/config.js";
import { fixture, makeRepo } from "./helpers/git.js";

describe("error-catalog run", () => {
  const repo = makeRepo([fixture("burnlike", "tree")]);
  const sha = repo.shas[0]!;

  it("writes a version, then says the next identical run is up to date", () => {
    const config = writeConfig(repo.dir, sha);
    const first = cli(["run", "--config", config]);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`example/burnlike 0001-${sha.slice(0, 12)}: ${burnlikeCounts.records} records from ${burnlikeCounts.sites} sites in ${burnlikeCounts.filesRead} files`));
    assert.match(first.stderr, /^cloning /m, "plain progress lines when not on a terminal");
    const second = cli(["run", "--config", config]);
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /up to date/);
  });

  it("takes --source, --sha and --out over the config", () => {
    const config = writeConfig("/does/not/exist", "f".repeat(40));
    const out = path.join(path.dirname(config), "elsewhere");
    const result = cli(["run", "--config", config, "--source", repo.dir, "--sha", sha, "--out", out]);
    assert.equal(result.status, 0, result.stderr);
    const index = JSON.parse(readFileSync(path.join(out, "example", "burnlike", "versions.json"), "utf8"));
    assert.equal(index.versions[0].sha, sha);
  });

  it("exits 2 with one line per config problem", () => {
    const config = writeConfig(repo.dir, "not-a-sha");
    const text = JSON.parse(readFileSync(config, "utf8"));
    delete text.targets[0].url;
    writeFileSync(config, JSON.stringify(text));
    const result = cli(["run", "--config", config]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /error\[E_CONFIG\]/);
    assert.match(result.stderr, /\/targets\/0\/sha: must match/);
    assert.match(result.stderr, /\/targets\/0: missing required property "url"/);
  });

  it("exits 2 naming the SHA and the source when the commit is missing", () => {
    const missing = "0123456789abcdef0123456789abcdef01234567";
    const result = cli(["run", "--config", writeConfig(repo.dir, sha), "--sha", missing]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, new RegExp(`commit ${missing} is not in`));
    assert.match(result.stderr, /hint: /);
  });

  it("exits 2 on a bad command line", () => {
    const unknown = cli(["run", "--bogus"]);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown option '--bogus'/);
    const short = cli(["run", "--config", writeConfig(repo.dir, sha), "--sha", "abc123"]);
    assert.equal(short.status, 2);
    assert.match(short.stderr, /not a full commit SHA/);
  });

  it("exits 2 when the source does not exist", () => {
    const result = cli(["run", "--config", writeConfig(path.join(repo.dir, "missing"), sha)]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /error\[E_INPUT\]: .*config\.json: the url of example\/burnlike, .*missing does not exist/);
  });
});
