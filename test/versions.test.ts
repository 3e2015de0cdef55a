/**
 * Versions over a history: fixtures/history/<n>/ are three commits of one small crate.
 * 1 → 2: `rank_of` moves down (same record, new line), `dim`'s message is reworded, io.rs loses
 * one panic and gains another, `read_all`'s excerpt is edited, table.rs does not change.
 * 2 → 3: only README.md changes. Runs use contextLines 2, so each excerpt is five lines.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { analyzeWithCarry } from "../pipeline/analyze/index.js";
import { buildEnvelopes, contentOf, sameContent } from "../pipeline/build.js";
import { extractCachePath } from "../pipeline/cache.js";
import { run, type RunOptions } from "../pipeline/run.js";
import { hashConfig } from "../pipeline/settings.js";
import { verifyVersion } from "../pipeline/verify.js";
import { jsonlParts } from "../pipeline/write.js";
import type { CatalogRecord, Config, Envelope, Manifest, VersionsIndex } from "../pipeline/schema-types.generated.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const REPO = "example/history";
const history = makeRepo([fixture("history", "1"), fixture("history", "2"), fixture("history", "3")]);
const [SHA1, SHA2, SHA3] = history.shas as [string, string, string];
const T1 = "2026-02-01T10:00:00.000Z";
const T2 = "2026-02-02T10:00:00.000Z";
const T3 = "2026-02-03T10:00:00.000Z";

/** A workspace: a config pointing at the fixture repository, with its own output and cache. */
function workspace(): { dir: string; config: string; out: string; repoOut: string } {
  const dir = tempDir("error-catalog-versions-");
  const config = path.join(dir, "config.json");
  const data = { output: "out", cacheDir: "cache", contextLines: 2, includeTestCode: false, targets: [{ repo: REPO, url: history.dir, sha: SHA1, include: ["**/*.rs"], exclude: [] }] };
  writeFileSync(config, `${JSON.stringify(data, null, 2)}\n`);
  return { dir, config, out: path.join(dir, "out"), repoOut: path.join(dir, "out", "example", "history") };
}

function at(ws: { config: string }, sha: string, now: string, extra: Partial<RunOptions> = {}) {
  return run({ configPath: ws.config, sha, now: () => new Date(now), ...extra });
}

function records(dir: string): Envelope[] {
  return readFileSync(path.join(dir, "records.jsonl"), "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as Envelope);
}

function manifest(dir: string): Manifest {
  return JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8")) as Manifest;
}

function byMessage(envelopes: readonly Envelope[], message: string): Envelope {
  const found = envelopes.find((e) => e.record.errorMessage === message);
  assert.ok(found, `no record with message ${JSON.stringify(message)}`);
  return found;
}

/** Replaces the timestamps the schema lets differ between runs of the same inputs. */
function normalised(text: string): string {
  return text.replace(/"(datasetVersion|analyzedAt|contentChangedAt|recordsSha256)":\s*"[^"]+"/g, '"$1":"T"');
}

describe("idempotent runs", () => {
  test("a rerun at the same SHA writes no new version; --force writes one with the same records", async () => {
    const ws = workspace();
    const first = await at(ws, SHA1, T1);
    assert.equal(first.status, "written");
    assert.equal(first.version, `0001-${SHA1.slice(0, 12)}`);
    const indexBefore = readFileSync(path.join(ws.repoOut, "versions.json"), "utf8");

    const again = await at(ws, SHA1, T2);
    assert.equal(again.status, "up-to-date");
    assert.equal(again.version, first.version);
    assert.equal(readFileSync(path.join(ws.repoOut, "versions.json"), "utf8"), indexBefore);
    assert.deepEqual(readdirSync(ws.repoOut).sort(), [first.version, "versions.json"]);

    const forced = await at(ws, SHA1, T2, { force: true });
    assert.equal(forced.status, "written");
    assert.equal(forced.version, `0002-${SHA1.slice(0, 12)}`);
    // Same content: every record keeps the first run's times; only the envelope's datasetVersion is new.
    const a = readFileSync(path.join(first.dir, "records.jsonl"), "utf8");
    const b = readFileSync(path.join(forced.dir, "records.jsonl"), "utf8");
    assert.equal(b, a.replaceAll(`"datasetVersion":"${T1}"`, `"datasetVersion":"${T2}"`));
    assert.ok(records(forced.dir).every((e) => e.record.analyzedAt === T1 && e.record.contentChangedAt === T1));
  });

  test("a config change that shapes the output is not up to date at the same SHA", async () => {
    const ws = workspace();
    await at(ws, SHA1, T1);
    const data = JSON.parse(readFileSync(ws.config, "utf8")) as { contextLines: number };
    writeFileSync(ws.config, JSON.stringify({ ...data, contextLines: 3 }));
    const again = await at(ws, SHA1, T2);
    assert.equal(again.status, "written");
    assert.equal(byMessage(records(again.dir), "The table has exactly four entries.").record.sourceCodeStart, 6);
  });

  test("the config hash: the same without analysis settings and with the model off; another with a model on", () => {
    const config = { output: "o", cacheDir: "c", contextLines: 2, includeTestCode: false, targets: [] } as unknown as Config;
    const target = { repo: REPO, url: "u", sha: SHA1, include: ["**/*.rs"], exclude: [] };
    const off = { ...config, analysis: { llm: { enabled: false, endpoint: "e", model: "m", apiKeyEnv: "K", timeoutMs: 1, maxConcurrency: 1 } } } as unknown as Config;
    const on = { ...config, analysis: { llm: { enabled: true, endpoint: "e", model: "m", apiKeyEnv: "K", timeoutMs: 1, maxConcurrency: 1 } } } as unknown as Config;
    assert.equal(hashConfig(off, target), hashConfig(config, target));
    assert.notEqual(hashConfig(on, target), hashConfig(config, target));
    assert.equal(hashConfig({ ...config, output: "elsewhere", cacheDir: "x" }, { ...target, url: "v", sha: SHA2 }), hashConfig(config, target), "where things are kept, and the SHA, are not the shape");
  });

  test("the same inputs give the same bytes, apart from the schema's timestamps", async () => {
    const one = workspace();
    const two = workspace();
    const a = await at(one, SHA2, T1);
    const b = await at(two, SHA2, T3);
    for (const file of ["records.jsonl", "manifest.json"]) {
      const x = readFileSync(path.join(a.dir, file), "utf8");
      const y = readFileSync(path.join(b.dir, file), "utf8");
      assert.notEqual(x, y, `${file}: the clocks differ, so the raw bytes must too`);
      assert.equal(normalised(x), normalised(y), file);
    }
    // The manifest's hash is the one of the records as written (it differs with the clocks).
    for (const { dir } of [a, b]) {
      const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8")) as Manifest;
      assert.equal(manifest.recordsSha256, createHash("sha256").update(readFileSync(path.join(dir, "records.jsonl"))).digest("hex"));
    }
  });
});

describe("a version in which no record changed", () => {
  // The second commit adds a Rust file with no site; the third adds a README only.
  const base = fixture("history", "2");
  const tree = (files: Record<string, string>) => {
    const dir = tempDir("error-catalog-tree-");
    cpSync(base, dir, { recursive: true });
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    return dir;
  };
  const quiet = makeRepo([base, tree({ "src/extra.rs": "pub fn extra() -> u32 {\n    1\n}\n" }), fixture("history", "3")]);
  const [Q1, Q2] = quiet.shas as [string, string, string];
  const space = () => {
    const ws = workspace();
    const data = JSON.parse(readFileSync(ws.config, "utf8")) as Config;
    writeFileSync(ws.config, JSON.stringify({ ...data, targets: [{ ...data.targets[0]!, url: quiet.dir }] }));
    return ws;
  };
  /** A run and its carry plan, as its manifest records it. */
  const planned = async (ws: { config: string }, sha: string, now: string, extra: Partial<RunOptions> = {}) => {
    const result = await at(ws, sha, now, extra);
    return { result, mode: manifest(result.dir).carry?.mode };
  };
  /** The manifest but its carry plan and the analyses it counts as carried (which differ by mode). */
  const withoutPlan = (dir: string) => {
    const { carry: _k, analysis, ...rest } = manifest(dir);
    const { staticCarried: _c, ...counts } = analysis ?? { static: 0, llm: 0, llmCached: 0, llmFailed: 0 };
    return { ...rest, analysis: counts, recordsSha256: "" };
  };

  test("is the previous records.jsonl with the commit's values replaced: the bytes building it gives", async () => {
    const short = space();
    const v1 = await at(short, Q1, T1);
    const v2 = await planned(short, Q2, T2);
    assert.equal(v2.mode, "whole", "the records were carried over as bytes");
    // Q2 adds src/extra.rs, without a site, to the four files of history/2, whose five sites are five records.
    assert.deepEqual(manifest(v2.result.dir).carry, { mode: "whole", from: v1.version, reason: "no file that changed holds a record's site or declares other test modules", filesUnchanged: 4, recordsTaken: 5, excerptsTaken: 5 });
    // The long ways: the same previous version, the plan asked to take no more than unchanged records, or nothing.
    for (const allow of ["partial", "none"] as const) {
      const long = space();
      await at(long, Q1, T1);
      const w2 = await planned(long, Q2, T2, { carry: allow });
      assert.equal(w2.mode, allow);
      assert.equal(readFileSync(path.join(v2.result.dir, "records.jsonl"), "utf8"), readFileSync(path.join(w2.result.dir, "records.jsonl"), "utf8"), `records.jsonl, ${allow}`);
      assert.deepEqual(withoutPlan(w2.result.dir), withoutPlan(v2.result.dir), `manifest.json, ${allow}`);
    }
    const before = readFileSync(path.join(v1.dir, "records.jsonl"), "utf8");
    assert.equal(readFileSync(path.join(v2.result.dir, "records.jsonl"), "utf8"), before.replaceAll(Q1, Q2).replaceAll(`"datasetVersion":"${T1}"`, `"datasetVersion":"${T2}"`));
    assert.ok(records(v2.result.dir).length > 0);
    assert.deepEqual((await verifyVersion(v2.result.dir)).problems, []);
    // And again from a version that was itself carried over.
    const v3 = await planned(short, quiet.shas[2]!, T3);
    assert.equal(v3.mode, "whole");
    assert.deepEqual((await verifyVersion(v3.result.dir)).problems, []);
    assert.equal(manifest(v3.result.dir).analysis?.staticCarried, records(v3.result.dir).length);
  });

  test("files of test code that change, come and go: the counts are the ones counting every file gives", async () => {
    // Their sites are counted (test code), none is catalogued: the records are carried over.
    const it1 = "#[test]\nfn one() {\n    assert_eq!(1, 1);\n    assert!(true, \"holds\");\n}\n";
    const it2 = "#[test]\nfn one() {\n    assert!(true, \"holds\");\n    panic!(\"a test that fails\");\n    unreachable!();\n}\n";
    const testing = makeRepo([tree({ "tests/it.rs": it1, "tests/gone.rs": "#[test]\nfn g() { todo!() }\n" }), tree({ "tests/it.rs": it2, "tests/new.rs": "#[test]\nfn n() { debug_assert!(false) }\n" })]);
    const spaceOf = () => {
      const ws = workspace();
      const data = JSON.parse(readFileSync(ws.config, "utf8")) as Config;
      writeFileSync(ws.config, JSON.stringify({ ...data, targets: [{ ...data.targets[0]!, url: testing.dir }] }));
      return ws;
    };
    const short = spaceOf();
    await at(short, testing.shas[0]!, T1);
    const v2 = await planned(short, testing.shas[1]!, T2);
    assert.equal(v2.mode, "whole", manifest(v2.result.dir).carry?.reason);
    const long = spaceOf();
    await at(long, testing.shas[0]!, T1);
    const w2 = await planned(long, testing.shas[1]!, T2, { carry: "partial" });
    assert.equal(w2.mode, "partial");
    assert.equal(readFileSync(path.join(v2.result.dir, "records.jsonl"), "utf8"), readFileSync(path.join(w2.result.dir, "records.jsonl"), "utf8"));
    assert.deepEqual(withoutPlan(w2.result.dir), withoutPlan(v2.result.dir));
    const counts = manifest(v2.result.dir).counts;
    assert.deepEqual([counts.sitesByContext.test, counts.sitesByKind.panic !== undefined, counts.sitesByKind.todo, counts.sitesByKind["debug-assert"]], [4, true, undefined, 1]);
  });

  test("a changed file without sites that declares other test modules makes the run build", async () => {
    // lib.rs holds no site. io.rs and shape.rs hold as many records and occurrences: which of the
    // two is test code changes the records, not their counts.
    const lib = readFileSync(path.join(base, "src", "lib.rs"), "utf8");
    const declaring = makeRepo([
      tree({ "src/lib.rs": lib.replace("pub mod io;", "#[cfg(test)]\nmod io;") }),
      tree({ "src/lib.rs": lib.replace("pub mod shape;", "#[cfg(test)]\nmod shape;") }),
    ]);
    const ws = workspace();
    const data = JSON.parse(readFileSync(ws.config, "utf8")) as Config;
    writeFileSync(ws.config, JSON.stringify({ ...data, targets: [{ ...data.targets[0]!, url: declaring.dir }] }));
    const files = (dir: string) => records(dir).map((e) => e.record.filePath);
    const v1 = await at(ws, declaring.shas[0]!, T1);
    assert.deepEqual(files(v1.dir).filter((f) => f !== "src/table.rs").sort(), ["src/shape.rs", "src/shape.rs"]);
    const v2 = await planned(ws, declaring.shas[1]!, T2);
    assert.equal(v2.mode, "partial", "the records were built again");
    assert.deepEqual(files(v2.result.dir).filter((f) => f !== "src/table.rs").sort(), ["src/io.rs", "src/io.rs"]);
    assert.equal(records(v2.result.dir).length, records(v1.dir).length);
  });

  test("a previous records.jsonl changed after it was written stops the run, which takes nothing from it", async () => {
    const ws = space();
    const v1 = await at(ws, Q1, T1);
    const file = path.join(v1.dir, "records.jsonl");
    // Still valid: one record's severity edited by hand.
    writeFileSync(file, readFileSync(file, "utf8").replace('"severity":"error"', '"severity":"warning"'));
    await assert.rejects(at(ws, Q2, T2), (error: Error & { code?: string }) => error.code === "E_INPUT" && error.message.includes(`${file} is not the file its manifest was written with`));
    assert.equal((JSON.parse(readFileSync(path.join(ws.repoOut, "versions.json"), "utf8")) as VersionsIndex).versions.length, 1, "nothing written");
  });

  test("a record that changed makes the run build and analyse", async () => {
    const ws = workspace();
    await at(ws, SHA1, T1);
    const v2 = await planned(ws, SHA2, T2);
    assert.equal(v2.mode, "partial");
    assert.match(manifest(v2.result.dir).carry!.reason, /changed holds a record's site/);
  });
});

describe("regeneration at a new SHA", () => {
  test("the index names the parent; unchanged content keeps its times, the rest describes the new SHA", async () => {
    const ws = workspace();
    const v1 = await at(ws, SHA1, T1);
    const v2 = await at(ws, SHA2, T2);
    const index = JSON.parse(readFileSync(path.join(ws.repoOut, "versions.json"), "utf8")) as VersionsIndex;
    assert.deepEqual(index.versions.map((v) => [v.version, v.sha, v.parent]), [
      [v1.version, SHA1, null],
      [v2.version, SHA2, v1.version],
    ]);
    assert.equal(manifest(v2.dir).parentSha, SHA1);

    const after = records(v2.dir);
    assert.equal(after.length, 5);
    assert.ok(after.every((e) => e.record.analyzedSha === SHA2 && e.record.githubUrl.includes(`/blob/${SHA2}/`) && e.occurrences.every((o) => o.githubUrl.includes(`/blob/${SHA2}/`))));

    // table.rs did not change at all.
    const table = byMessage(after, "The table has exactly four entries.");
    assert.deepEqual([table.record.lineNumber, table.record.analyzedAt, table.record.contentChangedAt], [9, T1, T1]);
    // rank_of moved from line 5 to 9 with its five lines of excerpt: same content, old times.
    const moved = byMessage(after, "A shape needs at least one dimension.");
    assert.deepEqual([moved.record.lineNumber, moved.record.sourceCodeStart, moved.record.sourceCodeEnd], [9, 7, 11]);
    assert.ok(moved.record.githubUrl.endsWith(`/blob/${SHA2}/src/shape.rs#L7-L11`));
    assert.deepEqual([moved.record.analyzedAt, moved.record.contentChangedAt], [T1, T1]);
    // read_all's excerpt changed (`bytes` became `data`): new times.
    const edited = byMessage(after, "Reading a listed file must succeed");
    assert.equal(edited.record.lineNumber, 9);
    assert.match(edited.record.sourceCode, /let data = std::fs::read\(path\);/);
    assert.deepEqual([edited.record.analyzedAt, edited.record.contentChangedAt], [T2, T2]);
    // A reworded message is a new record.
    const reworded = byMessage(after, "Dimension is out of range for this shape.");
    assert.deepEqual([reworded.record.lineNumber, reworded.record.contentChangedAt], [17, T2]);
    assert.equal(byMessage(after, "The cache directory must be set").record.lineNumber, 13);
    assert.ok(!after.some((e) => e.record.errorMessage === "Could not open the config file."));
  });

  test("only files whose blobs changed are parsed; the manifest counts parsed and reused files", async () => {
    const ws = workspace();
    const v1 = await at(ws, SHA1, T1);
    // lib.rs has no candidate text, so it is never parsed (but is cached); the other three are.
    assert.deepEqual([manifest(v1.dir).counts.filesParsed, manifest(v1.dir).counts.filesReused], [3, 0]);
    const v2 = await at(ws, SHA2, T2);
    // shape.rs and io.rs changed; lib.rs and table.rs are taken from the cache.
    assert.deepEqual([manifest(v2.dir).counts.filesParsed, manifest(v2.dir).counts.filesReused], [2, 2]);
    const v3 = await at(ws, SHA3, T3);
    assert.deepEqual([manifest(v3.dir).counts.filesParsed, manifest(v3.dir).counts.filesReused], [0, 4]);
    // Nothing in the Rust source changed: every record keeps its times and points at the new SHA.
    const before = records(v2.dir);
    const after = records(v3.dir);
    assert.deepEqual(after.map((e) => [e.record.id, e.record.analyzedAt, e.record.contentChangedAt]), before.map((e) => [e.record.id, e.record.analyzedAt, e.record.contentChangedAt]));
    assert.ok(after.every((e) => e.record.analyzedSha === SHA3));
  });

  test("records are the same with and without the extraction cache", async () => {
    const cached = workspace();
    await at(cached, SHA1, T1);
    const warm = await at(cached, SHA2, T2);
    const cold = workspace();
    await at(cold, SHA1, T1);
    rmSync(path.join(cold.dir, "cache", "extract"), { recursive: true });
    const fresh = await at(cold, SHA2, T2);
    assert.deepEqual([manifest(fresh.dir).counts.filesReused, manifest(warm.dir).counts.filesReused], [0, 2]);
    assert.equal(readFileSync(path.join(warm.dir, "records.jsonl"), "utf8"), readFileSync(path.join(fresh.dir, "records.jsonl"), "utf8"));
    const { filesParsed: _p, filesReused: _r, ...warmCounts } = manifest(warm.dir).counts;
    const { filesParsed: _q, filesReused: _s, ...coldCounts } = manifest(fresh.dir).counts;
    assert.deepEqual(warmCounts, coldCounts);
  });

  test("a version built on the previous one (analyses and excerpts carried over) is the one a fresh run builds", async () => {
    const ws = workspace();
    await at(ws, SHA1, T1);
    const v2 = await at(ws, SHA2, T2);
    const v3 = await at(ws, SHA3, T3);
    for (const [sha, built] of [[SHA2, v2], [SHA3, v3]] as const) {
      const fresh = await at(workspace(), sha, T3);
      assert.equal(normalised(readFileSync(path.join(built.dir, "records.jsonl"), "utf8")), normalised(readFileSync(path.join(fresh.dir, "records.jsonl"), "utf8")), `records at ${sha}`);
      assert.equal(manifest(fresh.dir).analysis?.staticCarried, undefined, "nothing to carry from");
    }
    // 1 → 2: table.rs's record is unchanged; the moved, edited and new ones are analysed again.
    const carried2 = manifest(v2.dir).analysis?.staticCarried ?? -1;
    assert.ok(carried2 >= 1 && carried2 < 5, `carried ${carried2} of 5`);
    // 2 → 3: no Rust file changed, every record is carried over.
    assert.equal(manifest(v3.dir).analysis?.staticCarried, 5);
  });

  test("a record whose sites are where they were is taken whole: the new commit's links, the same facts and analysis", async () => {
    const v1 = await at(workspace(), SHA1, T1);
    // A record of a plain panic! message: its runtime text is the message itself.
    const before = records(v1.dir).find((e) => e.facts?.sameFunction.length === 0 && e.occurrences[0]!.kind === "panic" && e.record.messagePattern === e.record.errorMessage.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))!;
    const o = before.occurrences[0]!;
    const site = { kind: o.kind, path: o.filePath, line: o.lineNumber, column: 1, inTokenTree: false, context: o.context, message: before.record.errorMessage, runtime: [{ lit: before.record.errorMessage }], skip: null };
    const sha = "f".repeat(40);
    const asked: string[] = [];
    const [built] = buildEnvelopes({
      repo: REPO,
      sha,
      contextLines: 18,
      groups: new Map([[before.record.messagePattern, [site]]]),
      textOf: () => assert.fail("a record taken whole reads no text"),
      now: T2,
      reuse: (id) => (asked.push(id), id === before.record.id ? before : undefined),
    });
    assert.deepEqual(asked, [before.record.id]);
    const links = (e: Envelope) => [e.record.githubUrl, ...e.occurrences.map((x) => x.githubUrl)];
    assert.ok(links(built!).every((url) => url.includes(`/blob/${sha}/`)) && links(before).every((url) => url.includes(`/blob/${SHA1}/`)));
    assert.deepEqual(built, { ...before, record: { ...before.record, githubUrl: built!.record.githubUrl, analyzedSha: sha }, occurrences: before.occurrences.map((x, k) => ({ ...x, githubUrl: built!.occurrences[k]!.githubUrl })), datasetVersion: T2 });
    assert.deepEqual(links(built!), links(before).map((url) => url.replace(SHA1, sha)));

    // Its peers are the same (none): analysis keeps the very facts and fields, and counts it carried.
    const analysed = analyzeWithCarry({ envelopes: [built!], sites: [], carryFrom: new Map([[before.record.id, before]]) });
    assert.equal(analysed.carried, 1);
    assert.equal(analysed.envelopes[0]!.facts, before.facts, "the previous facts object itself: not built again");
    assert.equal(analysed.envelopes[0]!.record.documentation, before.record.documentation);
    // Every record taken whole and none came or went: the very envelopes come back, all carried.
    const other = records(v1.dir).find((e) => e.record.id !== before.record.id)!;
    const both = [built!, other];
    const whole = analyzeWithCarry({ envelopes: both, sites: [], carryFrom: new Map(both.map((e) => [e.record.id, e === built ? before : e])) });
    assert.equal(whole.carried, 2);
    assert.ok(whole.envelopes.every((e, k) => e === both[k]));
    // One more record than before: the records are analysed (their related ids may change).
    const added = analyzeWithCarry({ envelopes: both, sites: [], carryFrom: new Map([[before.record.id, before]]) });
    assert.notEqual(added.envelopes[0], built);
    assert.equal(added.envelopes[0]!.facts, before.facts, "its analysis carried all the same");
    // A peer the previous analysis had that is gone: analysed again, from the site's facts.
    const withPeer = { ...before, facts: { ...before.facts!, sameFunction: ["0".repeat(16)] } };
    const again = analyzeWithCarry({ envelopes: [{ ...built!, facts: withPeer.facts }], sites: [], carryFrom: new Map([[before.record.id, withPeer]]) });
    assert.equal(again.carried, 0);
    assert.notEqual(again.envelopes[0]!.facts, withPeer.facts);
  });

  test("a record taken whole, with its analysis and related ids, keeps its previous line with the commit replaced", async () => {
    // v1's lines rewritten as equal JSON with a space after the first brace, its hash recorded
    // again: a line taken from v1 keeps the space, a record serialised again has none.
    const spaced = async (hashed: boolean) => {
      const ws = workspace();
      const v1 = await at(ws, SHA1, T1);
      const file = path.join(v1.dir, "records.jsonl");
      const lines = readFileSync(file, "utf8").replaceAll('{"record":', '{ "record":');
      writeFileSync(file, lines);
      const m = manifest(v1.dir);
      if (hashed) writeFileSync(path.join(v1.dir, "manifest.json"), `${JSON.stringify({ ...m, recordsSha256: createHash("sha256").update(lines).digest("hex") }, null, 2)}\n`);
      const v2 = await at(ws, SHA2, T2);
      return { before: lines.trimEnd().split("\n"), after: readFileSync(path.join(v2.dir, "records.jsonl"), "utf8").trimEnd().split("\n"), dir: v2.dir };
    };
    const { before, after, dir } = await spaced(true);
    const taken = after.filter((l) => l.startsWith('{ "record":'));
    // 1 → 2: table.rs's record is unchanged; the moved, edited and new ones are built again.
    assert.ok(taken.length >= 1 && taken.length < after.length, `${taken.length} of ${after.length} lines taken`);
    for (const line of taken) assert.ok(before.map((l) => l.replaceAll(SHA1, SHA2).replace(`"datasetVersion":"${T1}"`, `"datasetVersion":"${T2}"`)).includes(line), line.slice(0, 60));
    assert.deepEqual((await verifyVersion(dir)).problems, []);
    // The same records as a run that builds every line.
    const fresh = await at(workspace(), SHA2, T2);
    assert.equal(normalised(after.join("\n").replaceAll('{ "record":', '{"record":')), normalised(readFileSync(path.join(fresh.dir, "records.jsonl"), "utf8").trimEnd()));
    // Bytes the manifest did not record lend nothing: the run stops.
    await assert.rejects(spaced(false), (error: Error & { code?: string }) => error.code === "E_INPUT");
  });

  test("excerpts are carried over only from the tree the cache is of", async () => {
    // a.rs keeps its panic on line 3 while the comment above it changes (A → B; C is B again).
    const trees = ["// A", "// B", "// B"].map((comment, k) => {
      const dir = tempDir(`error-catalog-tree-${k}-`);
      mkdirSync(path.join(dir, "src"));
      writeFileSync(path.join(dir, "src", "a.rs"), `${comment}\npub fn f() {\n    panic!("always");\n}\n`);
      if (k === 2) writeFileSync(path.join(dir, "README.md"), "C\n");
      return dir;
    });
    const repo = makeRepo(trees);
    const [A, B, C] = repo.shas as [string, string, string];
    const ws = workspace();
    writeFileSync(ws.config, readFileSync(ws.config, "utf8").replace(JSON.stringify(history.dir), JSON.stringify(repo.dir)));
    await at(ws, A, T1);
    // A run at C into another output leaves the shared cache at C's tree, not at the version's (A).
    await at(ws, C, T2, { out: path.join(ws.dir, "elsewhere") });
    const b = await at(ws, B, T3);
    const [only] = records(b.dir);
    assert.match(only!.record.sourceCode, /^\/\/ B\n/, "the excerpt is read from B's text, not carried from A's record");
  });

  test("a damaged cache file costs a full parse, not the run", async () => {
    const ws = workspace();
    await at(ws, SHA1, T1);
    const file = extractCachePath(path.join(ws.dir, "cache"), REPO);
    assert.ok(existsSync(file));
    writeFileSync(file, "{ not json");
    const lines: string[] = [];
    const v2 = await at(ws, SHA2, T2, { log: (l) => lines.push(l) });
    assert.deepEqual([manifest(v2.dir).counts.filesParsed, manifest(v2.dir).counts.filesReused], [3, 0]);
    assert.ok(lines.some((l) => l.includes("ignoring the damaged extraction cache")));
    // The run rewrote it: the next run reuses again.
    const v3 = await at(ws, SHA3, T3);
    assert.equal(manifest(v3.dir).counts.filesReused, 4);
  });
});

describe("the extraction cache file", () => {
  const cacheFile = (ws: { dir: string }) => extractCachePath(path.join(ws.dir, "cache"), REPO);

  test("is the same bytes for the same tree, on one thread or two, and names its tree", async () => {
    const one = workspace();
    await at(one, SHA2, T1, { threads: 1 });
    const two = workspace();
    await at(two, SHA2, T1, { threads: 2 });
    const text = readFileSync(cacheFile(one), "utf8");
    assert.equal(readFileSync(cacheFile(two), "utf8"), text);
    assert.equal((JSON.parse(text.split("\n")[0]!) as { sha: string }).sha, SHA2);
  });

  test("a failed run leaves it as it was, with no temporary file beside it", async () => {
    const ws = workspace();
    await at(ws, SHA1, T1);
    const before = readFileSync(cacheFile(ws));
    const blocker = path.join(ws.repoOut, `versions.json.tmp-${process.pid}`);
    mkdirSync(blocker);
    await assert.rejects(at(ws, SHA2, T2));
    rmSync(blocker, { recursive: true });
    assert.deepEqual(readFileSync(cacheFile(ws)), before);
    assert.deepEqual(readdirSync(path.dirname(cacheFile(ws))), [path.basename(cacheFile(ws))]);
  });

  test("one that cannot be written costs the next run a parse, not this run", async () => {
    const ws = workspace();
    await at(ws, SHA1, T1);
    const before = readFileSync(cacheFile(ws));
    mkdirSync(`${cacheFile(ws)}.tmp-${process.pid}`);
    const lines: string[] = [];
    const v2 = await at(ws, SHA2, T2, { log: (l) => lines.push(l) });
    assert.ok(lines.some((l) => l.startsWith("could not write the extraction cache")), lines.join("\n"));
    assert.deepEqual(readFileSync(cacheFile(ws)), before, "the cache is left at SHA1's tree");
    const fresh = await at(workspace(), SHA2, T2);
    assert.equal(normalised(readFileSync(path.join(v2.dir, "records.jsonl"), "utf8")), normalised(readFileSync(path.join(fresh.dir, "records.jsonl"), "utf8")));
  });
});

describe("interrupted write", () => {
  test("a failure while replacing the index leaves the index and earlier versions byte-identical", async () => {
    const ws = workspace();
    const v1 = await at(ws, SHA1, T1);
    const snapshot = () => Object.fromEntries(["versions.json", `${v1.version}/manifest.json`, `${v1.version}/records.jsonl`].map((f) => [f, readFileSync(path.join(ws.repoOut, f))]));
    const before = snapshot();
    // The new index is written to versions.json.tmp-<pid> after the version folder is in place:
    // a directory in its way makes that write fail at the last step.
    const blocker = path.join(ws.repoOut, `versions.json.tmp-${process.pid}`);
    mkdirSync(blocker);
    await assert.rejects(at(ws, SHA2, T2), (error: Error & { code?: string }) => error.code === "E_IO" && /earlier versions are untouched/.test((error as { hint?: string }).hint ?? ""));
    rmSync(blocker, { recursive: true });
    assert.deepEqual(snapshot(), before);
    assert.deepEqual(readdirSync(ws.repoOut).sort(), [v1.version, "versions.json"], "the half-written version folder is removed");

    const v2 = await at(ws, SHA2, T2);
    assert.equal(v2.status, "written");
    const index = JSON.parse(readFileSync(path.join(ws.repoOut, "versions.json"), "utf8")) as VersionsIndex;
    assert.deepEqual(index.versions.map((v) => v.parent), [null, v1.version]);
  });
});

describe("records.jsonl in parts", () => {
  /** 600 envelopes of about 4 KB. */
  const many = async () => {
    const [envelope] = records((await at(workspace(), SHA1, T1)).dir);
    return Array.from({ length: 600 }, (_, i) => ({ ...envelope!, record: { ...envelope!.record, id: String(i).padStart(16, "0"), sourceCode: "x".repeat(4000) } }));
  };

  test("the parts of a dataset larger than one part join into one line per envelope, in order", async () => {
    const envelopes = await many();
    const parts = [...jsonlParts(envelopes)];
    assert.ok(parts.length >= 3, `${parts.length} parts`);
    assert.ok(parts.every((part) => part.at(-1) === 10), "each part ends a line");
    assert.equal(Buffer.concat(parts).toString("utf8"), envelopes.map((e) => `${JSON.stringify(e)}\n`).join(""));
  });

  test("a carried line goes as its bytes, among the envelopes serialised again, in order", async () => {
    const envelopes = await many();
    const carried = (e: Envelope) => (Number(e.record.id) % 3 === 0 ? Buffer.from(`{"carried":"${e.record.id} é${"y".repeat(4000)}"}`) : null);
    const parts = [...jsonlParts(envelopes, carried)];
    assert.ok(parts.length >= 3, `${parts.length} parts`);
    assert.ok(parts.every((part) => part.at(-1) === 10), "each part ends a line");
    assert.equal(Buffer.concat(parts).toString("utf8"), envelopes.map((e) => `${carried(e)?.toString("utf8") ?? JSON.stringify(e)}\n`).join(""));
  });
});

describe("leftovers of killed runs", () => {
  test("the next run removes what a run whose process is gone left, and not what a running one has", async () => {
    const ws = workspace();
    const v1 = await at(ws, SHA1, T1);
    const gone = spawnSync("true").pid!;
    const alive = process.ppid;
    const file = extractCachePath(path.join(ws.dir, "cache"), REPO);
    const cacheDir = path.dirname(file);
    const base = path.basename(file);
    for (const pid of [gone, alive]) {
      writeFileSync(path.join(cacheDir, `${base}.tmp-${pid}`), "half a cache");
      mkdirSync(path.join(ws.repoOut, `.staging-0002-${SHA2.slice(0, 12)}-${pid}`));
      writeFileSync(path.join(ws.repoOut, `versions.json.tmp-${pid}`), "half an index");
    }
    writeFileSync(path.join(cacheDir, "notes-123"), "not ours");
    const v2 = await at(ws, SHA2, T2);
    assert.deepEqual(readdirSync(cacheDir).sort(), [base, `${base}.tmp-${alive}`, "notes-123"].sort());
    assert.deepEqual(readdirSync(ws.repoOut).sort(), [`.staging-0002-${SHA2.slice(0, 12)}-${alive}`, v1.version, v2.version, "versions.json", `versions.json.tmp-${alive}`].sort());
  });

  test("a whole version folder the index does not name (killed before the index was written) is removed, and its number used again", async () => {
    const ws = workspace();
    const v1 = await at(ws, SHA1, T1);
    // What a run killed between its folder's rename and the index's leaves.
    const left = `0002-${SHA3.slice(0, 12)}`;
    cpSync(v1.dir, path.join(ws.repoOut, left), { recursive: true });
    mkdirSync(path.join(ws.repoOut, "notes"));
    const lines: string[] = [];
    const v2 = await at(ws, SHA2, T2, { log: (line) => lines.push(line) });
    assert.equal(v2.version, `0002-${SHA2.slice(0, 12)}`);
    assert.deepEqual(readdirSync(ws.repoOut).sort(), [v1.version, v2.version, "notes", "versions.json"].sort());
    assert.ok(lines.some((l) => l.includes(left)), "the run says what it removed");
  });
});

describe("record content", () => {
  const base = { filePath: "src/a.rs", lineNumber: 5, sourceCodeStart: 3, sourceCodeEnd: 7, githubUrl: "u1", analyzedSha: "a", analyzedAt: "t1", contentChangedAt: "t1", errorMessage: "m", sourceCode: "x", documentation: "Raised in `src/a.rs:5`, before line 5.", solutions: ["Check it before line 5."] } as unknown as CatalogRecord;

  test("location and time fields are not content; text quoting the record's own line is read without it", () => {
    const moved = { ...base, lineNumber: 9, sourceCodeStart: 7, sourceCodeEnd: 11, githubUrl: "u2", analyzedSha: "b", analyzedAt: "t2", contentChangedAt: "t2", documentation: "Raised in `src/a.rs:9`, before line 9.", solutions: ["Check it before line 9."] };
    assert.ok(sameContent(base, moved));
    assert.deepEqual(Object.keys(contentOf(base)), ["errorMessage", "sourceCode", "documentation", "solutions"]);
  });

  test("any other difference is a change: the message, the excerpt text, another line quoted", () => {
    assert.ok(!sameContent(base, { ...base, errorMessage: "n" }));
    assert.ok(!sameContent(base, { ...base, sourceCode: "y" }));
    assert.ok(!sameContent(base, { ...base, documentation: "Raised in `src/a.rs:5`, before line 6." }));
  });
});
