/**
 * Many repositories in one config: `targets [--json]` lists them; `run` without `--target` runs
 * each, a broken one (its url is not there) not stopping the next; `run --json` reports what each
 * wrote; `diff --run` says which failed. Also `--quiet` and `--version`.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { packageRoot } from "../pipeline/paths.js";
import { validate } from "../pipeline/validate.js";
import { cli } from "./helpers/cli.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const burnlike = makeRepo([fixture("burnlike", "tree")]);
const history = makeRepo([fixture("history", "1")]);
const work = tempDir("error-catalog-targets-");
const config = path.join(work, "config.json");
const missing = path.join(work, "no-such-repo");
const brokenSha = "0123456789abcdef0123456789abcdef01234567";
const targets = [
  { repo: "example/burnlike", url: burnlike.dir, sha: burnlike.shas[0]! },
  { repo: "example/broken", url: missing, sha: brokenSha },
  { repo: "example/history", url: history.dir, sha: history.shas[0]! },
];
writeFileSync(config, JSON.stringify({ output: "out", cacheDir: "cache", contextLines: 2, targets }, null, 2));
const out = path.join(work, "out");

describe("error-catalog targets", () => {
  test("--json prints the targets on one line, in config order", () => {
    const r = cli(["targets", "--config", config, "--json"]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.split("\n").length, 2, "one line and its newline");
    assert.deepEqual(JSON.parse(r.stdout), targets);
  });

  test("without --json, one line per target", () => {
    const r = cli(["targets", "--config", config]);
    assert.deepEqual(r.stdout.trimEnd().split("\n"), [
      `example/burnlike  ${burnlike.shas[0]}  ${burnlike.dir}`,
      `example/broken    ${brokenSha}  ${missing}`,
      `example/history   ${history.shas[0]}  ${history.dir}`,
    ]);
  });
});

describe("error-catalog run over every target", () => {
  test("a broken target fails alone: the others are written, the exit status and the report say which", () => {
    const r = cli(["run", "--config", config, "--json", "--quiet"]);
    assert.equal(r.status, 2, "the broken target's url is bad input");
    const report = JSON.parse(r.stdout) as { failed: number; targets: { repo: string; status: string; version: string | null; previous: string | null; dir: string | null; counts: { records: number } | null; error: string | null }[] };
    assert.equal(report.failed, 1);
    const checked = validate("run-report", report, "run --json");
    assert.deepEqual(checked.ok ? [] : checked.errors, [], "the report follows schemas/run-report.schema.json");
    assert.equal("counts" in report.targets[1]!, false, "a failed target has no counts");
    assert.deepEqual(report.targets.map((t) => [t.repo, t.status]), [["example/burnlike", "written"], ["example/broken", "failed"], ["example/history", "written"]]);
    assert.match(report.targets[1]!.error!, /no-such-repo does not exist/);
    assert.deepEqual(report.targets.map((t) => t.previous), [null, null, null]);
    for (const t of [report.targets[0]!, report.targets[2]!]) {
      assert.ok(existsSync(path.join(t.dir!, "records.jsonl")), t.repo);
      assert.equal(t.counts!.records, readFileSync(path.join(t.dir!, "records.jsonl"), "utf8").trim().split("\n").length);
    }
    assert.equal(report.targets[2]!.counts!.records, 5, "the history fixture's first commit has five records");
    // --quiet: the progress lines are gone; only the failed target's error is on stderr.
    assert.doesNotMatch(r.stderr, /cloning|reading|wrote/);
    assert.match(r.stderr, /^example\/broken: error\[E_INPUT\]/m);

    const summary = path.join(work, "run.json");
    writeFileSync(summary, r.stdout);
    const md = cli(["diff", "--run", summary, "--out", out]);
    assert.equal(md.status, 0, md.stderr);
    const sections = md.stdout.split(/^(?=## )/m).map((s) => s.split("\n")[0]);
    assert.deepEqual(sections, ["## error-catalog: example/burnlike", "## error-catalog: example/broken", "## error-catalog: example/history"]);
    assert.match(md.stdout, /## error-catalog: example\/broken\n\n\*\*The run failed\*\* \(exit 2\); nothing was written/);
    assert.match(md.stdout, /## error-catalog: example\/history\n\n\(nothing\) → 0001-[0-9a-f]{12} \(`[0-9a-f]{12}`\): 0 → 5 records/);

    // Again: nothing to write for the two that worked, and the summary says so instead of an old diff.
    const again = cli(["run", "--config", config, "--json", "--quiet", "--target", "example/history"]);
    assert.equal(again.status, 0, again.stderr);
    writeFileSync(summary, again.stdout);
    const none = cli(["diff", "--run", summary, "--out", out]);
    assert.match(none.stdout, /^## error-catalog: example\/history\n\nNothing written: version 0001-[0-9a-f]{12} \(`[0-9a-f]{12}`\) is up to date/);
    assert.doesNotMatch(none.stdout, /\| added \|/);
  });

  test("diff --run refuses a file that is not a run report, naming what is wrong", () => {
    const bogus = path.join(work, "bogus.json");
    writeFileSync(bogus, JSON.stringify({ targets: [{ repo: "example/history", status: "finished" }], failed: 0 }));
    const r = cli(["diff", "--run", bogus, "--out", out]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /bogus\.json is not a run report/);
    assert.match(r.stderr, /\/targets\/0\/status/);
  });

  test("the lines without --json name each target's outcome", () => {
    const r = cli(["run", "--config", config, "--quiet"]);
    assert.equal(r.status, 2);
    const lines = r.stdout.trimEnd().split("\n");
    assert.equal(lines.length, 3);
    assert.match(lines[0]!, /^example\/burnlike 0001-[0-9a-f]{12}: up to date, nothing written$/);
    assert.match(lines[1]!, /^example\/broken: failed \(exit 2\): error\[E_INPUT\]/);
    assert.match(lines[2]!, /^example\/history 0001-[0-9a-f]{12}: up to date, nothing written$/);
  });

  test("--sha with several targets and no --target is a usage error", () => {
    const r = cli(["run", "--config", config, "--sha", brokenSha]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /pass --target/);
  });
});

describe("error-catalog --version", () => {
  test("prints the package version alone", () => {
    const { version } = JSON.parse(readFileSync(path.join(packageRoot(), "package.json"), "utf8")) as { version: string };
    assert.equal(cli(["--version"]).stdout, `${version}\n`);
  });
});
