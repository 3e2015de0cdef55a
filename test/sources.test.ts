/**
 * Messages built away from their panics (pipeline/sources/), against a fixture crate of its own
 * (`fixtures/sources/tree`): burn's tensor-check convention declared in config.json
 * (`TensorError::new` registered under an operation, printed by a `check!`-like macro as an
 * `=== Tensor Operation Error ===` block), wrappers whose parameter a panic prints, and messages
 * held in a `let` or `const`. The program is compiled with rustc and each case run: what it
 * prints must find the records written here by hand, and only those. Where rustc is missing
 * that part says so and skips. The pieces are checked on small texts too.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { extractFile } from "../pipeline/extract.js";
import { matchPanic, panicMessage } from "../pipeline/match.js";
import { composePattern } from "../pipeline/message.js";
import { run } from "../pipeline/run.js";
import type { Envelope, Manifest, MessageSourceConfig } from "../pipeline/schema-types.generated.js";
import { readMessageArgument } from "../pipeline/sources/argument.js";
import { messageCalls } from "../pipeline/sources/calls.js";
import { ConstantIndex, fileConstants, filledIn, slotOf } from "../pipeline/sources/constants.js";
import { templateParts } from "../pipeline/sources/declared.js";
import { MessageSources } from "../pipeline/sources/index.js";
import { tokenize } from "../pipeline/tokens.js";
import type { FileSites, MessagePart, Site } from "../pipeline/types.js";
import { readVersion } from "../pipeline/write.js";
import { writeConfig } from "./helpers/config.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";
import { packageRoot } from "../pipeline/paths.js";

/** The message sources config.json declares for burn: the template under test. */
const BURN_SOURCES = (JSON.parse(readFileSync(path.join(packageRoot(), "config.json"), "utf8")) as { targets: { messageSources?: MessageSourceConfig[] }[] }).targets[0]!.messageSources!;

const TREE = fixture("sources", "tree");
const NOW = new Date("2026-03-01T00:00:00.000Z");

/** Every `.rs` file of a tree, relative to it, sorted. */
function rustFiles(root: string, dir = ""): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? rustFiles(root, path.join(dir, e.name)) : e.name.endsWith(".rs") ? [path.join(dir, e.name)] : []))
    .sort();
}

/** The 1-based line of the fixture file that holds `snippet` (once). */
function lineOf(file: string, snippet: string): number {
  const lines = readFileSync(path.join(TREE, file), "utf8").split("\n");
  const at = lines.flatMap((l, i) => (l.includes(snippet) ? [i + 1] : []));
  assert.equal(at.length, 1, `${snippet} should stand once in ${file}`);
  return at[0]!;
}

/** A regex that matches what `parts` say the whole message is: literal text as is, any text for a hole. */
function wholeText(parts: readonly MessagePart[]): RegExp {
  const source = parts.map((p) => ("lit" in p ? p.lit.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&") : "[\\s\\S]*")).join("");
  return new RegExp(`^${source}$`);
}

const CHECK = "crates/shapes/src/check.rs";
const OPS = "crates/shapes/src/ops.rs";
const LAYERS = "crates/shapes/src/layers.rs";
const ERRORS = "crates/shapes/src/errors.rs";

/** A record the fixture must have, written from reading it. */
interface Want {
  readonly kind: Site["kind"];
  readonly file: string;
  /** Text on the record's line, where its message stands. */
  readonly at: string;
  readonly message: string;
  /** Text the pattern holds, to tell records with the same message apart. */
  readonly holds?: string;
  readonly source?: Record<string, unknown>;
  /** Further occurrences, by text on their line. */
  readonly also?: readonly string[];
}

const declared = (fn: string, operation?: string) => ({ via: "declared", name: "TensorError::new", function: fn, ...(operation === undefined ? {} : { operation }) });
const wrapper = (name: string) => ({ via: "wrapper", name });

const WANT: Readonly<Record<string, Want>> = {
  empty: { kind: "declared-call", file: CHECK, at: `TensorError::new("Can't narrow to an empty range")`, message: "Can't narrow to an empty range", source: declared("Checks::narrow", "Narrow") },
  range: { kind: "declared-call", file: CHECK, at: `TensorError::new(format!("Range`, message: "Range {start}..{} exceeds the dimension", source: declared("Checks::narrow", "Narrow") },
  rank: { kind: "declared-call", file: CHECK, at: `TensorError::new("The operands have different ranks.".to_string())`, message: "The operands have different ranks.", source: declared("Checks::same_rank") },
  reshape: { kind: "declared-call", file: CHECK, at: `TensorError::new(format!("Cannot reshape`, message: "Cannot reshape {from} elements into {to}", source: declared("reshape", "Reshape") },
  gather: { kind: "declared-call", file: CHECK, at: `TensorError::new("Gather needs`, message: "Gather needs a rank of at least 1", source: declared("gather", "Gather") },
  stride: { kind: "wrapper-call", file: LAYERS, at: `"stride must be non-zero"`, message: "stride must be non-zero", source: wrapper("check_nonzero") },
  groups: { kind: "wrapper-call", file: LAYERS, at: `"groups must be non-zero"`, message: "groups must be non-zero", source: wrapper("check_nonzero") },
  kernel: { kind: "wrapper-call", file: LAYERS, at: `positive("kernel size"`, message: "kernel size must be positive, got {}", source: wrapper("positive") },
  hop: { kind: "wrapper-call", file: LAYERS, at: `window.validate("frames")`, message: "frames: hop must be at least 1", holds: "hop must be at least 1", source: wrapper("validate") },
  hopSize: { kind: "wrapper-call", file: LAYERS, at: `window.validate("frames")`, message: "frames: hop ({}) must not exceed the size ({})", holds: "must not exceed the size", source: wrapper("validate") },
  positive: { kind: "assert", file: OPS, at: `"{what} must be positive`, message: "{what} must be positive, got {value}" },
  atLeast: { kind: "assert", file: OPS, at: `"{op}: hop must be at least 1"`, message: "{op}: hop must be at least 1" },
  notExceed: { kind: "assert", file: OPS, at: `"{}: hop ({}) must not exceed`, message: "{}: hop ({}) must not exceed the size ({})" },
  outOfRange: { kind: "panic", file: OPS, at: `panic!("index {index} is out of range")`, message: "index {index} is out of range" },
  token: { kind: "expect", file: LAYERS, at: `tokens.first().expect(msg)`, message: "the token list is empty", source: { via: "binding", name: "msg", line: lineOf(LAYERS, `let msg = "the token list is empty";`) } },
  vocabulary: {
    kind: "panic",
    file: LAYERS,
    at: `None => panic!("{}", NO_VOCABULARY)`,
    message: "no vocabulary was loaded",
    source: { via: "binding", name: "NO_VOCABULARY", line: lineOf(LAYERS, `const NO_VOCABULARY: &str`) },
    also: [`panic!("{NO_VOCABULARY}")`],
  },
  // A constant of another module, by its path and through a `use`; plots' namesake has another text.
  device: { kind: "panic", file: LAYERS, at: `None => panic!("{}", crate::errors::NO_DEVICE)`, message: "no device is selected: call select_device first", source: { via: "constant", name: "crate::errors::NO_DEVICE", file: ERRORS, line: lineOf(ERRORS, "const NO_DEVICE") } },
  closed: { kind: "panic", file: LAYERS, at: `panic!("{CLOSED}: nothing to read")`, message: "the stream is closed: nothing to read", source: { via: "constant", name: "CLOSED", file: ERRORS, line: lineOf(ERRORS, "const CLOSED") } },
};

/** What each case of the program prints matches these records, most specific first where it says. */
const CASES: Readonly<Record<string, { readonly records: readonly string[]; readonly first?: string }>> = {
  "narrow-empty": { records: ["empty"] },
  "narrow-both": { records: ["empty", "range"] },
  "narrow-range": { records: ["range"] },
  rank: { records: ["rank"] },
  reshape: { records: ["reshape"] },
  stride: { records: ["stride"] },
  groups: { records: ["groups"] },
  kernel: { records: ["kernel", "positive"], first: "kernel" },
  hop: { records: ["hop", "atLeast"], first: "hop" },
  "hop-size": { records: ["hopSize", "notExceed"], first: "hopSize" },
  token: { records: ["token"] },
  vocabulary: { records: ["vocabulary"] },
  "vocabulary-size": { records: ["vocabulary"] },
  device: { records: ["device"] },
  closed: { records: ["closed"] },
};

/** rustc's version line, or why there is none. */
function findRustc(): { ok: true; version: string } | { ok: false; why: string } {
  try {
    return { ok: true, version: execFileSync("rustc", ["--version"], { encoding: "utf8" }).trim() };
  } catch (error) {
    return { ok: false, why: (error as Error).message.split("\n")[0]! };
  }
}

/** The sites of the fixture's files, with the sources' sites added (as a run adds them). */
async function fixtureSites(root: string, sources: readonly MessageSourceConfig[]): Promise<Site[]> {
  const texts = new Map(rustFiles(root).map((p) => [p, readFileSync(path.join(root, p), "utf8")]));
  const files: FileSites[] = [];
  for (const [p, text] of texts) files.push(await extractFile({ path: p, blob: "0".repeat(40), text }));
  const withSources = await new MessageSources(files, sources).withSites(files, async (paths) => paths.map((p) => texts.get(p)!));
  return withSources.flatMap((f) => f.sites);
}

describe("message sources on the fixture crate", () => {
  let repo: { dir: string; shas: string[] };
  let envelopes: Envelope[];
  let manifest: Manifest;
  let byLabel: Map<string, Envelope>;

  before(async () => {
    repo = makeRepo([TREE]);
    const config = writeConfig(repo.dir, repo.shas[0]!, { targets: [{ repo: "example/shapes", url: repo.dir, sha: repo.shas[0]!, messageSources: BURN_SOURCES }] });
    const result = await run({ configPath: config, now: () => NOW });
    ({ envelopes, manifest } = (await readVersion(result.dir)) as { envelopes: Envelope[]; manifest: Manifest });
    byLabel = new Map(
      Object.entries(WANT).map(([label, want]) => {
        const line = lineOf(want.file, want.at);
        const found = envelopes.filter((e) => e.record.filePath === want.file && e.record.lineNumber === line && e.record.errorMessage === want.message && (want.holds === undefined || e.record.messagePattern.includes(want.holds)));
        assert.equal(found.length, 1, `${label}: ${found.length} records at ${want.file}:${line}`);
        return [label, found[0]!];
      }),
    );
  });
  after(() => rmSync(repo.dir, { recursive: true, force: true }));

  it("writes the records read from the fixture, at the message, with where it comes from", () => {
    // Besides, the wrappers' own sites, which print their parameter and have no text of their own,
    // have their places' records (`.expect(msg)` in check_nonzero, `panic!("{}", …)`).
    const places = envelopes.filter((e) => !new Set(byLabel.values()).has(e)).map((e) => e.record.errorMessage).sort();
    assert.deepEqual(places, ["{msg}", "{}"], `records: ${envelopes.map((e) => e.record.errorMessage).join(" | ")}`);
    assert.equal(envelopes.length, Object.keys(WANT).length + places.length);
    for (const [label, want] of Object.entries(WANT)) {
      const e = byLabel.get(label)!;
      const lines = [want.at, ...(want.also ?? [])].map((at) => lineOf(want.file, at));
      assert.deepEqual(
        e.occurrences.map((o) => ({ line: o.lineNumber, kind: o.kind, source: o.source })),
        lines.map((line) => ({ line, kind: want.kind, source: want.source })),
        label,
      );
    }
  });

  it("gives a source's record the facts of its call: the items around it and the path to it", () => {
    const facts = (label: string) => {
      const f = byLabel.get(label)!.facts!;
      return { items: f.items.map((i) => `${i.kind} ${i.name}`), fn: f.function?.name, conditions: f.conditions.map((c) => `${c.kind} ${c.condition ?? c.callee ?? ""}`.trim()) };
    };
    assert.deepEqual(facts("empty"), { items: ["impl Checks", "fn narrow"], fn: "narrow", conditions: ["if length == 0"] });
    assert.deepEqual(facts("range"), { items: ["impl Checks", "fn narrow"], fn: "narrow", conditions: ["if start + length > len"] });
    assert.deepEqual(facts("reshape"), { items: ["fn reshape"], fn: "reshape", conditions: [] });
    assert.deepEqual(facts("kernel"), { items: ["fn conv"], fn: "conv", conditions: [] });
    assert.deepEqual(facts("hop"), { items: ["fn frames"], fn: "frames", conditions: [] });
  });

  it("counts a declared call without a message of its own and the calls of another crate's namesake", () => {
    // `TensorError::new(reason)` in `relay` is no site; `check_nonzero(ticks, "ticks per axis")` of plots calls plots' own function.
    assert.equal(manifest.counts.sitesByKind["declared-call"], 5);
    assert.equal(manifest.counts.sitesByKind["wrapper-call"], 5);
    assert.ok(!envelopes.some((e) => e.record.filePath.startsWith("crates/plots/")), "no record in plots");
  });

  describe("against what the program prints", { timeout: 120_000 }, () => {
    const rustc = findRustc();
    let dir = "";
    let binary = "";
    let sites: Site[] = [];

    before(async () => {
      sites = await fixtureSites(TREE, BURN_SOURCES);
      if (!rustc.ok) return;
      dir = tempDir("error-catalog-sources-");
      binary = path.join(dir, "shapes");
      execFileSync("rustc", ["--edition", "2021", "-o", binary, path.join(TREE, "crates/shapes/src/main.rs")], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
    });
    after(() => {
      if (dir !== "") rmSync(dir, { recursive: true, force: true });
    });

    it("lists the cases the expectations name", (t) => {
      if (!rustc.ok) return t.skip(`rustc not found: ${rustc.why}`);
      t.diagnostic(rustc.version);
      assert.deepEqual(execFileSync(binary, ["list"], { encoding: "utf8" }).trim().split("\n").sort(), Object.keys(CASES).sort());
    });

    for (const [name, want] of Object.entries(CASES)) {
      it(`${name}: the printed message finds its records and no other`, (t) => {
        if (!rustc.ok) return t.skip(`rustc not found: ${rustc.why}`);
        const child = spawnSync(binary, [name], { encoding: "utf8", env: { ...process.env, RUST_BACKTRACE: "0" } });
        assert.equal(child.status, 101, `${name} should panic: ${child.stderr}`);
        const message = panicMessage(child.stderr);
        const labelOf = new Map([...byLabel].map(([label, e]) => [e.record.id, label]));
        // Note: the message alone, without the header's location (which names the wrapper's own site).
        const found = matchPanic(message, [{ version: "v", envelopes }], "v")
          .matches.filter((m) => m.how === "whole")
          .map((m) => labelOf.get(m.id) ?? m.id);
        assert.deepEqual([...found].sort(), [...want.records].sort(), `${JSON.stringify(message)} matched ${found.join(", ")}`);
        if (want.first !== undefined) assert.equal(found[0], want.first);
        // Each record's runtime parts are the whole message: nothing before, after or between them but holes.
        for (const label of Object.keys(WANT)) {
          const e = byLabel.get(label)!;
          const site = sites.find((s) => s.path === e.record.filePath && s.line === e.record.lineNumber && s.runtime !== null && composePattern(s.runtime) === e.record.messagePattern);
          assert.ok(site, `${label}: no site`);
          assert.equal(wholeText(site!.runtime!).test(message), want.records.includes(label), `${label} on ${JSON.stringify(message)}`);
        }
      });
    }
  });
});

/**
 * The records of the fixture run at two commits, the second made by `edit` of a copy of the tree
 * (the first run's version before it): the second version's envelopes and manifest.
 */
async function afterEdit(edit: (tree: string) => void): Promise<{ envelopes: Envelope[]; manifest: Manifest }> {
  const second = tempDir("error-catalog-sources-tree-");
  cpSync(TREE, second, { recursive: true });
  edit(second);
  const repo = makeRepo([TREE, second]);
  try {
    const target = (sha: string) => ({ targets: [{ repo: "example/shapes", url: repo.dir, sha, messageSources: BURN_SOURCES }] });
    const config = writeConfig(repo.dir, repo.shas[0]!, target(repo.shas[0]!));
    await run({ configPath: config, now: () => NOW });
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, "utf8")), ...target(repo.shas[1]!) }));
    const result = await run({ configPath: config, now: () => NOW });
    return (await readVersion(result.dir)) as { envelopes: Envelope[]; manifest: Manifest };
  } finally {
    rmSync(repo.dir, { recursive: true, force: true });
    rmSync(second, { recursive: true, force: true });
  }
}

/** `file` of `tree` with `from` written as `to`. */
function rewrite(tree: string, file: string, from: string, to: string): void {
  const at = path.join(tree, file);
  writeFileSync(at, readFileSync(at, "utf8").replace(from, to));
}

describe("message sources after a wrapper changes", () => {
  it("rebuilds the records of its unchanged callers, and takes nothing whole", async () => {
    const { envelopes, manifest } = await afterEdit((tree) => rewrite(tree, OPS, "NonZeroUsize::new(value).expect(msg).get()", `NonZeroUsize::new(value).unwrap_or_else(|| panic!("{msg} (it was zero)")).get()`));
    assert.equal(manifest.carry?.mode, "partial");
    // The record is named by the text the wrapper now prints around the caller's literal.
    const stride = envelopes.filter((e) => e.record.errorMessage === "stride must be non-zero (it was zero)");
    assert.equal(stride.length, 1);
    assert.equal(stride[0]!.record.filePath, LAYERS, "still at the caller's literal");
    assert.match("stride must be non-zero (it was zero)", new RegExp(stride[0]!.record.messagePattern));
    assert.doesNotMatch("stride must be non-zero", new RegExp(stride[0]!.record.messagePattern));
    assert.equal(stride[0]!.occurrences[0]!.kind, "wrapper-call");
  });
});

describe("message sources after a constant changes", () => {
  it("gives the unchanged panic that prints it the new text, and takes nothing whole", async () => {
    const { envelopes, manifest } = await afterEdit((tree) => rewrite(tree, ERRORS, "no device is selected: call select_device first", "no device is open: call open_device first"));
    assert.equal(manifest.carry?.mode, "partial");
    const device = envelopes.filter((e) => e.record.filePath === LAYERS && e.occurrences[0]!.source?.via === "constant" && e.occurrences[0]!.source.name === "crate::errors::NO_DEVICE");
    assert.deepEqual(
      device.map((e) => e.record.errorMessage),
      ["no device is open: call open_device first"],
    );
    assert.ok(!envelopes.some((e) => e.record.errorMessage.includes("select_device")), "the old text is gone");
  });
});

describe("messages held in a constant of another file", () => {
  it("are the file's string constants, at their lines, not those in comments or of other values", () => {
    const text = [
      'pub(crate) const A: &str = "alpha";', // 1
      "pub const B: &'static str =",
      '    "beta";',
      '// const C: &str = "in a comment";',
      'static D: &str = r"delta";', // 5
      'const E: &str = concat!("e", "psilon");',
      "const F: usize = 3;",
      'const lower: &str = "not a constant name";',
    ].join("\n");
    assert.deepEqual(fileConstants(text), [
      ["A", "alpha", 1],
      ["B", "beta", 2],
      ["D", "delta", 5],
    ]);
  });

  it("resolve a path by the module it spells, and a name alone only through a use", () => {
    const index = new ConstantIndex([
      { path: "crates/app/src/util/error.rs", constants: [["GONE", "it is gone", 3]] },
      { path: "crates/app/src/other.rs", constants: [["GONE", "another text", 9], ["ONLY", "only here", 2]] },
      { path: "crates/lib/src/util/error.rs", constants: [["GONE", "the library's text", 4]] },
      { path: "crates/app/src/twice.rs", constants: [["TWICE", "once", 1]] },
      { path: "crates/app/src/again.rs", constants: [["TWICE", "twice", 1]] },
    ]);
    const from = "crates/app/src/main.rs";
    const text = (read: string, uses: [string, string][] = []) => index.resolve(read, from, uses)?.value ?? null;
    assert.equal(text("crate::util::error::GONE"), "it is gone", "the module's file, in the same package");
    assert.equal(index.resolve("crate::util::error::GONE", from, [])?.line, 3);
    assert.equal(text("GONE", [["GONE", "crate::util::error::GONE"]]), "it is gone", "through the file's use");
    assert.equal(text("GONE"), null, "a name alone that no use brings in is not another file's");
    assert.equal(text("crate::ONLY"), "only here", "one constant of the name in the package");
    assert.equal(text("crate::TWICE"), null, "two texts that no module tells apart");
    assert.equal(text("crate::MISSING"), null);
  });

  it("fill in the message, or leave a text of few letters to its place", () => {
    const slot = slotOf(0);
    const pending = { reads: [{ path: "crate::X", slot }], message: slot, runtime: [{ lit: `${slot}: nothing to read` }] };
    assert.deepEqual(filledIn(pending, ["the stream is closed"]), { message: "the stream is closed", runtime: [{ lit: "the stream is closed: nothing to read" }] });
    assert.equal(filledIn({ reads: pending.reads, message: slot, runtime: [{ lit: slot }, { wild: true }] }, ["ok"]), null);
  });
});

describe("the calls a file makes with a message", () => {
  it("names the calls with a literal or format! argument, not those in comments, strings or macros", () => {
    const text = [
      `// check_nonzero(1, "in a comment")`,
      `/* nested /* check_nonzero(1, "x") */ still a comment "quote */`,
      `let s = "check_nonzero(1, \\"in a string\\")";`,
      `let c = '"'; let d = '\\"';`,
      `let r = r#"check_nonzero(1, "raw")"#;`,
      `fn check_nonzero(v: usize, msg: &str) {}`,
      `println!("a macro {}", 1);`,
      `foo(1, "first");`,
      `a::bar(\n    "second",\n);`,
      `x.baz(&format!("third {}", 1));`,
      `parse::<u8>("fourth");`,
      `q(String::from("fifth"));`,
      `if ("f" == "g") {}`,
      `let url = "http://example.com"; after_url(2, "sixth");`,
      `let v = vec!["not", "calls"];`,
    ].join("\n");
    assert.deepEqual(messageCalls(text), [".baz", "a::bar", "after_url", "foo", "parse", "q"]);
  });

  it("reads a message argument as the user sees it", () => {
    const read = (source: string) => readMessageArgument(tokenize(source));
    assert.deepEqual(read(`"plain {x}"`), { message: "plain {x}", parts: [{ lit: "plain {x}" }] });
    assert.deepEqual(read(`"owned".to_string()`), { message: "owned", parts: [{ lit: "owned" }] });
    assert.deepEqual(read(`String::from("from")`), { message: "from", parts: [{ lit: "from" }] });
    assert.deepEqual(read(`&format!("got {} of {n}", k)`), { message: "got {} of {n}", parts: [{ lit: "got " }, { wild: true }, { lit: " of " }, { wild: true }] });
    assert.equal(read(`reason`), null);
    assert.equal(read(`"a" .to_uppercase()`), null);
  });

  it("cuts a template at its message", () => {
    assert.deepEqual(templateParts("a '{*}' {message} {{x}}\n"), { before: [{ lit: "a '" }, { wild: true }, { lit: "' " }], after: [{ lit: " {x}\n" }] });
  });
});

describe("messages held in a let or const", () => {
  const sitesOf = async (text: string) => (await extractFile({ path: "src/lib.rs", blob: "0".repeat(40), text })).sites.map((s) => ({ line: s.line, message: s.message, skip: s.skip, source: s.source }));

  it("reads the literal of the let in scope, not one shadowed or out of its block", async () => {
    const text = [
      "fn a(x: Option<u8>) -> u8 {", // 1
      '    let msg = "outer message";',
      "    {",
      '        let msg = "inner message";',
      "        x.expect(msg);", // 5
      "    }",
      "    x.expect(msg)", // 7
      "}",
      "fn b(x: Option<u8>, msg: &str) -> u8 {",
      "    x.expect(msg)", // 10
      "}",
      "fn c(x: Option<u8>) -> u8 {",
      '    let msg = "first";',
      "    let msg = msg.to_uppercase();",
      "    x.expect(&msg)", // 15
      "}",
    ].join("\n");
    assert.deepEqual(await sitesOf(text), [
      { line: 5, message: "inner message", skip: null, source: { via: "binding", name: "msg", line: 4 } },
      { line: 7, message: "outer message", skip: null, source: { via: "binding", name: "msg", line: 2 } },
      { line: 10, message: null, skip: "dynamic-message", source: undefined },
      { line: 15, message: null, skip: "dynamic-message", source: undefined },
    ]);
  });

  it("reads a binding after `mut`, and a name of letters past ASCII", async () => {
    const text = [
      "fn a(x: Option<u8>) -> u8 {",
      '    let mut msg = "mutable message";',
      "    x.expect(msg)", // 3
      "}",
      'static mut LOUD: &str = "a static mut";',
      'fn b() { panic!("{}", LOUD) }', // 6
      "fn c(x: Option<u8>) -> u8 {",
      '    let é_msg = "accented";',
      "    x.expect(é_msg)", // 9
      "}",
      "fn d(x: Option<u8>) -> u8 {",
      '    let outlet = "not a let";',
      "    x.expect(let_msg)", // 13
      "}",
    ].join("\n");
    assert.deepEqual(await sitesOf(text), [
      { line: 3, message: "mutable message", skip: null, source: { via: "binding", name: "msg", line: 2 } },
      { line: 6, message: "a static mut", skip: null, source: { via: "binding", name: "LOUD", line: 5 } },
      { line: 9, message: "accented", skip: null, source: { via: "binding", name: "é_msg", line: 8 } },
      { line: 13, message: null, skip: "dynamic-message", source: undefined },
    ]);
  });

  it("reads a const of the file, unless two disagree or a parameter hides it", async () => {
    const text = [
      'const GONE: &str = "it is gone";',
      'static TWICE: &str = "once";',
      "mod inner {",
      '    pub const TWICE: &str = "twice";',
      "}",
      'fn a() { panic!("{}", GONE) }', // 6
      'fn b() { panic!("{GONE}") }',
      'fn c() { panic!("{}", TWICE) }',
      'fn d(GONE: &str) { panic!("{}", GONE) }',
      "// const NOTE: &str = \"in a comment\";",
      'fn e() { panic!("{NOTE}") }', // 11
    ].join("\n");
    assert.deepEqual(await sitesOf(text), [
      { line: 6, message: "it is gone", skip: null, source: { via: "binding", name: "GONE", line: 1 } },
      { line: 7, message: "it is gone", skip: null, source: { via: "binding", name: "GONE", line: 1 } },
      { line: 8, message: "{}", skip: "no-distinctive-text", source: undefined },
      { line: 9, message: "{}", skip: "no-distinctive-text", source: undefined },
      { line: 11, message: "{NOTE}", skip: "no-distinctive-text", source: undefined },
    ]);
  });
});

describe("wrappers", () => {
  const wrappersOf = async (text: string) => (await extractFile({ path: "crates/a/src/lib.rs", blob: "0".repeat(40), text })).wrappers ?? [];

  it("are the functions whose text parameter a panic prints, whole or in a placeholder", async () => {
    const text = [
      "pub fn nonzero(v: usize, msg: &str) -> usize { if v == 0 { panic!(\"{}\", msg) } v }",
      "pub fn named<S: AsRef<str>>(what: S, n: i32) { assert!(n > 0, \"{} needs {n}\", what.as_ref()) }",
      "pub fn shown(what: impl std::fmt::Display) { panic!(\"bad {what}\") }",
      "pub fn debug(msg: &str) { panic!(\"{msg:?}\") }",
      "pub fn number(n: usize) { panic!(\"{n} is wrong\") }",
      "pub struct W;",
      "impl W {",
      "    pub fn check(&self, op: &'static str) { assert!(false, \"{op}: failed\"); }",
      "    pub fn make(label: String) -> Self { Option::<Self>::None.expect(&label) }",
      "}",
    ].join("\n");
    const got = (await wrappersOf(text)).map(({ name, method, owner, arity, param, pieces }) => ({ name, method, owner, arity, param, pieces }));
    assert.deepEqual(got, [
      { name: "nonzero", method: false, owner: undefined, arity: 2, param: 1, pieces: [[], []] },
      { name: "named", method: false, owner: undefined, arity: 2, param: 0, pieces: [[], [{ lit: " needs " }, { wild: true }]] },
      { name: "shown", method: false, owner: undefined, arity: 1, param: 0, pieces: [[{ lit: "bad " }], []] },
      { name: "check", method: true, owner: "W", arity: 1, param: 0, pieces: [[], [{ lit: ": failed" }]] },
      // `.expect` prints its text, then `: <Debug>` when the receiver is a Result: optional.
      { name: "make", method: false, owner: "W", arity: 1, param: 0, pieces: [[], [{ optional: [{ lit: ": " }, { wild: true }] }]] },
    ]);
  });

  it("are called by how their definition allows: a free function by name, an impl's through its type", () => {
    const lib = {
      path: "crates/a/src/lib.rs",
      wrappers: [
        { name: "fail", method: false, arity: 1, param: 0, pieces: [[{ lit: "failed: " }], []], line: 1 },
        { name: "from", method: false, owner: "Code", arity: 1, param: 0, pieces: [[{ lit: "bad code " }], []], line: 2 },
      ],
    };
    const sources = new MessageSources([lib]);
    const text = ['fn g() { fail("one"); ops::fail("two"); Thing::fail("three"); Code::from("four"); String::from("five"); }'].join("\n");
    const sites = sources.sitesIn("crates/a/src/user.rs", text, messageCalls(text));
    assert.deepEqual(
      sites.map((s) => [s.kind, s.message, s.source?.name]),
      [
        ["wrapper-call", "failed: one", "fail"],
        ["wrapper-call", "failed: two", "fail"],
        ["wrapper-call", "bad code four", "from"],
      ],
    );
    // Another crate calls it when it names the crate.
    const other = 'use a::fail;\nfn h() { fail("six"); }';
    assert.deepEqual(sources.sitesIn("crates/b/src/lib.rs", other, messageCalls(other)).map((s) => s.message), ["failed: six"]);
    const unrelated = '// not from crate a\nfn h() { fail("seven"); }';
    assert.deepEqual(sources.sitesIn("crates/b/src/lib.rs", unrelated, messageCalls(unrelated)), []);
  });
});
