/**
 * `error-catalog match`: the panic message and location inside a pasted block, paths as cargo
 * prints them, fragments, error values, ranking, versions, and one end-to-end run of the CLI on
 * datasets written to a temp dir. Expectations are written by hand.
 */
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { buildEnvelopes, groupSites } from "../pipeline/build.js";
import { loadVersions } from "../pipeline/commands/match.js";
import { extractFile } from "../pipeline/extract.js";
import { recordsExpecting } from "../pipeline/symbols/tests.js";
import { errorValue, fragmentBound, fragmentScore, matchPanic, panicLocation, panicMessage, patternLiterals, renderMatches, resolvePath, type DatasetVersion } from "../pipeline/match.js";
import { composePattern, patternSpecificity } from "../pipeline/message.js";
import { packageRoot } from "../pipeline/paths.js";
import type { CatalogRecord, Envelope, Manifest, Occurrence } from "../pipeline/schema-types.generated.js";
import type { MessagePart } from "../pipeline/types.js";
import { jsonlParts, writeVersion } from "../pipeline/write.js";
import { fixture, tempDir } from "./helpers/git.js";

const NOTE = "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace";
const W: MessagePart = { wild: true };
const L = (lit: string): MessagePart => ({ lit });

describe("panicMessage", () => {
  it("takes the message out of the default hook's block (rustc 1.87+ with a thread id)", () => {
    const block = `thread 'main' (11609) panicked at src/lib.rs:39:5:\nTensor rank must be at least one.\n${NOTE}\n`;
    assert.equal(panicMessage(block), "Tensor rank must be at least one.");
  });

  it("keeps every line of a multi-line message and drops a backtrace", () => {
    const block = `thread 'tests::shape' panicked at crates/a/src/x.rs:3:9:\nassertion \`left == right\` failed\n  left: 1\n right: 2\nstack backtrace:\n   0: rust_begin_unwind\n`;
    assert.equal(panicMessage(block), "assertion `left == right` failed\n  left: 1\n right: 2");
  });

  it("keeps a message's own final line break when the note follows it", () => {
    assert.equal(panicMessage(`thread 'main' panicked at a.rs:1:1:\nends here\n\n${NOTE}\n`), "ends here\n");
    assert.equal(panicMessage(`thread 'main' panicked at a.rs:1:1:\nends here\n`), "ends here");
  });

  it("reads the pre-1.73 form, CRLF, a header without the thread, and text around the block", () => {
    assert.equal(panicMessage("thread 'main' panicked at 'bad value 3', src/main.rs:2:5\r\nnote: run with `RUST_BACKTRACE=1`\r\n"), "bad value 3");
    assert.equal(panicMessage(`running 1 test\n---- t stdout ----\nthread 't' panicked at a.rs:1:1:\nboom here\n${NOTE}\n\nfailures:\n`), "boom here");
    assert.equal(panicMessage("panicked at src/x.rs:9:1:\nboom"), "boom");
    assert.equal(panicMessage("just the message\n"), "just the message");
  });
});

describe("panicLocation", () => {
  it("reads the path, line and column of the first header", () => {
    assert.deepEqual(panicLocation(`thread 'main' (7) panicked at crates/burn-tensor/src/tensor/api/base.rs:120:9:\nm\n`), { path: "crates/burn-tensor/src/tensor/api/base.rs", line: 120, column: 9 });
    assert.deepEqual(panicLocation("thread 'main' panicked at 'bad, really', src/main.rs:2:5\n"), { path: "src/main.rs", line: 2, column: 5 });
    assert.deepEqual(panicLocation("thread 'main' panicked at C:\\Users\\me\\burn\\src\\lib.rs:3:4:\nm"), { path: "C:\\Users\\me\\burn\\src\\lib.rs", line: 3, column: 4 });
    assert.equal(panicLocation("Tensor rank must be at least one."), null);
  });
});

describe("resolvePath", () => {
  const files = ["crates/burn-tensor/src/tensor/api/check.rs", "crates/burn-tensor/src/lib.rs", "crates/burn-core/src/lib.rs", "crates/burn-core/src/module/param.rs", "crates/burn-ndarray/src/tensor/api/check.rs"];

  it("maps repository-relative, absolute and git checkout paths to the file they end with", () => {
    assert.deepEqual(resolvePath("crates/burn-core/src/module/param.rs", files), ["crates/burn-core/src/module/param.rs"]);
    assert.deepEqual(resolvePath("/home/me/burn/crates/burn-tensor/src/lib.rs", files), ["crates/burn-tensor/src/lib.rs"]);
    assert.deepEqual(resolvePath("/home/me/.cargo/git/checkouts/burn-178c6829a5e44c7d/2c06be3/crates/burn-core/src/lib.rs", files), ["crates/burn-core/src/lib.rs"]);
    assert.deepEqual(resolvePath("C:\\src\\burn\\crates\\burn-core\\src\\lib.rs", files), ["crates/burn-core/src/lib.rs"]);
  });

  it("reads a registry crate's folder `name-x.y.z` as the crate's folder", () => {
    const registry = "/home/me/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/burn-tensor-0.21.0/src/tensor/api/check.rs";
    assert.deepEqual(resolvePath(registry, files), ["crates/burn-tensor/src/tensor/api/check.rs"]);
    assert.deepEqual(resolvePath("/r/burn-core-0.22.0-pre.2/src/lib.rs", files), ["crates/burn-core/src/lib.rs"]);
  });

  it("gives every file sharing the longest suffix, and none when no file has the name", () => {
    assert.deepEqual(resolvePath("src/tensor/api/check.rs", files), ["crates/burn-ndarray/src/tensor/api/check.rs", "crates/burn-tensor/src/tensor/api/check.rs"]);
    assert.deepEqual(resolvePath("/elsewhere/src/lib.rs", files), ["crates/burn-core/src/lib.rs", "crates/burn-tensor/src/lib.rs"]);
    assert.deepEqual(resolvePath("/rustc/59807616e/library/core/src/option.rs", files), []);
  });
});

describe("patternLiterals", () => {
  it("counts the literal characters of composed patterns as patternSpecificity counts their parts", () => {
    const cases: MessagePart[][] = [
      [L("Autodiff should not wrap an autodiff device.")],
      [L("bad "), W, L(" and (x) [y] {z} 1+1=2? a|b ^$ \\ / é 🦀")],
      [L("assertion failed: "), L("v"), { gap: true }, L("."), { gap: true }, L("len"), { gap: true }, L("()")],
      [W, L("tab\tnl\ncr\r ctrl\u0001 sep\u2028"), W, L("x10"), W, L("0")],
      [L("could not open"), { optional: [L(": "), W] }],
    ];
    for (const parts of cases) assert.equal(patternLiterals(composePattern(parts)), patternSpecificity(parts), composePattern(parts));
  });

  it("counts a hand-checked pattern", () => {
    // `Rank ` (5) + ` is above ` (10) + `.` (1): the lookaheads, groups, backreferences and holes count nothing.
    assert.equal(patternLiterals("Rank (?=([\\s\\S]*? is above ))\\1[\\s\\S]*?\\."), 16);
  });
});

describe("fragmentScore", () => {
  const parts = [L("Index "), W, L(" out of bounds for dim "), W];

  it("counts the characters of the text that are literal text", () => {
    assert.equal(fragmentScore("out of bounds", parts), 13);
    // `Index ` (6) and ` out of bounds` (14) are literal, `5` falls in the hole.
    assert.equal(fragmentScore("Index 5 out of bounds", parts), 20);
    assert.equal(fragmentScore("bounds for dim 3 and more", parts), 15);
  });

  it("lets a hole print any part of the text, and gives -1 when no message the parts print holds the text", () => {
    // The first hole may print `… Index`: then ` out of bounds` (14) is literal.
    assert.equal(fragmentScore("Index out of bounds", parts), 14);
    // The last hole may print anything: 0 literal characters, but a part of a message.
    assert.equal(fragmentScore("no such words", parts), 0);
    assert.equal(fragmentScore("out of range", [L("Value out of range for u8")]), 12);
    assert.equal(fragmentScore("out of rage", [L("Value out of range for u8")]), -1);
  });

  it("counts nothing for std's words and the optional group", () => {
    const unreachable = [L("internal error: entered unreachable code: Autodiff should not wrap")];
    assert.equal(fragmentScore("internal error: entered unreachable code", unreachable, ["internal error: entered unreachable code: "]), 0);
    assert.equal(fragmentScore("code: Autodiff", unreachable, ["internal error: entered unreachable code: "]), 8);
    assert.equal(fragmentScore("open: x", [L("could not open"), { optional: [L(": "), W] }]), 4);
  });

  it("lets any white space stand in a gap", () => {
    assert.equal(fragmentScore("x  >\n0", [L("x"), { gap: true }, L(">"), { gap: true }, L("0")]), 3);
  });

  it("carries a count on through a gap and a hole that follow each other, and keeps the best of two ways to a point", () => {
    const gapThenHole: MessagePart[] = [L("a"), { gap: true }, W, L("b")];
    // `a` (1), nothing or ` ` or `x` for the gap and the hole, then `b` (1).
    assert.equal(fragmentScore("ab", gapThenHole), 2);
    assert.equal(fragmentScore("a b", gapThenHole), 2);
    assert.equal(fragmentScore("a xb", gapThenHole), 2);
    // After `ab`, the hole of `ab{}b` is reached from the start (0) and after `ab` (2): the text's last `b` counts on 2.
    assert.equal(fragmentScore("abb", [L("ab"), W, L("b")]), 3);
    // Nothing but the hole can read `x`; after it only `b` is literal. The hole may print all of `ba`.
    assert.equal(fragmentScore("xb", [L("a"), W, L("b")]), 1);
    assert.equal(fragmentScore("ba", [L("a"), W, L("b")]), 0);
  });
});

describe("fragmentBound", () => {
  it("counts the text's characters that the literals count, at most two outside runs of three the literals hold for each stretch between holes", () => {
    const parts = [L("Index "), W, L(" out of bounds for dim "), W];
    // All but the `5` are characters of the literals (fragmentScore gives 20 as well).
    assert.equal(fragmentBound("Index 5 out of bounds", parts), 20);
    // `out of ra` stands in the literal; `g` and `e` do not, but as one run of two they might (fragmentScore: -1).
    assert.equal(fragmentBound("out of rage", [L("Value out of range for u8")]), 11);
    assert.equal(fragmentBound("zq7", parts), 0);
    // No three of `gear` stand in a row in the literal, which has no hole: one run, of at most two.
    assert.equal(fragmentBound("gear", [L("Value out of range for u8")]), 2);
    // With two holes, three runs: `ge`, `ar` and `s` may each stand alone.
    assert.equal(fragmentBound("gears", [L("ge"), W, L("ar"), W, L("s")]), 5);
    // Two holes around one stretch leave one run: of `a`, `b`, `c` and `d`, at most two (fragmentScore: 0, as a
    // run inside the text would have to read all of `abcd`; the holes print it all).
    assert.equal(fragmentBound("a-b-c-d", [W, L("abcd"), W]), 2);
    assert.equal(fragmentScore("a-b-c-d", [W, L("abcd"), W]), 0);
    // std's words and the optional group count nothing.
    assert.equal(fragmentBound("code: x", [L("code: "), { optional: [L("xyz")] }], ["code: "]), 0);
  });
});

describe("errorValue", () => {
  it("reads the variant or the string of an unwrap()'s Err value", () => {
    assert.deepEqual(errorValue("called `Result::unwrap()` on an `Err` value: TypeMismatch { expected: F32, found: I64 }"), { variant: "TypeMismatch", text: null });
    assert.deepEqual(errorValue("called `Result::unwrap()` on an `Err` value: Io(Os { code: 2, kind: NotFound })"), { variant: "Io", text: null });
    assert.deepEqual(errorValue("called `Result::unwrap()` on an `Err` value: Missing"), { variant: "Missing", text: null });
    assert.deepEqual(errorValue('called `Result::unwrap()` on an `Err` value: "bad rank 3 \\"x\\"\\nnext \\u{e9}"'), { variant: null, text: 'bad rank 3 "x"\nnext é' });
    assert.equal(errorValue("called `Option::unwrap()` on a `None` value"), null);
    assert.equal(errorValue("TypeMismatch { expected: F32 }"), null);
  });
});

/** An envelope with what matching reads (and a field of the explanation, to see it come through). */
function envelope(id: string, errorMessage: string, parts: MessagePart[], sites: [string, number][], extra: Partial<CatalogRecord> = {}): Envelope {
  const occurrences: Occurrence[] = sites.map(([filePath, lineNumber]) => ({ filePath, lineNumber, githubUrl: `https://example.com/${filePath}#L${lineNumber}`, kind: "panic", context: "library" }));
  const record = { id, errorMessage, messagePattern: composePattern(parts), filePath: sites[0]![0], lineNumber: sites[0]![1], githubUrl: `https://example.com/${id}`, documentation: `Docs of ${id}.`, errorClass: null, ...extra } as CatalogRecord;
  return { record, occurrences, datasetVersion: "2026-01-01T00:00:00.000Z" };
}

const ids = (r: { matches: readonly { id: string }[] }) => r.matches.map((m) => m.id);

describe("matchPanic", () => {
  const tensor = "crates/burn-tensor/src/tensor/api/base.rs";
  const envelopes = [
    envelope("a000000000000001", "Index out of bounds", [L("Index out of bounds")], [[tensor, 40]]),
    envelope("a000000000000002", "Index out of bounds", [L("internal error: entered unreachable code: Index out of bounds")], [[tensor, 52]]),
    envelope("a000000000000003", "Rank {} is above {}", [L("Rank "), W, L(" is above "), W], [[tensor, 60], ["crates/burn-core/src/lib.rs", 9]]),
    envelope("a000000000000004", "explicit panic", [L("explicit panic")], [[tensor, 70]]),
    envelope("a000000000000005", "{}", [W], [[tensor, 80]]),
    envelope("a000000000000006", "Index out of bounds for dim {}", [L("Index out of bounds for dim "), W], [["crates/burn-core/src/lib.rs", 20]]),
    { ...envelope("a000000000000007", "broken", [L("x")], [[tensor, 90]]), record: { ...envelope("a000000000000007", "broken", [L("x")], [[tensor, 90]]).record, messagePattern: "(" } },
  ];
  const head: DatasetVersion = { version: "0002-222222222222", envelopes };
  const block = (path: string, line: number, message: string) => `thread 'main' (3) panicked at ${path}:${line}:13:\n${message}\n${NOTE}\n`;

  it("matches the whole message: a record never matches a longer text, nor the same words in std's frame", () => {
    // The whole match first; records that print the text inside a longer one are fragments.
    assert.deepEqual(matchPanic("Index out of bounds", [head]).matches.map((m) => [m.id, m.how]), [["a000000000000001", "whole"], ["a000000000000006", "fragment"], ["a000000000000002", "fragment"]]);
    assert.deepEqual(ids(matchPanic("internal error: entered unreachable code: Index out of bounds", [head])), ["a000000000000002"]);
    assert.equal(matchPanic("Index out of bounds for dim 3", [head]).matches[0]!.id, "a000000000000006");
    assert.equal(matchPanic("Index out of bounds for dim 3", [head]).matches[0]!.how, "whole");
  });

  it("lists fragments after whole matches, most of the text first, then the record with least around it", () => {
    const found = matchPanic("out of bounds", [head]);
    assert.deepEqual(
      found.matches.map((m) => [m.id, m.how, m.score]),
      [
        ["a000000000000001", "fragment", 13],
        ["a000000000000006", "fragment", 13],
        ["a000000000000002", "fragment", 13],
      ],
    );
    assert.deepEqual(matchPanic("Index out of bounds for", [head]).matches.map((m) => [m.id, m.score]), [["a000000000000006", 23]]);
    // std's words alone are no fragment of a record: they say nothing of its site.
    assert.deepEqual(ids(matchPanic("internal error: entered unreachable code", [head])), []);
  });

  it("puts the site at the panic's location first, and finds a record with no text of its own only there", () => {
    const found = matchPanic(block(`/home/me/burn/${tensor}`, 60, "Rank 5 is above 4"), [head]);
    assert.deepEqual(found.location, { path: `/home/me/burn/${tensor}`, line: 60, column: 13, files: [tensor], versions: ["0002-222222222222"] });
    assert.deepEqual(found.matches.map((m) => [m.id, m.how, m.atLocation, m.occurrence.lineNumber]), [["a000000000000003", "whole", true, 60]]);
    // `{}` matches every message: only its place finds it, ranked as a whole match there.
    assert.deepEqual(ids(matchPanic("Rank 5 is above 4", [head])), ["a000000000000003"]);
    const anything = matchPanic(block(tensor, 80, "whatever the value said"), [head]);
    assert.deepEqual(anything.matches.map((m) => [m.id, m.how, m.atLocation]), [["a000000000000005", "whole", true]]);
    // `{}.{}` has a literal `.` and nothing else: it too is found only at its place.
    const dotted = envelope("a000000000000009", "{}.{}", [W, L("."), W], [[tensor, 95]]);
    const withDotted = [{ ...head, envelopes: [...envelopes, dotted] }];
    assert.deepEqual(ids(matchPanic("torch.Tensor", withDotted)), []);
    assert.deepEqual(matchPanic(block(tensor, 95, "torch.Tensor"), withDotted).matches.map((m) => [m.id, m.how, m.atLocation]), [["a000000000000009", "whole", true]]);
    // Two `explicit panic` sites would both match; the location picks one first.
    const other = envelope("a000000000000008", "explicit panic", [L("explicit panic")], [["crates/burn-core/src/lib.rs", 30]]);
    const both = matchPanic(block(`/r/burn-core-0.21.0/src/lib.rs`, 30, "explicit panic"), [{ ...head, envelopes: [...envelopes, other] }]);
    assert.deepEqual(both.matches.map((m) => [m.id, m.atLocation]), [["a000000000000008", true], ["a000000000000004", false]]);
  });

  it("lists a site at the location whose text does not match last", () => {
    const found = matchPanic(block(tensor, 40, "Rank 5 is above 4"), [head]);
    assert.deepEqual(found.matches.map((m) => [m.id, m.how, m.atLocation]), [["a000000000000003", "whole", false], ["a000000000000001", "location", true]]);
  });

  it("says which versions have a site at the location, and takes a record only an older version has from it", () => {
    const old: DatasetVersion = { version: "0001-111111111111", envelopes: [envelope("a0000000000000aa", "Old rank {} check", [L("Old rank "), W, L(" check")], [[tensor, 61]]), envelope("a000000000000003", "Rank {} is above {}", [L("Rank "), W, L(" is above "), W], [[tensor, 58]])] };
    const atOld = matchPanic(block(`/r/burn-tensor-0.21.0/src/tensor/api/base.rs`, 61, "Old rank 3 check"), [old, head]);
    assert.deepEqual(atOld.location?.versions, ["0001-111111111111"]);
    assert.deepEqual(atOld.matches.map((m) => [m.id, m.how, m.atLocation, m.version]), [["a0000000000000aa", "whole", true, "0001-111111111111"]]);
    // The same record at another line in the older version: found at the location, with the newest version's occurrence.
    const moved = matchPanic(block(tensor, 58, "Rank 5 is above 4"), [old, head]);
    assert.deepEqual(moved.location?.versions, ["0001-111111111111"]);
    assert.deepEqual(moved.matches.map((m) => [m.id, m.atLocation, m.version, m.occurrence.lineNumber]), [["a000000000000003", true, "0002-222222222222", 60]]);
    assert.match(renderMatches(atOld), /a site there in 0001-111111111111/);
    assert.match(renderMatches(atOld), /\(in 0001-111111111111\)/);
  });

  it("finds the record an unwrap()'s error value names: its error class, its message, or its pattern for a string", () => {
    const variant = envelope("b000000000000001", "type mismatch", [L("type mismatch")], [["crates/burn-store/src/error.rs", 12]], { errorClass: "StoreError::TypeMismatch" as unknown as null });
    const named = envelope("b000000000000002", "TypeMismatch: the stored type differs", [L("the stored type differs")], [["crates/burn-store/src/error.rs", 20]]);
    const text = envelope("b000000000000003", "bad rank {}", [L("bad rank "), W], [["crates/burn-store/src/error.rs", 30]]);
    const dataset = [{ version: "0001-111111111111", envelopes: [variant, named, text, ...envelopes] }];
    const found = matchPanic("called `Result::unwrap()` on an `Err` value: TypeMismatch { expected: F32, found: I64 }", dataset);
    assert.deepEqual(found.matches.map((m) => [m.id, m.how]), [["b000000000000001", "error"], ["b000000000000002", "error"]]);
    assert.deepEqual(ids(matchPanic('called `Result::unwrap()` on an `Err` value: "bad rank 3"', dataset)), ["b000000000000003"]);
    assert.deepEqual(ids(matchPanic("called `Result::unwrap()` on an `Err` value: TypeMismatchExtra", dataset)), []);
  });

  it("prints how each record matched, and cuts a long list", () => {
    const many = Array.from({ length: 25 }, (_, i) => envelope(`c0000000000000${String(i).padStart(2, "0")}`, "explicit panic", [L("explicit panic")], [[tensor, 100 + i]]));
    const text = renderMatches(matchPanic("explicit panic", [{ version: "v", envelopes: many }]));
    assert.match(text, /^25 records match, best first:$/m);
    assert.match(text, /^  matched: the whole message$/m);
    assert.match(text, /^… and 5 more \(--json lists them all\)$/m);
    assert.equal(renderMatches(matchPanic("nothing like it", [head])), "no record matches this message\n");
    // Fragments are listed when nothing matched better, and counted otherwise.
    assert.match(renderMatches(matchPanic("out of bounds", [head])), /^3 records match, best first:$/m);
    const counted = renderMatches(matchPanic("Index out of bounds", [head]));
    assert.match(counted, /^1 record matches, best first:$/m);
    assert.match(counted, /^2 more records print this text inside a longer message \(--json lists them\)$/m);
    assert.doesNotMatch(counted, /a000000000000006/);
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
    // Two versions: the second has one record fewer (the first one's site at line 40 is gone).
    const older = envelopes;
    const newer = envelopes.filter((e) => e.record.errorMessage !== "Tensor rank must be at least one.");
    for (const [n, list] of [[1, older], [2, newer]] as const) {
      const sha = String(n).repeat(40);
      const version = `000${n}-${sha.slice(0, 12)}`;
      const manifest: Manifest = { repo, sha, parentSha: null, version, datasetVersion: now, schemaVersion: 2, pipelineVersion: "test", configHash: "test", counts: { ...counts, records: list.length } };
      await writeVersion(out, { manifest, records: jsonlParts(list) }, { version, sha, parent: n === 1 ? null : "0001-111111111111", datasetVersion: now, records: list.length, configHash: "test", pipelineVersion: "test" });
    }
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it("prints the matching record for a pasted block, as text and as JSON with the whole record", () => {
    const own = envelopes.find((e) => e.record.errorMessage === "Autodiff should not wrap an autodiff device.")!;
    const line = own.occurrences[0]!.lineNumber;
    const block = `thread 'main' (42) panicked at /home/me/project/src/panics.rs:${line}:33:\ninternal error: entered unreachable code: Autodiff should not wrap an autodiff device.\n${NOTE}\n`;

    const text = cli(["--out", out, "--repo", repo, block]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^${own.record.id}  Autodiff should not wrap an autodiff device\\.$`, "m"));
    assert.match(text.stdout, /^  matched: the whole message, a site at the panic's location$/m);
    assert.match(text.stdout, new RegExp(`→ src/panics\\.rs; a site there in 0001-111111111111, 0002-222222222222$`, "m"));
    assert.ok(text.stdout.includes(`src/panics.rs:${line}`));

    const json = cli(["--out", out, "--repo", repo, "--json", "-"], block);
    assert.equal(json.status, 0, json.stderr);
    const parsed = JSON.parse(json.stdout) as { message: string; version: string; location: { files: string[]; versions: string[] }; matches: { id: string; how: string; atLocation: boolean; record: CatalogRecord; occurrence: Occurrence }[] };
    assert.equal(parsed.message, "internal error: entered unreachable code: Autodiff should not wrap an autodiff device.");
    assert.equal(parsed.version, "0002-222222222222");
    assert.deepEqual(parsed.location.versions, ["0001-111111111111", "0002-222222222222"]);
    assert.deepEqual(parsed.matches.map((m) => [m.id, m.how, m.atLocation]), [[own.record.id, "whole", true]]);
    assert.deepEqual(parsed.matches[0]!.record, own.record);
    assert.deepEqual(parsed.matches[0]!.occurrence, own.occurrences[0]);
  });

  it("finds a record only the older version has at the location, and matches a named version or folder", async () => {
    const gone = envelopes.find((e) => e.record.errorMessage === "Tensor rank must be at least one.")!;
    const block = `thread 'main' panicked at src/panics.rs:${gone.occurrences[0]!.lineNumber}:5:\nTensor rank must be at least one.\n`;
    const json = JSON.parse(cli(["--out", out, "--repo", repo, "--json", block]).stdout) as { location: { versions: string[] }; matches: { id: string; version: string }[] };
    assert.deepEqual(json.location.versions, ["0001-111111111111"]);
    assert.deepEqual(json.matches.map((m) => [m.id, m.version]), [[gone.record.id, "0001-111111111111"]]);

    const byName = cli(["--out", out, "--repo", repo, "--version", "0001-111111111111", "--json", "Tensor rank must be at least one."]);
    assert.equal(byName.status, 0, byName.stderr);
    assert.deepEqual((JSON.parse(byName.stdout) as { matches: { id: string }[] }).matches.map((m) => m.id), [gone.record.id]);
    const { versions, selected } = await loadVersions({ out, repo, version: "0002-222222222222" }, true);
    const dir = path.join(out, "fixture", "runtime", selected);
    const byFolder = cli(["--version", dir, "--json", block]);
    assert.equal(byFolder.status, 0, byFolder.stderr);
    assert.deepEqual(versions.map((v) => v.version), ["0001-111111111111", "0002-222222222222"]);
    assert.deepEqual((JSON.parse(byFolder.stdout) as { matches: { id: string }[] }).matches.map((m) => m.id), [gone.record.id]);
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

describe("recordsExpecting", () => {
  const at = "crates/x/src/lib.rs";
  const envelopes = [
    envelope("b000000000000001", "Rank {} is above {}", [L("Rank "), W, L(" is above "), W], [[at, 10]], { errorType: "panic" }),
    envelope("b000000000000002", "shape mismatch: {}", [L("shape mismatch: "), W], [[at, 20]], { errorType: "panic" }),
    // A returned error with the same text is no panic a test can expect.
    envelope("b000000000000003", "shape mismatch: {}", [L("shape mismatch: "), W], [[at, 30]], { errorType: "error" }),
    envelope("b000000000000004", "{} is above {}", [W, L(" is above "), W], [[at, 40]], { errorType: "panic" }),
  ];
  const version: DatasetVersion = { version: "0001-111111111111", envelopes };

  it("finds the panics whose pattern prints the text whole or around it, of those writing one of its words", () => {
    assert.deepEqual(recordsExpecting("shape mismatch", version).map((m) => [m.id, m.how]), [["b000000000000002", "fragment"]]);
    assert.deepEqual(recordsExpecting("Rank 3 is above 2", version).map((m) => [m.id, m.how]), [["b000000000000001", "whole"], ["b000000000000004", "whole"]]);
    // `above` is written by both, `Rank` by one; the hole of the other prints `Rank 3`.
    assert.deepEqual(recordsExpecting("is above", version).map((m) => m.id), ["b000000000000004", "b000000000000001"]);
    assert.deepEqual(recordsExpecting("", version), []);
    assert.deepEqual(recordsExpecting("nothing like it", version), []);
  });
});
