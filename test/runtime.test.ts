/**
 * The proof against the real runtime: `fixtures/runtime/panics.rs` (no crates) is compiled once
 * with plain rustc (edition 2021, debug, so `debug_assert!` fires), each case is run as a child
 * process with the default panic hook, and what it really prints is checked against the records
 * that extraction + build make from the program's own source:
 * - the case's own record (a site in the case's function, or in a `macro_rules!` it invokes)
 *   matches the whole printed message with its pattern anchored at both ends, `^(?:p)$`, and no
 *   other record's anchored pattern does;
 * - a case whose site has no record of its own text (`unreachable!()`, `assert_eq!(a, b)`,
 *   `panic!("{}", e)`) is matched by no record, and the text its rule says it prints (`place`)
 *   matches the whole printed message;
 * - for `assert!(cond)` without a message, the displayed errorMessage equals what rustc printed;
 * - `matchPanic` finds the case's own record first from the whole stderr block, as a whole match
 *   at the panic's location;
 * - every kind has cases with and without a record of their own text.
 * Where rustc is missing the suite says so and skips.
 */
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { buildEnvelopes, groupSites } from "../pipeline/build.js";
import { extractFile } from "../pipeline/extract.js";
import { matchPanic, panicMessage } from "../pipeline/match.js";
import { anchored, composePattern } from "../pipeline/message.js";
import { RULES } from "../pipeline/rules/index.js";
import type { RuntimeMessage } from "../pipeline/rules/rule.js";
import type { Envelope } from "../pipeline/schema-types.generated.js";
import { readDelimited, skipTrivia, splitArgs } from "../pipeline/tokens.js";
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

/** What the site's rule says of the call at the site, read from the source again (for `place`, which sites do not carry). */
function describeSite(text: string, site: Site): RuntimeMessage {
  const rule = RULES.find((r) => r.id === site.kind)!;
  const lineStart = text.split("\n").slice(0, site.line - 1).reduce((n, l) => n + l.length + 1, 0);
  let i = skipTrivia(text, lineStart + site.column - 1 + rule.name.length);
  if (rule.syntax === "macro") {
    assert.equal(text[i], "!", `${site.kind} at line ${site.line}`);
    i = skipTrivia(text, i + 1);
  }
  const call = readDelimited(text, i);
  assert.ok(call, `no call at line ${site.line}`);
  return rule.describe(splitArgs(call.tokens));
}

const rustc = findRustc();

describe("runtime proof (rustc)", { timeout: 180_000 }, () => {
  const text = readFileSync(SOURCE, "utf8");
  const lines = text.split("\n");
  let dir = "";
  let binary = "";
  let cases: string[] = [];
  let sites: Site[] = [];
  let envelopes: Envelope[] = [];
  /** The kinds of the sites of the cases run, with a record of their own text and without. */
  const kinds = { own: new Set<string>(), place: new Set<string>() };

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
    assert.ok(cases.length >= 120, `only ${cases.length} cases`);
    assert.ok(envelopes.length >= 90, `only ${envelopes.length} records`);
  });

  /** Runs one case; fails unless it panicked with the default hook's header. */
  function runCase(name: string): Printed {
    const child = spawnSync(binary, [name], { encoding: "utf8", env: { ...process.env, RUST_BACKTRACE: "0" } });
    assert.equal(child.status, 101, `${name} should panic (exit 101), got ${child.status}: ${child.stderr}`);
    const header = /^thread 'main'(?: \(\d+\))? panicked at .*panics\.rs:(\d+):(\d+):$/m.exec(child.stderr);
    assert.ok(header, `no panic header in: ${child.stderr}`);
    const after = child.stderr.slice(header.index + header[0].length + 1);
    // The hook prints the message, a line break, then the note.
    const note = after.lastIndexOf("\nnote: run with `RUST_BACKTRACE=1`");
    assert.ok(note >= 0, `no note after the message in: ${child.stderr}`);
    return { stderr: child.stderr, line: Number(header[1]), message: after.slice(0, note) };
  }

  it("matches every printed message as a whole with its own record and no other", (t) => {
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
      const matching = envelopes.filter((e) => anchored(e.record.messagePattern).test(printed.message));
      const ownRecords = envelopes.filter((e) => e.occurrences.some((o) => o.lineNumber === site.line));
      const found = matchPanic(printed.stderr, [{ version: "0001-000000000000", envelopes }]);
      if (panicMessage(printed.stderr) !== printed.message) problems.push(`${name}: panicMessage gave ${JSON.stringify(panicMessage(printed.stderr))}`);
      if (site.runtime === null) {
        kinds.place.add(site.kind);
        if (ownRecords.length > 0) problems.push(`${name}: skipped site (${site.skip}) has a record`);
        if (matching.length > 0) problems.push(`${name}: ${JSON.stringify(printed.message)} has no record of its own but matches ${matching.map((e) => e.record.errorMessage).join(" | ")}`);
        if (found.matches.length > 0) problems.push(`${name}: match on the stderr block gave ${found.matches.map((m) => m.id).join(", ")}`);
        // What the site prints without text of its own, for a record keyed by its place.
        const described = describeSite(text, site);
        if (described.skip !== site.skip || described.message !== site.message) problems.push(`${name}: the rule read again gave ${described.skip} / ${described.message}`);
        const place = described.place;
        if (place == null) problems.push(`${name}: no place text for a ${site.skip} site`);
        else if (!anchored(composePattern(place.runtime)).test(printed.message)) problems.push(`${name}: place pattern /${composePattern(place.runtime)}/ does not match ${JSON.stringify(printed.message)}`);
      } else {
        kinds.own.add(site.kind);
        if (ownRecords.length !== 1) problems.push(`${name}: ${ownRecords.length} records for the site at line ${site.line}`);
        const ownRecord = ownRecords[0];
        if (ownRecord && !anchored(ownRecord.record.messagePattern).test(printed.message)) {
          problems.push(`${name}: own pattern /${ownRecord.record.messagePattern}/ does not match ${JSON.stringify(printed.message)}`);
        }
        const unrelated = matching.filter((e) => e !== ownRecord);
        if (unrelated.length > 0) problems.push(`${name}: ${JSON.stringify(printed.message)} also matches ${unrelated.map((e) => `/${e.record.messagePattern}/`).join(", ")}`);
        // The whole stderr block, as a user pastes it, finds the same record first: whole, and at
        // the location unless the site is in a `macro_rules!` body (rustc names the invocation).
        const first = found.matches[0];
        if (first?.id !== ownRecord?.record.id || first?.how !== "whole" || first?.atLocation !== (printed.line === site.line)) {
          problems.push(`${name}: match on the stderr block gave ${found.matches.map((m) => `${m.id} (${m.how}${m.atLocation ? ", here" : ""})`).join(", ") || "nothing"}`);
        }
        if (found.location?.files.join() !== FILE) problems.push(`${name}: the location read as ${JSON.stringify(found.location)}`);
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

  it("runs every kind with a record of its own text, and every kind that can print std's text alone without one", (t) => {
    if (!rustc.ok) return t.skip(`rustc not found: ${rustc.why}`);
    assert.deepEqual([...kinds.own].sort(), RULES.map((r) => r.id).sort());
    // `assert!` and `.expect` always print something of the site; their place cases have few letters.
    assert.deepEqual([...kinds.place].sort(), RULES.map((r) => r.id).sort());
  });

  it("catalogues the unreachable! inside a macro_rules! body with std's words around it", (t) => {
    if (!rustc.ok) return t.skip(`rustc not found: ${rustc.why}`);
    const record = envelopes.find((e) => e.record.errorMessage === "Autodiff should not wrap an autodiff device.");
    assert.ok(record, "no record for the macro_rules! site");
    assert.equal(record.occurrences[0]!.kind, "unreachable");
    assert.match("internal error: entered unreachable code: Autodiff should not wrap an autodiff device.", anchored(record.record.messagePattern));
    assert.doesNotMatch("Autodiff should not wrap an autodiff device.", anchored(record.record.messagePattern));
  });
});
