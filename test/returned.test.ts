/**
 * Returned errors (pipeline/sources/returned.ts):
 * - every form on `fixtures/returned/forms.rs`, against sites written by hand in
 *   `forms.expected.json` (kind, place, context, class, message, skip, runtime parts);
 * - records: `errorType` `error`, `errorClass` from the site, one record per class and text,
 *   valid against the schema, explained as an error returned, not as a panic;
 * - the proof against the real runtime: `fixtures/runtime/returned.rs` (no crates) compiled with
 *   plain rustc, each case run as a user meets its error: the Display text (`eprintln!("{e}")`)
 *   is matched by the records the table below names (by kind and class) and by no other, their
 *   parts anchored at both ends match all of it, and the Debug form Rust prints for `?` in
 *   `main` (`Error: <Debug>`), `unwrap()` and `expect()` names the record's class (its last
 *   segment heads the Debug form) or, for a string error, holds a text its pattern matches.
 *   `returned_thiserror.rs` (not compiled) holds the `#[error]` attributes whose expansion
 *   `returned.rs` writes by hand: their records match what `returned.rs` printed.
 * Where rustc is missing the runtime suite says so and skips.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { analyzeEnvelopes } from "../pipeline/analyze/index.js";
import { buildEnvelopes, groupSites } from "../pipeline/build.js";
import { extractFile } from "../pipeline/extract.js";
import type { Envelope } from "../pipeline/schema-types.generated.js";
import { errorTypeOf, mayBeSite, RETURNED_CANDIDATE, returnedHits } from "../pipeline/sources/returned.js";
import type { MessagePart, Site, SiteKind } from "../pipeline/types.js";
import { validate } from "../pipeline/validate.js";
import { fixture } from "./helpers/git.js";
import { compileCases, findRustc } from "./helpers/rustc.js";
import { rustFixtures } from "./helpers/rust.js";

const NOW = "2026-01-01T00:00:00.000Z";

async function sitesOf(file: string, asPath: string): Promise<Site[]> {
  const text = readFileSync(file, "utf8");
  return [...(await extractFile({ path: asPath, blob: "0".repeat(40), text })).sites].filter((s) => errorTypeOf(s.kind) === "error");
}

function envelopesOf(sites: readonly Site[], text: string): Envelope[] {
  const built = buildEnvelopes({ repo: "fixture/returned", sha: "0".repeat(40), contextLines: 2, groups: groupSites(sites.filter((s) => s.runtime !== null && s.context === "library")), textOf: () => text, now: NOW });
  return analyzeEnvelopes({ envelopes: built, sites });
}

/** A regex for the whole text the parts describe: literals as they are, a hole any text. */
function wholeText(parts: readonly MessagePart[]): RegExp {
  const source = parts.map((p) => ("lit" in p ? p.lit.replace(/[\\^$.|?*+()[\]{}/]/g, "\\$&") : "wild" in p ? "[\\s\\S]*" : "")).join("");
  return new RegExp(`^(?:${source})$`);
}

describe("returned errors: the forms", () => {
  it("reads every form of forms.rs as written by hand, and no look-alike", async () => {
    const expected = JSON.parse(readFileSync(fixture("returned", "forms.expected.json"), "utf8")) as { path: string; sites: unknown[] };
    const sites = await sitesOf(fixture("returned", "forms.rs"), expected.path);
    const got = sites.map((s) => ({ kind: s.kind, line: s.line, column: s.column, context: s.context, errorClass: s.errorClass ?? null, message: s.message, skip: s.skip, runtime: s.runtime }));
    assert.deepEqual(got, expected.sites);
  });

  it("makes the writes of one run one text: a separator and a loop's writes are holes of the first write's text", async () => {
    const text = [
      "pub struct RuleError;",
      "impl std::error::Error for RuleError {}",
      "impl std::fmt::Display for RuleError {",
      "    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {",
      '        f.write_str("unknown rule, expected one of ")?;',
      "        for (i, name) in [\"a\", \"b\"].iter().enumerate() {",
      '            if i > 0 { f.write_str(", ")?; }',
      '            f.write_str(name)?;',
      "        }",
      "        Ok(())",
      "    }",
      "}",
    ].join("\n");
    const sites = (await extractFile({ path: "crates/a/src/lib.rs", blob: "0".repeat(40), text })).sites.filter((s) => s.kind === "display-impl");
    assert.deepEqual(sites.map((s) => [s.line, s.message, s.runtime]), [[5, "unknown rule, expected one of {}", [{ lit: "unknown rule, expected one of " }, { wild: true }]]]);
  });

  it("lays out no file for a candidate that cannot be a site (mayBeSite), and keeps every one that may", () => {
    const may = (text: string, name: string, display = true) => mayBeSite(text, { at: text.indexOf(name), name, macro: name.startsWith("write") && !name.includes("_") }, () => display);
    assert.equal(may(`Err(e)`, "Err"), false);
    assert.equal(may(`x.map_err(|e| e.to_string())`, "map_err"), false);
    assert.equal(may(`x.ok_or_else(invalid_axis)`, "ok_or_else"), false);
    assert.equal(may(`Err(/* ) */ "after a comment".into())`, "Err"), true);
    assert.equal(may(`Err(E::V(')', ')', "after two chars"))`, "Err"), true);
    assert.equal(may(`Err(format!("{e}"))`, "Err"), true);
    assert.equal(may(`x.ok_or("never closed`, "ok_or"), true);
    assert.equal(may(`write!(f, "x")`, "write", false), false);
    assert.equal(may(`write!(f, "x")`, "write", true), true);
    assert.equal(may(`#[error(transparent)]`, "error", false), true);
  });

  it("makes records of kind error with their class, one per class and text, valid against the schema", async () => {
    const text = readFileSync(fixture("returned", "forms.rs"), "utf8");
    const sites = await sitesOf(fixture("returned", "forms.rs"), "src/forms.rs");
    const envelopes = envelopesOf(sites, text);
    // 24 sites: 3 without text of their own, 1 in tests; the two `ParseError::Other` texts are two records; `LoadError::Truncated`'s two writes are one text.
    assert.equal(envelopes.length, 21);
    for (const e of envelopes) {
      assert.equal(e.record.errorType, "error");
      const v = validate("envelope.v2", e, `${e.record.filePath}:${e.record.lineNumber}`);
      assert.ok(v.ok, v.ok ? "" : v.errors.join("\n"));
    }
    const at = (line: number) => envelopes.find((e) => e.record.lineNumber === line)!;
    assert.equal(at(43).record.errorClass, "LoadError::Header");
    assert.equal(at(77).record.errorClass, null);
    assert.equal(at(105).record.errorClass, "ParseError::Token");
    assert.equal(new Set(envelopes.map((e) => e.record.id)).size, envelopes.length);
  });

  it("keeps two classes that display the same text apart, and a panic of that text apart from both", () => {
    const site = (kind: SiteKind, errorClass: string | null, line: number): Site => ({ kind, path: "src/a.rs", line, column: 1, inTokenTree: false, context: "library", message: "bad input", runtime: [{ lit: "bad input" }], skip: null, facts: null, errorClass });
    const sites = [site("display-impl", "A::Bad", 1), site("display-impl", "B::Bad", 2), site("err-return", null, 3), site("panic", null, 4), site("err-return", "A::Bad", 5)];
    const envelopes = buildEnvelopes({ repo: "fixture/returned", sha: "0".repeat(40), contextLines: 1, groups: groupSites(sites), textOf: () => "1\n2\n3\n4\n5\n", now: NOW });
    const byLine = new Map(envelopes.map((e) => [e.record.lineNumber, e]));
    assert.deepEqual([...byLine.keys()].sort(), [1, 2, 3, 4]);
    assert.deepEqual(byLine.get(1)!.occurrences.map((o) => o.lineNumber), [1, 5]);
    assert.deepEqual([1, 2, 3, 4].map((l) => [byLine.get(l)!.record.errorType, byLine.get(l)!.record.errorClass]), [["error", "A::Bad"], ["error", "B::Bad"], ["error", null], ["panic", null]]);
    assert.equal(new Set(envelopes.map((e) => e.record.id)).size, 4);
  });

  it("explains a returned error as one: handled by the caller, no catch_unwind, no guard", async () => {
    const text = readFileSync(fixture("returned", "forms.rs"), "utf8");
    const envelopes = envelopesOf(await sitesOf(fixture("returned", "forms.rs"), "src/forms.rs"), text);
    for (const e of envelopes) {
      const r = e.record;
      assert.equal(r.handlingStrategy, "handle-error", `${r.lineNumber}`);
      assert.equal(r.tryCatchPattern, null);
      assert.equal(r.typeGuard, null);
      assert.equal(r.validationCode, null);
      assert.equal(r.exampleFix, null);
      assert.equal(r.backgroundTag, "returned-error");
      assert.doesNotMatch(JSON.stringify([r.documentation, r.solutions, r.preventionTips, r.triggerScenarios]), /catch_unwind|panics? (?:when|if)|would_panic/);
      assert.match(r.documentation ?? "", /not a panic/);
    }
    const scale = envelopes.find((e) => e.record.lineNumber === 77)!.record;
    assert.match(scale.documentation ?? "", /`fn scale` returns this error through `Err\(…\)`/);
    assert.match(scale.triggerScenarios ?? "", /`factor <= 0\.0` is true/);
    const closed = envelopes.find((e) => e.record.lineNumber === 49)!;
    assert.deepEqual(closed.facts?.gates, ['feature = "std"']);
  });
});

const rustc = findRustc();

/**
 * The records each case's Display text comes from, written from reading returned.rs: the kind of
 * their site and their class; `attribute` for the `#[error]` records of returned_thiserror.rs.
 */
const CASES: Readonly<Record<string, { readonly own: readonly [SiteKind, string | null][]; readonly attribute?: string }>> = {
  type_mismatch: { own: [["display-impl", "DataError::TypeMismatch"]] },
  missing: { own: [["display-impl", "DataError::Missing"]] },
  column: { own: [["display-impl", "DataError::Missing"], ["err-return", "DataError::Missing"]] },
  empty: { own: [["display-impl", "DataError::Empty"]] },
  io_failure: { own: [["display-impl", "DataError::Io"]] },
  limit: { own: [["display-impl", "LimitError"]] },
  learning_rate: { own: [["err-return", null]] },
  steps: { own: [["map-err", null]] },
  first_word: { own: [["ok-or", null]] },
  lookup: { own: [["ok-or", null]] },
  open: { own: [["err-return", null]] },
  quoted: { own: [["err-return", null]] },
  not_found: { own: [["display-impl", "StoreError::NotFound"]], attribute: "StoreError::NotFound" },
  shape: { own: [["display-impl", "StoreError::Shape"]], attribute: "StoreError::Shape" },
  quota: { own: [["display-impl", "QuotaError"]], attribute: "QuotaError" },
  rule: { own: [["display-impl", "RuleError"]] },
};

/** A Rust string's Debug form read back: `"a \"b\"\n"` → `a "b"` and a line feed. */
function undebug(quoted: string): string | null {
  if (!/^"(?:[^"\\]|\\[\s\S])*"$/.test(quoted)) return null;
  const escapes: Record<string, string> = { n: "\n", t: "\t", r: "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'" };
  return quoted.slice(1, -1).replace(/\\(?:u\{([0-9a-f]+)\}|(.))/g, (_, hex: string | undefined, c: string) => (hex !== undefined ? String.fromCodePoint(parseInt(hex, 16)) : escapes[c]!));
}

describe("returned errors: the candidate scan", () => {
  /** The candidates as the regex they are specified by finds them: [offset, name, macro]. */
  const byRegex = (text: string) =>
    [...text.matchAll(new RegExp(RETURNED_CANDIDATE, "dg"))].map((m) => {
      const k = [1, 2, 3, 4].find((g) => m[g] !== undefined)!;
      return [m.indices![k]![0], m[k], k === 4];
    });
  const byScan = (text: string) => returnedHits(text).map((h) => [h.at, h.name, h.macro]);

  it("finds what RETURNED_CANDIDATE matches, at the same offsets, in hand-written texts", () => {
    const texts = [
      "#[error(\"a\")] # [ error (\"b\")] #[ error\n(\"c\")] #[errors(\"d\")] [error(\"e\")]",
      "Err(x) Err (y) xErr(z) _Err(w) Error(v) ErrErr(u) Err\u3000(t)",
      "a.ok_or(1) b . ok_or_else(|| 2) c.ok_orx(3) d.\u00a0map_err\u2028(e) f.map_err (g) ok_or(h)",
      "f.write_str(\"x\") g. write_fmt (h) write!(f) writeln\t!(f) write_str!(f) xwrite!(f) writeln(f) write ! (f)",
    ];
    const expected = [
      [[2, "error", false], [18, "error", false], [34, "error", false]],
      [[0, "Err", false], [7, "Err", false], [50, "Err", false]],
      [[2, "ok_or", false], [15, "ok_or_else", false], [47, "map_err", false], [61, "map_err", false]],
      [[2, "write_str", false], [20, "write_fmt", false], [34, "write", true], [44, "writeln", true], [93, "write", true]],
    ];
    texts.forEach((text, k) => {
      assert.deepEqual(byScan(text), expected[k], text);
      assert.deepEqual(byRegex(text), expected[k], text);
    });
  });

  it("finds what RETURNED_CANDIDATE matches in every Rust fixture", () => {
    let found = 0;
    for (const file of rustFixtures()) {
      const text = readFileSync(file, "utf8");
      assert.deepEqual(byScan(text), byRegex(text), file);
      found += byScan(text).length;
    }
    assert.ok(found > 50, `${found} candidates compared`);
  });
});

describe("returned errors: runtime proof (rustc)", { timeout: 120_000 }, () => {
  const source = fixture("runtime", "returned.rs");
  const text = readFileSync(source, "utf8");
  let dir = "";
  let binary = "";
  let cases: string[] = [];
  let sites: Site[] = [];
  let envelopes: Envelope[] = [];
  let attributes: Envelope[] = [];

  before(async () => {
    if (!rustc.ok) return;
    ({ dir, binary, cases } = compileCases(source, "returned"));
    sites = await sitesOf(source, "src/returned.rs");
    envelopes = envelopesOf(sites, text);
    const thiserror = fixture("runtime", "returned_thiserror.rs");
    attributes = envelopesOf(await sitesOf(thiserror, "src/returned_thiserror.rs"), readFileSync(thiserror, "utf8"));
  });
  after(() => {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  /** What one case prints in one mode: stderr, and the exit status. */
  function run(name: string, mode: string): { stderr: string; status: number | null } {
    const child = spawnSync(binary, [name, mode], { encoding: "utf8", env: { ...process.env, RUST_BACKTRACE: "0" } });
    return { stderr: child.stderr, status: child.status };
  }

  /** The case's records among `from`: of the kinds and classes the table names, a string error's in the case's function. */
  const recordsOf = (from: readonly Envelope[], name: string) => {
    const lines = text.split("\n");
    const start = lines.findIndex((l) => l.startsWith(`fn ${name}(`)) + 1;
    const end = lines.findIndex((l, i) => i >= start && l === "}") + 1;
    return CASES[name]!.own.map(([kind, cls]) => from.find((e) => e.occurrences[0]!.kind === kind && e.record.errorClass === cls && (cls !== null || (e.record.lineNumber >= start && e.record.lineNumber <= end))));
  };

  it("compiles the program, lists every case of the table", (t) => {
    if (!rustc.ok) return t.skip(`rustc not found: ${rustc.why}`);
    t.diagnostic(rustc.version);
    assert.deepEqual([...cases].sort(), Object.keys(CASES).sort());
  });

  it("matches each Display text with the case's records and no other, their parts anchored at both ends", (t) => {
    if (!rustc.ok) return t.skip(`rustc not found: ${rustc.why}`);
    const problems: string[] = [];
    for (const name of cases) {
      const printed = run(name, "display");
      if (printed.status !== 1) problems.push(`${name}: exit ${printed.status}`);
      const display = printed.stderr.replace(/\n$/, "");
      const own = recordsOf(envelopes, name);
      if (own.some((e) => e === undefined)) {
        problems.push(`${name}: no record of ${JSON.stringify(CASES[name]!.own)}`);
        continue;
      }
      const matching = envelopes.filter((e) => new RegExp(e.record.messagePattern).test(display));
      const mismatch = [...own.filter((e) => !matching.includes(e!)).map((e) => `misses /${e!.record.messagePattern}/`), ...matching.filter((e) => !own.includes(e)).map((e) => `also matches /${e.record.messagePattern}/ (${e.record.errorClass})`)];
      if (mismatch.length > 0) problems.push(`${name}: ${JSON.stringify(display)} ${mismatch.join("; ")}`);
      for (const e of own) {
        const site = sites.find((s) => s.line === e!.record.lineNumber && s.kind === e!.occurrences[0]!.kind)!;
        if (!wholeText(site.runtime!).test(display)) problems.push(`${name}: the parts of line ${site.line} do not make all of ${JSON.stringify(display)}`);
      }
      const attribute = CASES[name]!.attribute;
      if (attribute !== undefined) {
        const record = attributes.find((e) => e.record.errorClass === attribute);
        if (record === undefined || !new RegExp(record.record.messagePattern).test(display)) problems.push(`${name}: the #[error] record of ${attribute} does not match ${JSON.stringify(display)}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it("finds the case's record from each Debug form Rust prints: `?` in main, unwrap(), expect()", (t) => {
    if (!rustc.ok) return t.skip(`rustc not found: ${rustc.why}`);
    const forms: readonly [string, number, RegExp][] = [
      ["main", 1, /^Error: (.*)\n$/s],
      ["unwrap", 101, /panicked at [^\n]*:\ncalled `Result::unwrap\(\)` on an `Err` value: (.*)\nnote: /s],
      ["expect", 101, /panicked at [^\n]*:\nthe case failed: (.*)\nnote: /s],
    ];
    const problems: string[] = [];
    for (const name of cases) {
      const own = recordsOf(envelopes, name);
      for (const [mode, status, shape] of forms) {
        const printed = run(name, mode);
        const m = shape.exec(printed.stderr);
        if (printed.status !== status || m === null) {
          problems.push(`${name} ${mode}: exit ${printed.status}, ${JSON.stringify(printed.stderr)}`);
          continue;
        }
        const debug = m[1]!;
        const str = undebug(debug);
        for (const e of own) {
          const cls = e!.record.errorClass;
          if (cls === null) {
            if (str === null || !new RegExp(e!.record.messagePattern).test(str)) problems.push(`${name} ${mode}: string record /${e!.record.messagePattern}/ does not match ${debug}`);
            continue;
          }
          const head = /^([A-Za-z_]\w*)/.exec(debug)?.[1];
          if (head === undefined || cls.slice(cls.lastIndexOf(":") + 1) !== head) problems.push(`${name} ${mode}: class ${cls} is not named by ${debug}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });
});
