/**
 * The proof against the real runtime: `fixtures/runtime/panics.rs` (no crates) is compiled once
 * with plain rustc (edition 2021, debug, so `debug_assert!` fires), each case is run as a child
 * process with the default panic hook, and what it really prints is checked against the records
 * that extraction + build make from the program's own source:
 * - the case's own record (a site in the case's function, or in a `macro_rules!` it invokes)
 *   matches the printed message, and no other record does;
 * - a case whose site has no record of its own (`unreachable!()`, `assert_eq!(a, b)`) is matched
 *   by no record at all;
 * - for `assert!(cond)` without a message, the displayed errorMessage equals what rustc printed;
 * - `match` finds the case's own record from the whole stderr block, header and note included.
 * Where rustc is missing the suite says so and skips.
 */
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { buildEnvelopes, groupSites } from "../pipeline/build.js";
import { extractFile } from "../pipeline/extract.js";
import { matchRecords, panicMessage } from "../pipeline/match.js";
import type { Envelope } from "../pipeline/schema-types.generated.js";
import { errorTypeOf } from "../pipeline/sources/returned.js";
import type { Site } from "../pipeline/types.js";
import { fixture } from "./helpers/git.js";
import { compileCases, findRustc } from "./helpers/rustc.js";

const SOURCE = fixture("runtime", "panics.rs");
const FILE = "src/panics.rs";

/** What one case printed: the panic's line and the message between the header and the note. */
interface Printed {
  readonly stderr: string;
  readonly line: number;
  readonly message: string;
}

/** The 1-based line span of `fn <name>` or `macro_rules! <name>`: from its first line to the next `}` in column 1. */
function spanOf(lines: readonly string[], head: RegExp): [number, number] | null {
  const start = lines.findIndex((l) => head.test(l));
  if (start < 0) return null;
  const end = lines.findIndex((l, i) => i > start && l === "}");
  return [start + 1, end + 1];
}

const rustc = findRustc();

describe("runtime proof (rustc)", { timeout: 120_000 }, () => {
  const text = readFileSync(SOURCE, "utf8");
  const lines = text.split("\n");
  let dir = "";
  let binary = "";
  let cases: string[] = [];
  let sites: Site[] = [];
  let envelopes: Envelope[] = [];

  before(async () => {
    if (!rustc.ok) return;
    ({ dir, binary, cases } = compileCases(SOURCE, "panics", ["-C", "debug-assertions=on"]));
    // Note: the proof of panics; the errors the program makes in place (`Err("boom".into())`) are returned.test.ts's.
    sites = [...(await extractFile({ path: FILE, blob: "0".repeat(40), text })).sites].filter((s) => errorTypeOf(s.kind) === "panic");
    envelopes = buildEnvelopes({ repo: "fixture/runtime", sha: "0".repeat(40), contextLines: 2, groups: groupSites(sites.filter((s) => s.runtime !== null)), textOf: () => text, now: "2026-01-01T00:00:00.000Z" });
  });
  after(() => {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it("compiles the program and lists its cases", (t) => {
    if (!rustc.ok) return t.skip(`rustc not found: ${rustc.why}`);
    t.diagnostic(rustc.version);
    assert.ok(cases.length >= 50, `only ${cases.length} cases`);
    assert.ok(envelopes.length >= 30, `only ${envelopes.length} records`);
  });

  /** Runs one case; fails unless it panicked with the default hook's header. */
  function runCase(name: string): Printed {
    const child = spawnSync(binary, [name], { encoding: "utf8", env: { ...process.env, RUST_BACKTRACE: "0" } });
    assert.equal(child.status, 101, `${name} should panic (exit 101), got ${child.status}: ${child.stderr}`);
    const header = /^thread 'main'(?: \(\d+\))? panicked at .*panics\.rs:(\d+):(\d+):$/m.exec(child.stderr);
    assert.ok(header, `no panic header in: ${child.stderr}`);
    const after = child.stderr.slice(header.index + header[0].length + 1);
    const note = after.lastIndexOf("\nnote: run with `RUST_BACKTRACE=1`");
    return { stderr: child.stderr, line: Number(header[1]), message: note < 0 ? after.replace(/\n$/, "") : after.slice(0, note) };
  }

  it("matches every printed message with its own record and no other", (t) => {
    if (!rustc.ok) return t.skip(`rustc not found: ${rustc.why}`);
    const macroNames = [...text.matchAll(/^macro_rules! (\w+)/gm)].map((m) => m[1]!);
    const problems: string[] = [];
    let checked = 0;
    for (const name of cases) {
      const printed = runCase(name);
      const fn = spanOf(lines, new RegExp(`^fn ${name}\\(\\)`));
      assert.ok(fn, `fn ${name} not found in the source`);
      const body = lines.slice(fn[0] - 1, fn[1]).join("\n");
      const spans = [fn, ...macroNames.filter((m) => new RegExp(`\\b${m}!`).test(body)).map((m) => spanOf(lines, new RegExp(`^macro_rules! ${m} `))!)];
      const own = sites.filter((s) => spans.some(([a, b]) => s.line >= a && s.line <= b));
      if (own.length !== 1) {
        problems.push(`${name}: expected one site in its function (and macros), found ${own.length}`);
        continue;
      }
      const site = own[0]!;
      const matching = envelopes.filter((e) => new RegExp(e.record.messagePattern).test(printed.message));
      const ownRecords = envelopes.filter((e) => e.occurrences.some((o) => o.lineNumber === site.line));
      if (site.runtime === null) {
        if (ownRecords.length > 0) problems.push(`${name}: skipped site (${site.skip}) has a record`);
        if (matching.length > 0) problems.push(`${name}: ${JSON.stringify(printed.message)} has no record of its own but matches ${matching.map((e) => e.record.errorMessage).join(" | ")}`);
      } else {
        if (ownRecords.length !== 1) problems.push(`${name}: ${ownRecords.length} records for the site at line ${site.line}`);
        const ownRecord = ownRecords[0];
        if (ownRecord && !new RegExp(ownRecord.record.messagePattern).test(printed.message)) {
          problems.push(`${name}: own pattern /${ownRecord.record.messagePattern}/ does not match ${JSON.stringify(printed.message)}`);
        }
        const unrelated = matching.filter((e) => e !== ownRecord);
        if (unrelated.length > 0) problems.push(`${name}: ${JSON.stringify(printed.message)} also matches ${unrelated.map((e) => `/${e.record.messagePattern}/`).join(", ")}`);
        // The whole stderr block, as a user pastes it, finds the same record first.
        const found = matchRecords(printed.stderr, envelopes.map((e) => e.record));
        if (found[0]?.id !== ownRecord?.record.id) problems.push(`${name}: match on the stderr block gave ${found.map((f) => f.id).join(", ") || "nothing"}`);
        if (panicMessage(printed.stderr) !== printed.message) problems.push(`${name}: panicMessage gave ${JSON.stringify(panicMessage(printed.stderr))}`);
        // assert!(cond) without a message: the displayed text is exactly rustc's.
        if ((site.kind === "assert" || site.kind === "debug-assert") && site.message?.startsWith("assertion failed: ") && site.message !== printed.message) {
          problems.push(`${name}: errorMessage ${JSON.stringify(site.message)} but rustc printed ${JSON.stringify(printed.message)}`);
        }
      }
      checked++;
    }
    assert.deepEqual(problems, []);
    assert.equal(checked, cases.length);
  });

  it("catalogues the unreachable! inside a macro_rules! body with std's words around it", (t) => {
    if (!rustc.ok) return t.skip(`rustc not found: ${rustc.why}`);
    const record = envelopes.find((e) => e.record.errorMessage === "Autodiff should not wrap an autodiff device.");
    assert.ok(record, "no record for the macro_rules! site");
    assert.equal(record.occurrences[0]!.kind, "unreachable");
    assert.match("internal error: entered unreachable code: Autodiff should not wrap an autodiff device.", new RegExp(record.record.messagePattern));
    assert.doesNotMatch("Autodiff should not wrap an autodiff device.", new RegExp(record.record.messagePattern));
  });
});
