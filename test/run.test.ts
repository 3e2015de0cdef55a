/**
 * The pipeline end to end on a burn-like fixture tree turned into a git repository: the records
 * it writes are compared with fixtures/burnlike/expected.json, written from reading the tree.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import { excerptOfLines, excerptOfText, splitLines } from "../pipeline/build.js";
import { PipelineError } from "../pipeline/errors.js";
import { run } from "../pipeline/run.js";
import type { Envelope, Manifest, VersionsIndex } from "../pipeline/schema-types.generated.js";
import { lineStartsOf } from "../pipeline/tree-view.js";
import { readVersion } from "../pipeline/write.js";
import { writeConfig } from "./helpers/config.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

interface Expected {
  records: { message: string; pattern?: string; at: string; excerpt: [number, number]; occurrences: string[]; seen?: string[] }[];
  counts: Partial<Manifest["counts"]>;
}

const NOW = new Date("2026-02-01T00:00:00.000Z");

describe("run on the burn-like fixture", () => {
  const tree = fixture("burnlike", "tree");
  const expected = JSON.parse(readFileSync(fixture("burnlike", "expected.json"), "utf8")) as Expected;
  let repo: { dir: string; shas: string[] };
  let sha: string;
  let envelopes: Envelope[];
  let manifest: Manifest;
  let configPath: string;

  before(async () => {
    repo = makeRepo([tree]);
    sha = repo.shas[0]!;
    configPath = writeConfig(repo.dir, sha);
    const result = await run({ configPath, now: () => NOW });
    assert.equal(result.status, "written");
    ({ envelopes, manifest } = { ...(await readVersion(result.dir)) } as { envelopes: Envelope[]; manifest: Manifest });
  });

  it("writes one record per runtime message, at the first occurrence, with every occurrence", () => {
    const got = envelopes.map((e) => ({
      message: e.record.errorMessage,
      pattern: e.record.messagePattern,
      at: `${e.record.filePath}:${e.record.lineNumber}`,
      excerpt: [e.record.sourceCodeStart, e.record.sourceCodeEnd],
      occurrences: e.occurrences.map((o) => `${o.filePath}:${o.lineNumber}`),
    }));
    const key = (r: { at: string }) => r.at;
    const sorted = <T extends { at: string }>(xs: T[]) => [...xs].sort((a, b) => key(a).localeCompare(key(b)));
    assert.deepEqual(
      sorted(got).map(({ pattern: _p, ...rest }) => rest),
      sorted(expected.records).map(({ pattern: _p, seen: _s, ...rest }) => rest),
    );
    for (const want of expected.records) {
      const record = envelopes.find((e) => `${e.record.filePath}:${e.record.lineNumber}` === want.at)!.record;
      if (want.pattern !== undefined) assert.equal(record.messagePattern, want.pattern, want.at);
      for (const text of want.seen ?? []) assert.match(text, new RegExp(record.messagePattern), `${want.at} should match ${JSON.stringify(text)}`);
    }
  });

  it("keeps exactly the lines of the window, clipped to the file", () => {
    for (const { record } of envelopes) {
      const lines = readFileSync(path.join(tree, record.filePath), "utf8").split("\n");
      assert.equal(record.sourceCode, lines.slice(record.sourceCodeStart - 1, record.sourceCodeEnd).join("\n"), record.filePath);
      assert.equal(record.sourceCodeStart, Math.max(1, record.lineNumber - 18));
      assert.equal(record.githubUrl, `https://github.com/example/burnlike/blob/${sha}/${record.filePath}#L${record.sourceCodeStart}-L${record.sourceCodeEnd}`);
    }
  });

  it("fills the record's fixed fields as the seed does", () => {
    for (const { record, datasetVersion } of envelopes) {
      assert.match(record.id, /^[0-9a-f]{16}$/);
      assert.ok(record.slug.endsWith(`-${record.id.slice(0, 6)}`), record.slug);
      assert.equal(record.errorType, "panic");
      assert.equal(record.severity, "error");
      assert.equal(record.errorCode, null);
      assert.equal(record.analyzedSha, sha);
      assert.equal(datasetVersion, NOW.toISOString());
      assert.equal(record.schemaVersion, 2);
    }
    const ids = envelopes.map((e) => e.record.id);
    assert.deepEqual(ids, [...ids].sort(), "records.jsonl is sorted by id");
    assert.equal(new Set(ids).size, ids.length, "ids are unique");
    const slug = envelopes.find((e) => e.record.messagePattern === "Autodiff should not wrap an autodiff tensor\\.")!.record.slug;
    assert.match(slug, /^autodiff-should-not-wrap-an-autodiff-tensor-[0-9a-f]{6}$/);
  });

  it("counts what it saw in the manifest", () => {
    assert.equal(manifest.repo, "example/burnlike");
    assert.equal(manifest.sha, sha);
    assert.equal(manifest.parentSha, null);
    for (const [key, value] of Object.entries(expected.counts)) {
      assert.deepEqual(manifest.counts[key as keyof Manifest["counts"]], value, key);
    }
    assert.equal(manifest.counts.filesSkipped, manifest.counts.filesListed - manifest.counts.filesRead);
  });

  it("writes the index, newest last", () => {
    const index = JSON.parse(readFileSync(path.join(path.dirname(configPath), "out", "example", "burnlike", "versions.json"), "utf8")) as VersionsIndex;
    assert.equal(index.versions.length, 1);
    assert.deepEqual({ ...index.versions[0], configHash: "", pipelineVersion: "" }, { version: `0001-${sha.slice(0, 12)}`, sha, parent: null, datasetVersion: NOW.toISOString(), records: expected.counts.records, configHash: "", pipelineVersion: "" });
  });

  it("catalogues test code when the config says so", async () => {
    const config = writeConfig(repo.dir, sha, { includeTestCode: true });
    const result = await run({ configPath: config, now: () => NOW });
    const { envelopes: all } = await readVersion(result.dir);
    const extra = all.filter((e) => !envelopes.some((x) => x.record.id === e.record.id));
    assert.deepEqual(extra.map((e) => `${e.record.filePath}:${e.record.lineNumber} ${e.occurrences[0]!.context}`).sort(), [
      "crates/burn-tensor/src/shape.rs:36 test",
      "crates/burn-tensor/src/test_helpers.rs:2 test",
      "crates/burn-tensor/tests/shape.rs:3 test",
    ]);
  });
});

describe("run on bad input", () => {
  it("reports every config problem with its JSON path", async () => {
    const file = writeConfig("/nowhere", "abc");
    const config = JSON.parse(readFileSync(file, "utf8"));
    config.contextLines = -1;
    config.targets[0].shaa = "x";
    writeFileSync(file, JSON.stringify(config));
    await assert.rejects(run({ configPath: file }), (error: unknown) => {
      assert.ok(error instanceof PipelineError);
      assert.equal(error.code, "E_CONFIG");
      const lines = error.details.join("\n");
      assert.match(lines, /\/targets\/0\/sha: must match/);
      assert.match(lines, /\/targets\/0: unknown property "shaa"/);
      assert.match(lines, /\/contextLines: must be >= 0/);
      return true;
    });
  });

  it("names the SHA and the source when the source does not have the commit", async () => {
    const repo = makeRepo([fixture("burnlike", "tree")]);
    const missing = "0123456789abcdef0123456789abcdef01234567";
    const file = writeConfig(repo.dir, missing);
    await assert.rejects(run({ configPath: file }), (error: unknown) => {
      assert.ok(error instanceof PipelineError);
      assert.equal(error.code, "E_INPUT");
      assert.match(error.message, new RegExp(`${missing} is not in ${repo.dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
      return true;
    });
  });
});

describe("excerpts cut at extraction", () => {
  it("are the lines splitting the whole text gives, whatever the line ends", () => {
    let seed = 11;
    const next = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const pieces = ["a", "fn x() {}", "\n", "\r\n", "\r", "\r\r\n", "é", "\n\n", " "];
    let cases = 0;
    for (let k = 0; k < 3000; k++) {
      const text = Array.from({ length: Math.floor(next() * 40) }, () => pieces[Math.floor(next() * pieces.length)]).join("");
      const lines = splitLines(text);
      const starts = lineStartsOf(text);
      for (let line = 1; line <= lines.length; line++) {
        for (const context of [0, 1, 3]) {
          assert.deepEqual(excerptOfText(text, starts, line, context), excerptOfLines(lines, line, context), `${JSON.stringify(text)} line ${line} context ${context}`);
          cases++;
        }
      }
    }
    assert.ok(cases > 20000, `${cases} cases`);
  });

  it("give the records of a file with CRLF line ends the excerpts of its lines", async () => {
    const tree = tempDir("error-catalog-crlf-");
    mkdirSync(path.join(tree, "src"));
    const body = Array.from({ length: 60 }, (_, i) => (i % 20 === 5 ? `    panic!("step ${i} failed");` : `    let v${i} = ${i};\r`));
    const text = `pub fn run() {\r\n${body.join("\r\n")}\r\n}\r\n`;
    writeFileSync(path.join(tree, "src", "lib.rs"), text);
    const repo = makeRepo([tree]);
    const result = await run({ configPath: writeConfig(repo.dir, repo.shas[0]!), now: () => NOW });
    const { envelopes } = await readVersion(result.dir);
    assert.equal(envelopes.length, 3);
    const lines = text.split(/\r?\n/).slice(0, -1);
    for (const { record } of envelopes) {
      assert.equal(record.sourceCode, lines.slice(record.sourceCodeStart - 1, record.sourceCodeEnd).join("\n"), `line ${record.lineNumber}`);
      assert.ok(record.sourceCode.includes("\r"), "a lone carriage return stays");
    }
  });
});
