/**
 * `diff --format sarif` on the history fixture (commit 1 → 2 adds one `.expect` at src/io.rs:13),
 * validated against the SARIF 2.1.0 schema vendored in schemas/vendor/; and `--fail-on`.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, describe, test } from "node:test";
import AjvDraft04Module from "ajv-draft-04";
import addFormatsModule from "ajv-formats";
import { packageRoot } from "../pipeline/paths.js";
import { run } from "../pipeline/run.js";
import { renderSarif } from "../pipeline/sarif.js";
import type { Diff } from "../pipeline/schema-types.generated.js";
import { cli } from "./helpers/cli.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const history = makeRepo([fixture("history", "1"), fixture("history", "2"), fixture("history", "3")]);
const [SHA1, SHA2, SHA3] = history.shas as [string, string, string];
const dir = tempDir("error-catalog-sarif-");
const config = path.join(dir, "config.json");
const Ajv = AjvDraft04Module.default;
const addFormats = addFormatsModule.default;

/** The vendored SARIF 2.1.0 schema, compiled. */
function sarifValidator() {
  const schema = JSON.parse(readFileSync(path.join(packageRoot(), "schemas", "vendor", "sarif-2.1.0-rtm.5.json"), "utf8")) as object;
  // Note: the schema is draft-04 (ajv-draft-04); one of its patterns (`language`) is not valid with
  // JavaScript's `u` flag, so patterns are compiled without it.
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  return ajv.compile(schema);
}

before(async () => {
  writeFileSync(config, JSON.stringify({ output: "out", cacheDir: "cache", contextLines: 2, includeTestCode: false, targets: [{ repo: "example/history", url: history.dir, sha: SHA1, include: ["**/*.rs"], exclude: [] }] }));
  for (const sha of [SHA1, SHA2, SHA3]) await run({ configPath: config, sha });
});

describe("diff --format sarif", () => {
  test("one result per added record, at its site, with its message and a link; valid SARIF 2.1.0", () => {
    const r = cli(["diff", "0001", "0002", "--format", "sarif", "--config", config]);
    assert.equal(r.status, 0, r.stderr);
    const log = JSON.parse(r.stdout) as { version: string; runs: { tool: { driver: { rules: { id: string }[] } }; results: { ruleId: string; ruleIndex: number; message: { text: string }; locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[]; partialFingerprints: Record<string, string> }[] }[] };
    const validate = sarifValidator();
    assert.ok(validate(log), JSON.stringify(validate.errors, null, 2));
    // The schema can fail: a log with an unknown property or another version is refused.
    assert.equal(validate({ ...log, version: "2.0.0" }), false);
    assert.equal(validate({ ...log, runs: [{ ...log.runs[0], results: [{ ...log.runs[0]!.results[0], where: 1 }] }] }), false);
    assert.equal(log.version, "2.1.0");
    const [only] = log.runs;
    assert.equal(only!.results.length, 1);
    const result = only!.results[0]!;
    assert.equal(result.ruleId, "expect");
    assert.deepEqual(only!.tool.driver.rules.map((rule) => rule.id), ["expect"]);
    assert.equal(result.ruleIndex, 0);
    assert.deepEqual([result.locations[0]!.physicalLocation.artifactLocation.uri, result.locations[0]!.physicalLocation.region.startLine], ["src/io.rs", 13]);
    assert.ok(result.message.text.includes('"The cache directory must be set"'), result.message.text);
    assert.ok(result.message.text.includes(`https://github.com/example/history/blob/${SHA2}/src/io.rs#L`), result.message.text);
    assert.match(result.partialFingerprints["recordId/v1"]!, /^[0-9a-f]{16}$/);
  });

  test("a diff that adds nothing is a valid log without results", () => {
    const r = cli(["diff", "--format", "sarif", "--config", config]);
    assert.equal(r.status, 0, r.stderr);
    const log = JSON.parse(r.stdout) as { runs: { results: unknown[] }[] };
    assert.ok(sarifValidator()(log));
    assert.deepEqual(log.runs.map((x) => x.results.length), [0]);
  });

  test("a record without text is reported by its pattern, a rule per kind sorted by id", () => {
    const record = (id: string, kind: Diff["added"][number]["kind"], line: number) => ({ id, errorMessage: "", messagePattern: "^.*$", kind, filePath: "src/a.rs", lineNumber: line, githubUrl: `https://github.com/o/r/blob/${SHA2}/src/a.rs#L${line}`, occurrences: 2 });
    const diff: Diff = { repo: "o/r", old: { version: null, sha: null, records: 0 }, new: { version: "0001", sha: SHA2, records: 2 }, counts: { added: 2, removed: 0, changed: 0, moved: 0, reworded: 0, unchanged: 0 }, added: [record("00000000000000b1", "panic", 9), record("00000000000000a1", "assert-eq", 3)], removed: [], changed: [], moved: [], reworded: [] };
    const log = renderSarif(diff, "1.2.3");
    assert.ok(sarifValidator()(log));
    const run0 = log.runs[0]!;
    assert.deepEqual(run0.tool.driver.rules.map((rule) => [rule.id, rule.name]), [["assert-eq", "AssertEq"], ["panic", "Panic"]]);
    assert.deepEqual(run0.results.map((x) => [x.ruleId, x.ruleIndex, x.locations[0].physicalLocation.region.startLine]), [["assert-eq", 0, 3], ["panic", 1, 9]]);
    assert.ok(run0.results[0]!.message.text.includes("text matching /^.*$/ (raised at 2 sites)"), run0.results[0]!.message.text);
  });
});

describe("diff --fail-on", () => {
  test("exit 1 when the diff has a class named, 0 when not; an unknown class is exit 2", () => {
    assert.equal(cli(["diff", "0001", "0002", "--fail-on", "added", "--config", config]).status, 1);
    assert.equal(cli(["diff", "0002", "0003", "--fail-on", "added,removed", "--config", config]).status, 0);
    assert.equal(cli(["diff", "0001", "0002", "--fail-on", "reworded", "--config", config]).status, 1);
    assert.equal(cli(["diff", "0002", "0003", "--fail-on", "any", "--config", config]).status, 0);
    const bad = cli(["diff", "--fail-on", "added,sideways", "--config", config]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /sideways: not one of/);
  });
});
