/**
 * An output folder whose files were damaged or replaced (cut short, not JSON, of the wrong shape,
 * missing): every command that reads it stops with exit 2, naming the file (and the line) and
 * what to do, without a stack trace; `run` writes nothing from such a version.
 */
import assert from "node:assert/strict";
import { cpSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import { cli } from "./helpers/cli.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const history = makeRepo([fixture("history", "1"), fixture("history", "2"), fixture("history", "3")]);
const [SHA1, SHA2, SHA3] = history.shas as [string, string, string];
const scratch = tempDir("error-catalog-damaged-");
after(() => {
  rmSync(history.dir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

const config = path.join(scratch, "config.json");
writeFileSync(config, `${JSON.stringify({ output: "out", cacheDir: "cache", contextLines: 2, targets: [{ repo: "example/history", url: history.dir, sha: SHA1 }] }, null, 2)}\n`);
const pristine = path.join(scratch, "out");
for (const sha of [SHA1, SHA2]) {
  const result = cli(["run", "--config", config, "--sha", sha]);
  assert.equal(result.status, 0, result.stderr);
}
const V2 = `0002-${SHA2.slice(0, 12)}`;

let copies = 0;
/** A copy of the two-version output, damaged by `damage(repoOut)`; returns the copy's folder. */
function damaged(damage: (repoOut: string) => void): string {
  const out = path.join(scratch, `copy-${++copies}`);
  cpSync(pristine, out, { recursive: true });
  damage(path.join(out, "example", "history"));
  return out;
}

/** The commands that read the output, each as a user would run them on `out`. */
function readers(out: string): [string, string[]][] {
  return [
    ["diff", ["diff", "--config", config, "--out", out]],
    ["match", ["match", "boom", "--config", config, "--out", out]],
    ["validate", ["validate", "--config", config, "--out", out]],
    ["run", ["run", "--config", config, "--out", out, "--sha", SHA3]],
  ];
}

/** Each reader exits 2 naming `file` (matched against stderr) and saying what to do; run writes nothing. */
function refusedByAll(out: string, file: RegExp, only: readonly string[] = ["diff", "match", "validate", "run"]): void {
  const index = path.join(out, "example", "history", "versions.json");
  const before = readFileSync(index, "utf8").toString();
  for (const [name, args] of readers(out)) {
    if (!only.includes(name)) continue;
    const result = cli(args);
    assert.equal(result.status, 2, `${name}: ${result.stderr}`);
    assert.match(result.stderr, /^error\[E_INPUT\]: /m, name);
    assert.match(result.stderr, file, name);
    assert.match(result.stderr, /\nhint: /, `${name} says what to do`);
    assert.doesNotMatch(result.stderr, /^\s+at /m, `${name}: no stack trace`);
  }
  assert.equal(readFileSync(index, "utf8"), before, "run wrote nothing");
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("a damaged newest version", () => {
  test("records.jsonl cut short: its last line", () => {
    const out = damaged((repoOut) => {
      const file = path.join(repoOut, V2, "records.jsonl");
      truncateSync(file, readFileSync(file).length - 40);
    });
    refusedByAll(out, /records\.jsonl(:\d+)?: .*(no line end|no newline|cut short)/);
    const diff = cli(readers(out)[0]![1]);
    assert.match(diff.stderr, new RegExp(`hint: restore .*${escape(V2)}.*, or remove the version ${escape(V2)} from .*versions\\.json`));
  });

  test("a line of records.jsonl that is not JSON: that line", () => {
    const out = damaged((repoOut) => {
      const file = path.join(repoOut, V2, "records.jsonl");
      const lines = readFileSync(file, "utf8").split("\n");
      lines[1] = '{"record": {"id": oops';
      writeFileSync(file, lines.join("\n"));
    });
    refusedByAll(out, /records\.jsonl:2: /);
  });

  test("a line that is JSON but not an envelope (no record.id): that line", () => {
    const out = damaged((repoOut) => {
      const file = path.join(repoOut, V2, "records.jsonl");
      const lines = readFileSync(file, "utf8").split("\n");
      lines[0] = JSON.stringify({ record: { message: "x" }, occurrences: [] });
      writeFileSync(file, lines.join("\n"));
    });
    refusedByAll(out, /records\.jsonl:1[: ]/);
  });

  test("a manifest that is not JSON: its line and column", () => {
    const out = damaged((repoOut) => writeFileSync(path.join(repoOut, V2, "manifest.json"), '{\n  "repo": "example/history",\n  oops\n}\n'));
    refusedByAll(out, /manifest\.json(:3:3)?/, ["diff", "match", "run"]);
    refusedByAll(out, /manifest\.json/, ["validate"]);
    assert.match(cli(readers(out)[0]![1]).stderr, /manifest\.json:3:3: invalid JSON/);
  });

  test("a manifest of the wrong shape: the field", () => {
    const out = damaged((repoOut) => {
      const file = path.join(repoOut, V2, "manifest.json");
      const manifest = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      delete manifest.counts;
      writeFileSync(file, JSON.stringify(manifest, null, 2));
    });
    refusedByAll(out, /manifest\.json( is not a dataset manifest:)? \/: missing required property "counts"/);
  });

  test("a version folder the index lists that is missing", () => {
    const out = damaged((repoOut) => rmSync(path.join(repoOut, V2), { recursive: true }));
    refusedByAll(out, new RegExp(escape(V2)));
    assert.match(cli(readers(out)[0]![1]).stderr, new RegExp(`the version folder .*${escape(V2)} is missing\\nhint: restore .*, or remove the version ${escape(V2)} from`));
  });
});

describe("a damaged index", () => {
  test("versions.json that is not JSON: its line and column", () => {
    const out = damaged((repoOut) => writeFileSync(path.join(repoOut, "versions.json"), '{\n  "repo": "example/history",\n  "versions": [\n'));
    refusedByAll(out, /versions\.json:\d+:\d+: invalid JSON/);
  });

  test("versions.json of the wrong shape, of another repository, or numbering two versions alike", () => {
    const text = readFileSync(path.join(pristine, "example", "history", "versions.json"), "utf8");
    const index = JSON.parse(text) as { repo: string; versions: { version: string }[] };
    const cases: [unknown, RegExp][] = [
      [{ repo: "example/history", versions: "none" }, /versions\.json( is not an index of dataset versions:)? \/versions: must be array/],
      [{ ...index, repo: "other/repo" }, /is the index of other\/repo, not of example\/history/],
      [{ ...index, versions: [index.versions[0], { ...index.versions[1], version: `0001-${SHA2.slice(0, 12)}` }] }, /two versions numbered 1/],
    ];
    for (const [data, message] of cases) {
      const out = damaged((repoOut) => writeFileSync(path.join(repoOut, "versions.json"), JSON.stringify(data)));
      refusedByAll(out, message);
    }
  });
});

test("the undamaged output reads as before", () => {
  assert.equal(cli(["diff", "--config", config]).status, 0);
  assert.equal(cli(["validate", "--config", config]).status, 0);
  const run = cli(["run", "--config", config, "--out", damaged(() => {}), "--sha", SHA3]);
  assert.equal(run.status, 0, run.stderr);
});
