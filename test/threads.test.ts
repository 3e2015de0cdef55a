/**
 * Extraction on any number of threads, with or without the cache, gives the same dataset: the
 * same records.jsonl bytes (the clock is pinned) and the same manifest but for the parse counts.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { startPool } from "../pipeline/extract-pool.js";
import { run } from "../pipeline/run.js";
import type { Manifest } from "../pipeline/schema-types.generated.js";
import { burnlikeCounts } from "./helpers/burnlike.js";
import { writeConfig } from "./helpers/config.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const NOW = new Date("2026-03-01T00:00:00.000Z");

/** One run into a fresh output and cache; returns the bytes of its dataset. */
async function dataset(url: string, sha: string, threads: number, config = writeConfig(url, sha)): Promise<{ records: string; manifest: Manifest; config: string }> {
  const result = await run({ configPath: config, now: () => NOW, threads, force: true });
  return {
    records: readFileSync(path.join(result.dir, "records.jsonl"), "utf8"),
    manifest: JSON.parse(readFileSync(path.join(result.dir, "manifest.json"), "utf8")) as Manifest,
    config,
  };
}

/** The manifest without what differs by design between runs: parse counts, carried analyses, the carry plan, version and parent. */
function shape(m: Manifest): unknown {
  const { filesParsed: _p, filesReused: _r, ...counts } = m.counts;
  const { staticCarried: _c, ...analysis } = m.analysis ?? { static: 0, llm: 0, llmCached: 0, llmFailed: 0 };
  const { carry: _k, ...rest } = m;
  return { ...rest, counts, analysis, version: "", parentSha: null };
}

describe("the same dataset whatever the threads and the cache", () => {
  const repo = makeRepo([fixture("burnlike", "tree")]);
  const sha = repo.shas[0]!;

  it("is byte-identical on 1, 2 and 3 threads", async () => {
    const one = await dataset(repo.dir, sha, 1);
    for (const threads of [2, 3]) {
      const other = await dataset(repo.dir, sha, threads);
      assert.equal(other.records, one.records, `records.jsonl on ${threads} threads`);
      assert.deepEqual(shape(other.manifest), shape(one.manifest), `manifest on ${threads} threads`);
      assert.equal(other.manifest.counts.filesParsed, one.manifest.counts.filesParsed);
    }
    assert.equal(one.manifest.counts.records, burnlikeCounts.records);
  });

  it("calls beforeLargeTree once for a tree of thousands of files to extract, on any number of threads", async () => {
    let calls = 0;
    const count = () => void calls++;
    for (const threads of [1, 2]) await run({ configPath: writeConfig(repo.dir, sha), now: () => NOW, threads, force: true, beforeLargeTree: count });
    assert.equal(calls, 0, "the fixture tree's files are not thousands");
    const tree = tempDir("error-catalog-large-");
    mkdirSync(path.join(tree, "src"));
    for (let k = 0; k < 3072; k++) writeFileSync(path.join(tree, "src", `f${k}.rs`), `pub fn f${k}() {}\n`);
    const large = makeRepo([tree]);
    await run({ configPath: writeConfig(large.dir, large.shas[0]!), now: () => NOW, force: true, beforeLargeTree: count });
    assert.equal(calls, 1);
  });

  it("is byte-identical when every file comes from the cache", async () => {
    const cold = await dataset(repo.dir, sha, 2);
    const warm = await dataset(repo.dir, sha, 2, cold.config);
    assert.equal(warm.manifest.counts.filesParsed, 0, "the second run parses nothing");
    assert.equal(warm.manifest.counts.filesReused, cold.manifest.counts.filesRead);
    assert.equal(warm.records, cold.records);
    assert.deepEqual(shape(warm.manifest), shape(cold.manifest));
    // Nothing changed, so every record's analysis was carried over from the first run's version.
    assert.equal(warm.manifest.analysis?.staticCarried, warm.manifest.counts.records);
  });
});

/** The Rust files of the extract fixture, `copies` times over under distinct paths. */
function extractFixture(copies = 1): { path: string; blob: string; text: string }[] {
  const dir = fixture("extract");
  const names = readdirSync(dir)
    .filter((f) => f.endsWith(".rs"))
    .sort();
  return Array.from({ length: copies }, (_, k) => names.map((f) => ({ path: `crates/demo${k}/src/${f}`, blob: `${k}:${f}`, text: readFileSync(path.join(dir, f), "utf8") }))).flat();
}

describe("the calling thread beside a parse thread", () => {
  it("gives the sites one thread gives, in order, over calls that overlap", async () => {
    // Note: 6 copies are 102 files, in batches of at most 32: the parse thread is sent the first
    //   batch of each call, and the calling thread takes the last ones meanwhile.
    const files = extractFixture(6);
    const half = files.length >> 1;
    const alone = startPool(1);
    const expected = await alone.extract(files);
    await alone.close();
    const pool = startPool(2);
    const got = await Promise.all([pool.extract(files.slice(0, half)), pool.extract(files.slice(half))]);
    await pool.close();
    assert.deepEqual(got.flat(), expected);
    assert.ok(expected.filter((r) => r.sites.length > 0).length >= 6 * 10);
  });
});

describe("parse threads with too small a heap", () => {
  it("hand their files to the calling thread, which gives the same sites, and say so", async () => {
    const files = extractFixture();
    const here = startPool(1);
    const expected = await here.extract(files);
    await here.close();
    const lines: string[] = [];
    // Note: 1 MB is less than a thread needs to load the parser: both parse threads run out of memory.
    const starved = startPool(3, undefined, { heap: { maxOldGenerationSizeMb: 1, maxYoungGenerationSizeMb: 1 }, log: (line) => lines.push(line) });
    const got = await starved.extract(files);
    await starved.close();
    assert.deepEqual(got, expected);
    assert.ok(expected.some((r) => r.sites.length > 0));
    assert.equal(lines.length, 2, lines.join("\n"));
    assert.match(lines[0]!, /^a parse thread ran out of its 1 MB heap; its files are extracted on the calling thread$/);
    assert.match(lines[1]!, /the calling thread extracts the rest$/);
  });
});
