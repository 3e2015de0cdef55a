/**
 * `error-catalog match`: the panic message inside a pasted block, pattern specificity, ranking,
 * and one end-to-end run of the CLI on a dataset written to a temp dir.
 */
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { buildEnvelopes, groupSites } from "../pipeline/build.js";
import { extractFile } from "../pipeline/extract.js";
import { loadDataset, matchRecords, panicMessage, patternLiterals } from "../pipeline/match.js";
import { composePattern, patternSpecificity } from "../pipeline/message.js";
import { packageRoot } from "../pipeline/paths.js";
import type { CatalogRecord, Envelope, Manifest } from "../pipeline/schema-types.generated.js";
import type { MessagePart } from "../pipeline/types.js";
import { jsonlParts, writeVersion } from "../pipeline/write.js";
import { fixture, tempDir } from "./helpers/git.js";

const NOTE = "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace";

describe("panicMessage", () => {
  it("takes the message out of the default hook's block (rustc 1.87+ with a thread id)", () => {
    const block = `thread 'main' (11609) panicked at src/lib.rs:39:5:\nTensor rank must be at least one.\n${NOTE}\n`;
    assert.equal(panicMessage(block), "Tensor rank must be at least one.");
  });

  it("keeps every line of a multi-line message and drops a backtrace", () => {
    const block = `thread 'tests::shape' panicked at crates/a/src/x.rs:3:9:\nassertion \`left == right\` failed\n  left: 1\n right: 2\nstack backtrace:\n   0: rust_begin_unwind\n`;
    assert.equal(panicMessage(block), "assertion `left == right` failed\n  left: 1\n right: 2");
  });

  it("reads the pre-1.73 form, CRLF, and text around the block", () => {
    assert.equal(panicMessage("thread 'main' panicked at 'bad value 3', src/main.rs:2:5\r\nnote: run with `RUST_BACKTRACE=1`\r\n"), "bad value 3");
    assert.equal(panicMessage(`running 1 test\n---- t stdout ----\nthread 't' panicked at a.rs:1:1:\nboom here\n${NOTE}\n\nfailures:\n`), "boom here");
    assert.equal(panicMessage("just the message\n"), "just the message");
  });
});

describe("patternLiterals", () => {
  it("counts the literal characters of composed patterns as patternSpecificity counts their parts", () => {
    const cases: MessagePart[][] = [
      [{ lit: "Autodiff should not wrap an autodiff device." }],
      [{ lit: "bad " }, { wild: true }, { lit: " and (x) [y] {z} 1+1=2? a|b ^$ \\ / é 🦀" }],
      [{ lit: "assertion failed: " }, { lit: "v" }, { gap: true }, { lit: "." }, { gap: true }, { lit: "len" }, { gap: true }, { lit: "()" }],
      [{ wild: true }, { lit: "tab\tnl\ncr\r ctrl\u0001 sep\u2028" }, { wild: true }, { lit: "x10" }, { wild: true }, { lit: "0" }],
    ];
    for (const parts of cases) assert.equal(patternLiterals(composePattern(parts)), patternSpecificity(parts), composePattern(parts));
  });

  it("counts a hand-checked pattern", () => {
    // `Rank ` (5) + ` is above ` (10) + `.` (1): the lookaheads, groups and backreferences count nothing.
    assert.equal(patternLiterals("^(?=([\\s\\S]*?Rank ))\\1(?=([\\s\\S]*? is above ))\\2(?=([\\s\\S]*?\\.))\\3"), 16);
  });
});

/** A record with just what matching reads. */
function record(id: string, errorMessage: string, parts: MessagePart[]): CatalogRecord {
  return { id, errorMessage, messagePattern: composePattern(parts), filePath: `src/${id}.rs`, lineNumber: 1, githubUrl: `https://example.com/${id}` } as CatalogRecord;
}

describe("matchRecords", () => {
  const records = [
    record("aaaa000000000001", "Autodiff should not wrap an autodiff device.", [{ lit: "Autodiff should not wrap an autodiff device." }]),
    record("aaaa000000000002", "Autodiff should not wrap an autodiff device.", [{ lit: "internal error: entered unreachable code: Autodiff should not wrap an autodiff device." }]),
    record("aaaa000000000003", "Rank {} is above {}", [{ lit: "Rank " }, { wild: true }, { lit: " is above " }, { wild: true }]),
    { ...record("aaaa000000000004", "broken", [{ lit: "x" }]), messagePattern: "(" },
  ];

  it("ranks the matches most specific first", () => {
    const found = matchRecords(`thread 'main' (7) panicked at a.rs:1:1:\ninternal error: entered unreachable code: Autodiff should not wrap an autodiff device.\n${NOTE}`, records);
    assert.deepEqual(found.map((m) => m.id), ["aaaa000000000002", "aaaa000000000001"]);
    assert.ok(found[0]!.specificity > found[1]!.specificity);
    assert.equal(found[0]!.githubUrl, "https://example.com/aaaa000000000002");
  });

  it("fills holes with any text, newlines included, and skips invalid patterns", () => {
    assert.deepEqual(matchRecords("Rank [\n  7\n] is above 4", records).map((m) => m.id), ["aaaa000000000003"]);
    assert.deepEqual(matchRecords("Rank 7 is below 4", records), []);
    assert.deepEqual(matchRecords("x", records), []);
  });
});

describe("error-catalog match (end to end)", () => {
  let out = "";
  let envelopes: Envelope[] = [];
  const repo = "fixture/runtime";
  const cli = (args: string[], input?: string) =>
    spawnSync(process.execPath, [path.join(packageRoot(), "bin", "error-catalog.js"), "match", ...args], { cwd: out, encoding: "utf8", input: input ?? "" });

  before(async () => {
    out = tempDir("error-catalog-match-");
    const text = readFileSync(fixture("runtime", "panics.rs"), "utf8");
    const sites = (await extractFile({ path: "src/panics.rs", blob: "0".repeat(40), text })).sites.filter((s) => s.runtime !== null);
    const now = "2026-01-01T00:00:00.000Z";
    envelopes = buildEnvelopes({ repo, sha: "1".repeat(40), contextLines: 2, groups: groupSites(sites), textOf: () => text, now });
    const counts = { filesListed: 1, filesRead: 1, filesSkipped: 0, filesParsed: 1, filesReused: 0, filesWithParseErrors: 0, parseErrorFiles: [], sites: sites.length, sitesInTokenTrees: 0, sitesByKind: {}, sitesByContext: {}, sitesWithoutRecord: {}, sitesWithoutRecordByKind: {}, records: envelopes.length };
    const manifest: Manifest = { repo, sha: "1".repeat(40), parentSha: null, version: "0001-111111111111", datasetVersion: now, schemaVersion: 2, pipelineVersion: "test", configHash: "test", counts };
    await writeVersion(out, { manifest, records: jsonlParts(envelopes) }, { version: "0001-111111111111", sha: "1".repeat(40), parent: null, datasetVersion: now, records: envelopes.length, configHash: "test", pipelineVersion: "test" });
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it("prints the matching record for a pasted block, as text and as JSON", async () => {
    const block = `thread 'main' (42) panicked at src/panics.rs:111:5:\ninternal error: entered unreachable code: Autodiff should not wrap an autodiff device.\n${NOTE}\n`;
    const own = envelopes.find((e) => e.record.errorMessage === "Autodiff should not wrap an autodiff device.")!.record;

    const text = cli(["--out", out, "--repo", repo, block]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^${own.id}  Autodiff should not wrap an autodiff device\\.$`, "m"));
    assert.ok(text.stdout.includes(own.githubUrl));
    assert.ok(text.stdout.includes(`${own.filePath}:${own.lineNumber}`));

    const json = cli(["--out", out, "--repo", repo, "--json", "-"], block);
    assert.equal(json.status, 0, json.stderr);
    const parsed = JSON.parse(json.stdout) as { message: string; matches: { id: string }[] };
    assert.equal(parsed.message, "internal error: entered unreachable code: Autodiff should not wrap an autodiff device.");
    assert.deepEqual(parsed.matches.map((m) => m.id), [own.id]);

    const { dir } = await loadDataset({ out, repo });
    const byVersion = cli(["--version", dir, "--json", "Tensor rank must be at least one."]);
    assert.equal(byVersion.status, 0, byVersion.stderr);
    assert.equal((JSON.parse(byVersion.stdout) as { matches: unknown[] }).matches.length, 1);
  });

  it("exits 1 when nothing matches and 2 on bad input", () => {
    const none = cli(["--out", out, "--repo", repo, "nothing in the catalogue says this"]);
    assert.equal(none.status, 1);
    assert.match(none.stdout, /no record matches/);
    assert.equal(cli(["--out", out, "--repo", repo, "-"], "  \n").status, 2);
    const missing = cli(["--out", out, "--repo", "nobody/nothing", "x"]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /E_INPUT/);
  });
});
