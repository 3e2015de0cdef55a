/**
 * The extraction cache writer: the run keeps sites without their facts and reads back those of
 * the records' first sites from the file being written (`factsOf`), in reads of neighbouring
 * entries, whatever their size.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { loadExtractCache, openCacheWriter } from "../pipeline/cache.js";
import type { FileSites, Site, SiteFacts } from "../pipeline/types.js";
import { tempDir } from "./helpers/git.js";

/** Facts told apart by `tag`, about `bytes` long once written. */
function factsOf(tag: string, bytes: number): SiteFacts {
  return { items: [], gates: [], conditions: [], macro: null, callers: [tag, "x".repeat(bytes)], boundInside: [], exitInPath: false, exitBeforePath: false };
}

function site(filePath: string, line: number, facts: SiteFacts | null): Site {
  return { kind: "panic", path: filePath, line, column: 5, inTokenTree: false, context: "library", message: `at ${line}`, runtime: [{ lit: `at ${line}` }], skip: null, facts };
}

describe("the cache writer", () => {
  test("reads back the facts of sites in entries of any size, near and far apart in the file", async () => {
    const dir = tempDir();
    try {
      const writer = await openCacheWriter(path.join(dir, "extract", "a+b.jsonl"), { repo: "a/b", sha: "0".repeat(40), extractorVersion: 1, includeTestCode: false });
      // Small entries, one entry longer than a read, and small ones again: 3.5 MiB in all.
      const sizes = [...Array<number>(40).fill(20_000), 1_500_000, ...Array<number>(60).fill(20_000), 2_000, 2_000];
      const files: FileSites[] = sizes.map((bytes, k) => {
        const filePath = `src/f${String(k).padStart(3, "0")}.rs`;
        return { path: filePath, blob: "1".repeat(40), sites: [site(filePath, 1, factsOf(`${k}:1`, bytes)), site(filePath, 9, factsOf(`${k}:9`, 10))], parseErrors: false, parsed: true, testModules: [] };
      });
      for (const f of files) writer.add(f);
      // Asked in another order than the file's, some files for two sites, some for none.
      const asked: Site[] = files.filter((_, k) => k % 3 !== 1).reverse().flatMap((f, k) => (k % 2 === 0 ? f.sites : [f.sites[0]!])).map((s) => ({ ...s, facts: null }));
      asked.push(site("src/unknown.rs", 1, null), { ...files[0]!.sites[0]!, line: 2, facts: null });
      const read = await writer.factsOf(asked);
      assert.equal(read.size, asked.length - 2, "every site written, and no other");
      for (const s of asked.slice(0, -2)) assert.equal(read.get(s)?.callers[0], `${files.findIndex((f) => f.path === s.path)}:${s.line}`, `${s.path}:${s.line}`);
      await writer.discard();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the cache file", () => {
  const written = async (dir: string) => {
    const file = path.join(dir, "extract", "a+b.jsonl");
    const writer = await openCacheWriter(file, { repo: "a/b", sha: "0".repeat(40), extractorVersion: 1, includeTestCode: false });
    writer.add({ path: "src/a.rs", blob: "1".repeat(40), sites: [site("src/a.rs", 3, factsOf("a", 10)), site("src/a.rs", 7, null)], parseErrors: false, parsed: true, testModules: [] });
    writer.add({ path: "src/b.rs", blob: "2".repeat(40), sites: [], parseErrors: true, parsed: true, testModules: ["tests"] });
    await writer.commit();
    return file;
  };

  test("loads back what was written: heads, sites without facts, the tree's commit", async () => {
    const dir = tempDir();
    try {
      const { cache, problem } = await loadExtractCache(await written(dir), "a/b", 1);
      assert.equal(problem, null);
      assert.equal(cache.sha, "0".repeat(40));
      assert.deepEqual([...cache.heads.keys()], ["src/a.rs", "src/b.rs"]);
      assert.deepEqual(cache.heads.get("src/b.rs"), { path: "src/b.rs", blob: "2".repeat(40), parseErrors: true, parsed: true, testModules: ["tests"] });
      assert.deepEqual(cache.entry("src/a.rs")?.sites.map((s) => [s.line, s.facts]), [[3, null], [7, null]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("an entry edited after it was written, or a file cut short, is not used: the cache loads empty and says why", async () => {
    const dir = tempDir();
    try {
      const file = await written(dir);
      const text = readFileSync(file, "utf8");
      // Still valid JSON, and the blob still matches: only the hash tells.
      writeFileSync(file, text.replace('"line":7', '"line":8'));
      const edited = await loadExtractCache(file, "a/b", 1);
      assert.equal(edited.cache.heads.size, 0);
      assert.match(edited.problem ?? "", /damaged extraction cache .*SHA-256/);
      writeFileSync(file, text.slice(0, text.lastIndexOf("{")));
      const cut = await loadExtractCache(file, "a/b", 1);
      assert.equal(cut.cache.heads.size, 0);
      assert.match(cut.problem ?? "", /damaged/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
