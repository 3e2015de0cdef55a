/**
 * `validate`: a version written by `run` is valid; each kind of damage is reported with the file
 * and line, and the CLI exits 2.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, describe, test } from "node:test";
import { packageRoot } from "../pipeline/paths.js";
import { validateDataset } from "../pipeline/commands/validate.js";
import { run } from "../pipeline/run.js";
import { verifyVersion } from "../pipeline/verify.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const history = makeRepo([fixture("history", "1"), fixture("history", "2")]);
const [SHA1, SHA2] = history.shas as [string, string];
const work = tempDir("error-catalog-validate-");
const config = path.join(work, "config.json");
let good = "";

before(async () => {
  writeFileSync(config, JSON.stringify({ output: "out", cacheDir: "cache", contextLines: 2, includeTestCode: false, targets: [{ repo: "example/history", url: history.dir, sha: SHA1, include: ["**/*.rs"], exclude: [] }] }));
  await run({ configPath: config, sha: SHA1, now: () => new Date("2026-03-01T00:00:00Z") });
  good = (await run({ configPath: config, sha: SHA2, now: () => new Date("2026-03-02T00:00:00Z") })).dir;
});

/** The problem `verifyVersion` reports first for a records.jsonl changed after it was written. */
const CHANGED = /^v\/records\.jsonl: its SHA-256 is [0-9a-f]{64}, not the [0-9a-f]{64} of v\/manifest\.json: the file changed after it was written$/;

/** A copy of the whole repository folder (index and both versions) with one file rewritten. */
function damaged(file: string, edit: (text: string) => string): string {
  const copy = path.join(tempDir("error-catalog-damaged-"), "example", "history");
  cpSync(path.dirname(good), copy, { recursive: true });
  const target = path.join(copy, file === "versions.json" ? "" : path.basename(good), file);
  writeFileSync(target, edit(readFileSync(target, "utf8")));
  return path.join(copy, path.basename(good));
}

function lines(text: string): string[] {
  return text.trimEnd().split("\n");
}

describe("verifyVersion", () => {
  test("a version written by run has no problems", async () => {
    const result = await verifyVersion(good, "v");
    assert.deepEqual(result, { problems: [], records: 5 });
  });

  test("records out of order name the line", async () => {
    const dir = damaged("records.jsonl", (t) => {
      const [a, b, ...rest] = lines(t);
      return [b, a, ...rest].join("\n") + "\n";
    });
    const { problems } = await verifyVersion(dir, "v");
    assert.equal(problems.length, 2);
    assert.match(problems[0]!, CHANGED);
    assert.match(problems[1]!, /^v\/records\.jsonl:2 \/record\/id: [0-9a-f]{16} comes after [0-9a-f]{16}; records must be sorted by id$/);
  });

  test("a duplicated line is a duplicate id and a wrong count", async () => {
    const dir = damaged("records.jsonl", (t) => {
      const all = lines(t);
      return [all[0], ...all].join("\n") + "\n";
    });
    const { problems } = await verifyVersion(dir, "v");
    assert.match(problems[0]!, CHANGED);
    assert.match(problems[1]!, /^v\/records\.jsonl:2 \/record\/id: duplicate id [0-9a-f]{16} \(also on line 1\)$/);
    assert.ok(problems.includes("v/manifest.json /counts/records: says 5 records; v/records.jsonl has 6"));
    assert.ok(problems.some((p) => /versions\.json \/versions\/1\/records: 5 but records\.jsonl has 6/.test(p)));
  });

  test("a line that is not JSON or breaks the schema is named", async () => {
    const dir = damaged("records.jsonl", (t) => {
      const all = lines(t);
      all[1] = "{ cut short";
      all[3] = all[3]!.replace(/"severity":"error"/, '"severity":"fatal"');
      return all.join("\n") + "\n";
    });
    const { problems } = await verifyVersion(dir, "v");
    assert.match(problems[0]!, CHANGED);
    assert.match(problems[1]!, /^v\/records\.jsonl:2: invalid JSON/);
    assert.match(problems[2]!, /^v\/records\.jsonl:4 \/record\/severity: must be one of "error", "warning" \(got "fatal"\)$/);
  });

  test("an occurrence that is not the record's own location is caught", async () => {
    const dir = damaged("records.jsonl", (t) => t.replace(/("occurrences":\[\{"filePath":"[^"]+","lineNumber":)(\d+)/, (_m, head: string, n: string) => `${head}${Number(n) + 1}`));
    const { problems } = await verifyVersion(dir, "v");
    assert.equal(problems.length, 2);
    assert.match(problems[0]!, CHANGED);
    assert.match(problems[1]!, /^v\/records\.jsonl:1 \/occurrences\/0: .* is not the record's own location/);
  });

  test("a records.jsonl whose bytes are not the ones its manifest recorded is named, even when every line is valid", async () => {
    // The same records, one key of one record moved: valid JSON, valid against the schema, another file.
    const dir = damaged("records.jsonl", (t) => t.replace(/^\{"record":(\{.*?\}),"occurrences":(\[.*?\]),/, (_m, record: string, occurrences: string) => `{"occurrences":${occurrences},"record":${record},`));
    assert.notEqual(readFileSync(path.join(dir, "records.jsonl"), "utf8"), readFileSync(path.join(good, "records.jsonl"), "utf8"));
    const { problems } = await verifyVersion(dir, "v");
    assert.equal(problems.length, 1, problems.join("\n"));
    assert.match(problems[0]!, CHANGED);
  });

  test("the index must name the version and agree with the manifest", async () => {
    const renamed = damaged("versions.json", (t) => t.replace(`"version": "${path.basename(good)}"`, '"version": "0002-elsewhere"'));
    assert.match((await verifyVersion(renamed, "v")).problems[0]!, /versions\.json: names no version 0002-/);
    const moved = damaged("versions.json", (t) => t.replace(`"sha": "${SHA2}"`, `"sha": "${SHA1}"`));
    assert.match((await verifyVersion(moved, "v")).problems[0]!, /versions\.json \/versions\/1\/sha: "[0-9a-f]{40}" but the manifest says "[0-9a-f]{40}"/);
  });
});

describe("error-catalog validate (CLI)", () => {
  const bin = path.join(packageRoot(), "bin", "error-catalog.js");

  test("the newest version by default: exit 0", async () => {
    assert.equal((await validateDataset({ configPath: config })).dir, good);
    const r = spawnSync(process.execPath, [bin, "validate", "--config", config], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /valid, 5 records/);
  });

  test("a damaged version: exit 2 naming file and line", () => {
    const dir = damaged("records.jsonl", (t) => t.replace(/\n[^\n]*\n$/, "\n{}\n"));
    const r = spawnSync(process.execPath, [bin, "validate", dir], { encoding: "utf8" });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^error\[E_INPUT\]: .* is not a valid dataset version/);
    assert.match(r.stderr, /records\.jsonl:5 \/: missing required property "record"/);
  });
});
