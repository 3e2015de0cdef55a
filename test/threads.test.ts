/**
 * Extraction on any number of threads, with or without the cache, gives the same dataset: the
 * same records.jsonl bytes (the clock is pinned) and the same manifest but for the parse counts.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { PipelineError } from "../pipeline/errors.js";
import { startPool, THREAD_HEAP, TOKEN_THREAD_FILES } from "../pipeline/extract-pool.js";
import { tokenFacts } from "../pipeline/token-pass.js";
import { startTokenThread, type TokenPass } from "../pipeline/token-thread.js";
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

/** A token thread that logs nowhere, with the parse threads' heap (or `heap`), running `script` when given. */
function tokenThread(script?: URL, heap = THREAD_HEAP, log: (line: string) => void = () => {}): TokenPass {
  return startTokenThread({ heap, log, ...(script === undefined ? {} : { script }) });
}

/** A worker script in a temp dir: `body` runs on each `message`. */
function failingScript(body: string): URL {
  const file = path.join(tempDir("error-catalog-token-script-"), "worker.mjs");
  writeFileSync(file, `import { parentPort } from "node:worker_threads";\nparentPort.on("message", (message) => { ${body} });\n`);
  return new URL(`file://${file}`);
}

describe("the token pass on a thread of its own", () => {
  it("gives each file the sites and the token pass of the calling thread alone, field for field, over calls that overlap", async () => {
    // Note: 8 copies are 136 files: each call's first chunks go to the thread at once, and the
    //   calling thread reads the texts the thread was not sent when it joins them.
    const files = extractFixture(8);
    const alone = startPool(1);
    const expected = await alone.extract(files);
    await alone.close();
    const half = files.length >> 1;
    const pool = startPool(1, undefined, { tokens: tokenThread() });
    const got = (await Promise.all([pool.extract(files.slice(0, half)), pool.extract(files.slice(half))])).flat();
    await pool.close();
    assert.deepEqual(got, expected);
    // The cache writes each result as JSON: the same fields in the same order.
    assert.deepEqual(got.map((r) => JSON.stringify(r)), expected.map((r) => JSON.stringify(r)));
    assert.ok(expected.some((r) => r.symbols!.functions.length > 0) && expected.some((r) => !r.parsed) && expected.some((r) => r.parsed));
  });

  it("answers texts the thread reads with what the calling thread reads of them", async () => {
    const texts = extractFixture().map((f) => f.text);
    const tokens = tokenThread();
    // Note: the thread is sent its first chunks when they are added; waiting lets it answer them.
    const tickets = tokens.add(texts);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const got = await tokens.take(tickets);
    await tokens.close();
    assert.deepEqual(got, texts.map(tokenFacts));
    assert.deepEqual(tokenFacts("#[cfg(test)]\nmod tests;\npub fn f() { g(\"x\") }\n").testModules, ["tests"]);
  });

  it("rejects with E_THREAD, without a hang, when the thread throws, stops or cannot start", async () => {
    const texts = extractFixture().map((f) => f.text);
    // Note: the second claims every text and stops later, while the calling thread waits for its answers.
    const scripts = [failingScript(`throw new Error("broken on purpose");`), failingScript("message.claims.fill(1); setTimeout(() => process.exit(7), 600);"), new URL(`file://${path.join(tempDir(), "missing.mjs")}`)];
    const messages = [/the token thread of extraction failed: broken on purpose/, /the token thread of extraction stopped \(exit code 7\)/, /the token thread of extraction failed: /];
    for (const [k, script] of scripts.entries()) {
      const tokens = tokenThread(script);
      const tickets = tokens.add(texts);
      // Note: the calling thread reads unclaimed texts itself: the failure is known by then.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await assert.rejects(tokens.take(tickets), (e: unknown) => e instanceof PipelineError && e.code === "E_THREAD" && messages[k]!.test(e.message));
      // A later call fails the same way.
      await assert.rejects(tokens.take(tokens.add(texts.slice(0, 1))), (e: unknown) => e instanceof PipelineError && e.code === "E_THREAD");
      await tokens.close();
    }
  });

  it("out of its heap, leaves its texts to the calling thread, which gives the same, and says so", async () => {
    const texts = extractFixture().map((f) => f.text);
    const lines: string[] = [];
    const tokens = tokenThread(undefined, { maxOldGenerationSizeMb: 1, maxYoungGenerationSizeMb: 1 }, (line) => lines.push(line));
    const tickets = tokens.add(texts);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const got = await tokens.take(tickets);
    await tokens.close();
    assert.deepEqual(got, texts.map(tokenFacts));
    assert.deepEqual(lines, ["the token thread ran out of its 1 MB heap; the calling thread reads the rest"]);
  });

  it("makes the same dataset and extraction cache as parse threads, which read the token pass themselves", async () => {
    const tree = tempDir("error-catalog-token-tree-");
    const dir = fixture("extract");
    const names = readdirSync(dir).filter((f) => f.endsWith(".rs"));
    const copies = Math.ceil(TOKEN_THREAD_FILES / names.length);
    for (let k = 0; k < copies; k++) {
      mkdirSync(path.join(tree, `crates/demo${k}/src`), { recursive: true });
      for (const name of names) copyFileSync(path.join(dir, name), path.join(tree, `crates/demo${k}/src`, name));
    }
    const repo = makeRepo([tree]);
    const one = await dataset(repo.dir, repo.shas[0]!, 1);
    const two = await dataset(repo.dir, repo.shas[0]!, 2);
    assert.ok(one.manifest.counts.filesRead >= TOKEN_THREAD_FILES);
    assert.equal(one.records, two.records);
    const cacheOf = (config: string) => {
      const cache = path.join(path.dirname(config), "cache", "extract");
      return readdirSync(cache).map((f) => readFileSync(path.join(cache, f), "utf8"));
    };
    assert.deepEqual(cacheOf(one.config), cacheOf(two.config));
  });
});
