/**
 * The symbol index, its entry points, the docs' words and the reproductions, on a small crate
 * written for them (fixtures/symbols/tree, whose tests `cargo test` passes): a public method that
 * calls a private check through a `macro_rules!` macro, a public method that reaches a
 * `pub(crate)` check through a private helper, a `pub(crate)` function and method that must not
 * be entry points, a `pub fn` of a private type (neither), a function re-exported from a private module that reaches its panic through a
 * macro, `# Panics` sections, a doc test and two `#[should_panic]` tests. Expectations by hand.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import { run } from "../pipeline/run.js";
import type { Envelope } from "../pipeline/schema-types.generated.js";
import { indexFile, parseDoc } from "../pipeline/symbols/file.js";
import { tokenize } from "../pipeline/tokens.js";
import { readVersion } from "../pipeline/write.js";
import { writeConfig } from "./helpers/config.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";
import { findRustc } from "./helpers/rustc.js";

const NOW = new Date("2026-01-02T03:04:05.000Z");

describe("indexFile", () => {
  it("reads owners, visibility, receivers, docs and calls, macro arguments included", () => {
    const text = [
      "use crate::check::{Check as C, narrow};",
      "pub struct T;",
      "impl T {",
      "    /// Narrows.",
      "    ///",
      "    /// # Panics",
      "    /// If out of range.",
      "    #[inline]",
      "    pub fn narrow(&self, n: usize) {",
      "        check!(C::narrow(n));",
      "        self.go();",
      "        Self::make();",
      "        narrow(n);",
      "    }",
      "    pub(crate) fn go(&self) {}",
      "}",
      "impl Display for T {",
      "    fn fmt(&self, f: &mut Formatter) -> Result { x.fmt(f) }",
      "}",
      "trait Shape {",
      "    fn dims(&self) -> usize { 0 }",
      "}",
    ].join("\n");
    const s = indexFile(text);
    const fns = s.functions.map((f) => [f.name, f.owner, f.trait, f.visibility, f.receiver, f.line, f.endLine]);
    assert.deepEqual(fns, [
      ["narrow", "T", null, "pub", true, 9, 14],
      ["go", "T", null, "pub(crate)", true, 15, 15],
      ["fmt", "T", "Display", null, true, 18, 18],
      ["dims", "Shape", "Shape", null, true, 21, 21],
    ]);
    const narrow = s.functions[0]!;
    assert.deepEqual(narrow.doc, { summary: "Narrows.", panics: "If out of range." });
    assert.deepEqual(narrow.calls, ["check!", "Check::narrow", "self.go", "T::make", "narrow"]);
    assert.deepEqual(s.uses, [["C", "crate::check::Check"], ["narrow", "crate::check::narrow"]]);
    assert.deepEqual(s.types, [["T", true], ["Shape", false]]);
  });

  it("reads the variants a function builds, not those a pattern or a comparison names, and an impl's type past a reference's lifetime", () => {
    const text = [
      "use crate::errors::StoreError as SE;",
      "impl E {",
      "    fn make(x: u8) -> Result<(), E> {",
      "        if x == 0 { return Err(E::Io(x)); }",
      "        if x == 1 { return Err(Self::Bad { at: x }); }",
      "        match x { 2 => Err(SE::Missing), _ => Ok(()) }",
      "    }",
      "    fn read(e: &E) -> bool {",
      "        match e { E::Io(_) | E::Gone => true, Err(E::Bad { .. }) => false }",
      "    }",
      "    fn test(e: &E) -> bool { matches!(e, E::Gone) || *e == E::Gone || f32::MAX > 0.0 }",
      "    fn lets(e: E) { let E::Io(x) = e else { return }; if let Err(E::Bad { at }) = r() {} }",
      "}",
      "impl<'de, 'a> Deserializer<'de> for &'a mut RowDeserializer<'a> {",
      "    fn deserialize_any(self) {}",
      "}",
    ].join("\n");
    const s = indexFile(text);
    assert.deepEqual(s.functions.map((f) => [f.owner, f.name, f.makes ?? []]), [
      ["E", "make", ["E::Io", "E::Bad", "StoreError::Missing"]],
      ["E", "read", []],
      ["E", "test", []],
      ["E", "lets", []],
      ["RowDeserializer", "deserialize_any", []],
    ]);
  });

  it("reads the parameters a call hands on, and a method's answer on one with no argument as that expression", () => {
    const text = [
      "impl Tensor {",
      "    pub fn narrow(&self, dim: usize, len: usize) {",
      "        Check::narrow(&self.shape(), dim.clone(), len, dim.min(3), self.at(len));",
      "    }",
      "}",
    ].join("\n");
    assert.deepEqual(indexFile(text).functions[0]!.passes, [["Check::narrow", 0, "self.shape()"], ["Check::narrow", 1, "dim"], ["Check::narrow", 2, "len"], ["self.at", 0, "len"]]);
  });

  it("reads how a function uses each callee's result: ?, map_err then ?, returned, unwrap, expect; none where two calls differ", () => {
    const text = [
      "impl Store {",
      "    pub fn load(&mut self, path: &Path) -> Result<Record, Error> {",
      "        let bytes = read_all(path).await?;",
      "        let header = Header::parse::<u8>(&bytes).map_err(Error::from)?;",
      "        self.check(&header).unwrap();",
      "        self.verify(&header).expect(\"verified\");",
      "        let a = mixed(1)?;",
      "        let b = mixed(2);",
      "        if a { return early(b); }",
      "        Self::assemble(header, bytes)",
      "    }",
      "    fn tail(&self) -> Result<(), Error> { x + last(1) }",
      "}",
    ].join("\n");
    const [load, tail] = indexFile(text).functions;
    // Note: an `or` and a match arm's `|` are no closures: the uses after them are still the function's.
    const ors = indexFile(["fn g(a: bool, b: bool, k: Kind) -> Result<u8, E> {", "    if a || b { first()?; }", "    let n = match k { Kind::A | Kind::B => second()?, _ => 0 };", "    Ok(third(n)?)", "}"].join("\n")).functions[0]!;
    // Note: `map`, `and_then`, `inspect_err` hand an error on as it is: the use is what follows them.
    const kept = indexFile(["fn h(&self) -> Result<M, String> {", "    let a = first().map(|x| x + 1)?;", "    second().inspect_err(|e| log(e)).and_then(check).unwrap();", "    let c = third().ok();", "    let d = fourth().unwrap_or(0);", "    self.build().map(|s| s.into())", "}"].join("\n")).functions[0]!;
    assert.deepEqual(new Map(kept.uses), new Map<string, string>([["first", "?"], ["second", "unwrap"], [".inspect_err", "unwrap"], [".and_then", "unwrap"], ["third", "discard"], ["fourth", "discard"], ["self.build", "return"]]));
    // `is_ok()`, `ok()`, `unwrap_or…` and `let _ =` drop the error: it goes no further.
    const dropped = indexFile(["fn d() -> bool {", "    let _ = first(1);", "    let x = second().is_err();", "    third().unwrap_or_default();", "    x", "}"].join("\n")).functions[0]!;
    assert.deepEqual(new Map(dropped.uses), new Map<string, string>([["first", "discard"], ["second", "discard"], ["third", "discard"]]));
    assert.deepEqual(new Map(ors.uses), new Map<string, string>([["first", "?"], ["second", "?"], ["third", "?"]]));
    assert.deepEqual(new Map(load!.uses), new Map<string, string>([["read_all", "?"], ["Header::parse", "map_err"], [".map_err", "?"], ["self.check", "unwrap"], ["self.verify", "expect"], ["early", "return"], ["Store::assemble", "return"]]));
    // Note: `last(1)` closes the body, but its value is added to, not returned as it is.
    assert.equal(tail!.uses, undefined);
  });

  it("reads a call with a const block in its turbofish, inside a macro's arguments", () => {
    const text = ["impl<const D: usize> Tensor<D> {", "    pub fn triu(self) -> Self {", "        check!(TensorCheck::tri::<{ D }>());", "        self", "    }", "}"].join("\n");
    assert.deepEqual(indexFile(text).functions[0]!.calls, ["check!", "TensorCheck::tri"]);
  });

  it("reads how users invoke a proc macro: a derive's name and helper attributes, an attribute, a function-like macro", () => {
    const text = [
      "#[proc_macro_derive(Deserialize, attributes(serde))]",
      "pub fn derive_deserialize(input: TokenStream) -> TokenStream { expand(input) }",
      "/// The runtime's entry.",
      "#[proc_macro_attribute]",
      "pub fn main(args: TokenStream, item: TokenStream) -> TokenStream { item }",
      "#[proc_macro]",
      "pub fn select(input: TokenStream) -> TokenStream { input }",
      "pub fn plain() {}",
    ].join("\n");
    assert.deepEqual(indexFile(text).functions.map((f) => [f.name, f.procMacro]), [["derive_deserialize", ["derive", "Deserialize", "serde"]], ["main", ["attribute"]], ["select", ["function"]], ["plain", undefined]]);
    assert.equal(indexFile(text).functions[1]!.doc?.summary, "The runtime's entry.");
  });

  it("reads the structs a function builds, by a plain or a module path, not a type, a declaration, a pattern or the prelude's variants", () => {
    const text = [
      "impl Recv {",
      "    fn poll(&self) -> Result<(), RecvError> {",
      "        if self.closed { return Err(RecvError(())); }",
      "        let e = error::SendError { kind: 1 };",
      "        Ok(Self(3))",
      "    }",
      "    fn new() -> Recv { Recv }",
      "    fn read(e: Event) -> Option<u8> {",
      "        let Event(x) = e;",
      "        match e { Event(1) => Some(1), Closed { .. } => None, _ => None }",
      "    }",
      "    fn same(a: Wrap) -> bool { a == Wrap(1) || matches!(a, Wrap(_)) }",
      "}",
      "struct Pair(u8, u8);",
    ].join("\n");
    assert.deepEqual(indexFile(text).functions.map((f) => [f.name, f.makes ?? []]), [
      ["poll", ["RecvError", "SendError", "Recv"]],
      ["new", []],
      ["read", []],
      ["same", []],
    ]);
  });

  it("reads should_panic tests, macro bodies' calls and module declarations", () => {
    const text = [
      "pub mod api;",
      "mod private;",
      "#[cfg(test)]",
      "mod tests;",
      "pub use private::f;",
      "macro_rules! go { ($x:expr) => { inner($x) }; }",
      "#[test]",
      '#[should_panic(expected = "too \\"big\\"")]',
      "fn big() { go!(1); }",
    ].join("\n");
    const s = indexFile(text);
    assert.deepEqual(s.modules, [["api", true], ["private", false]]);
    assert.deepEqual(s.reexports, ["private::f"]);
    assert.deepEqual(s.macros, [{ name: "go", line: 6, calls: ["inner"] }]);
    const big = s.functions[0]!;
    assert.equal(big.test, true);
    assert.equal(big.expected, 'too "big"');
    assert.equal(big.body, "fn big() { go!(1); }");
  });

  it("joins the doc lines around attributes, names an alias's callee by its path's last segment, and keeps each callee once", () => {
    const text = [
      "use a::b::Inner as Alias;",
      "/// First line.",
      "#[inline]",
      "/// Second line.",
      "//// not a doc line",
      "#[must_use]",
      "pub fn f() {",
      "    Alias::make();",
      "    g();",
      "    Alias::make();",
      "    g();",
      "    If(1);",
      "}",
    ].join("\n");
    const f = indexFile(text).functions[0]!;
    assert.deepEqual(f.doc, { summary: "First line. Second line.", panics: null });
    assert.deepEqual(f.calls, ["Inner::make", "g"]);
    assert.deepEqual(indexFile(text, tokenize(text)), indexFile(text), "the same read from tokens handed in");
  });

  it("takes a doc comment's first paragraph, its further prose and # Arguments, and its # Panics section up to the next heading", () => {
    assert.deepEqual(parseDoc("Sums.\nTwo lines.\n\nMore.\n```\nlet x = 1;\n```\nAnd more.\n\n# Panics\n\n- If empty.\n\n# Arguments\n\n* `xs` - the values.\n\n# Examples\n\n```should_panic\nsum(&[]);\n```"), {
      summary: "Sums. Two lines.",
      panics: "- If empty.",
      example: "sum(&[]);",
      details: "More. And more. Arguments: * `xs` - the values.",
    });
  });

  it("cuts a doc comment's further prose after a sentence, and leaves it out when there is none", () => {
    const long = `First.\n\n${"A sentence of the docs. ".repeat(40)}`;
    const details = parseDoc(long)!.details!;
    assert.ok(details.length <= 601 && details.endsWith(".…"), details);
    assert.equal(parseDoc("Only a summary.\n\n# Panics\n\nIf empty.")!.details, undefined);
  });
});

/**
 * The records of a run on the fixture crate `fixtures/symbols/<name>` (made before the suite's
 * tests): all of them, and the one whose message opens with a text.
 */
function fixtureRecords(name: string, repoName: string): { byMessage: (message: string) => Envelope; records: () => readonly Envelope[] } {
  let envelopes: Envelope[] = [];
  before(async () => {
    const repo = makeRepo([fixture("symbols", name)]);
    const config = writeConfig(repo.dir, repo.shas[0]!, { targets: [{ repo: repoName, url: repo.dir, sha: repo.shas[0]! }] });
    const result = await run({ configPath: config, now: () => NOW });
    envelopes = [...(await readVersion(result.dir)).envelopes];
  });
  const byMessage = (message: string): Envelope => {
    const e = envelopes.find((x) => x.record.errorMessage.startsWith(message));
    assert.ok(e, `a record of ${message}`);
    return e;
  };
  return { byMessage, records: () => envelopes };
}

describe("entry points, docs and reproductions of a fixture crate", () => {
  const { byMessage, records } = fixtureRecords("tree", "example/mini");

  it("takes a trait's method implemented in a private module as public: the impl applies wherever the type is", () => {
    const e = byMessage("the length of a tensor is not kept");
    assert.deepEqual(e.facts!.entryPoints!.map((p) => [p.path, p.confidence]), [["crates/mini/src/check.rs", "self"]]);
  });

  it("keeps the methods of an impl of a pub(crate) trait in the crate", () => {
    const e = byMessage("a kernel launched outside the crate");
    assert.deepEqual(e.facts!.entryPoints, []);
    assert.doesNotMatch(e.record.triggerScenarios ?? "", /Users call/);
    const impl = byMessage("the length of a tensor is not kept");
    assert.match(impl.record.triggerScenarios ?? "", /Users call `Tensor::length` itself, through `impl crate::api::Length for crate::api::Tensor`: a trait's methods are callable wherever the type and the trait are/);
  });

  it("quotes an entry point's # Panics where it speaks of the site, and not for another panic it reaches", () => {
    const checked = byMessage("pad width must be positive");
    assert.match(checked.record.triggerScenarios ?? "", /The docs of `Tensor::pad` say under “# Panics”: “If `width` is zero\.”/);
    const missing = byMessage("not implemented");
    assert.equal(missing.facts!.entryPoints?.[0]?.symbol, "Tensor::pad");
    // Note: the unit test `pad_in_unknown_mode` reaches it by calling the private `pad_in_mode` through `super::`: no user can write that, so it is no example's "before".
    assert.ok(missing.reproductions!.some((r) => r.name === "pad_in_unknown_mode"), JSON.stringify(missing.reproductions));
    assert.doesNotMatch(missing.record.exampleFix ?? "", /pad_in_unknown_mode/);
    assert.doesNotMatch(missing.record.triggerScenarios ?? "", /# Panics/);
  });

  it("names, for a variant's Display text, the function that builds it and the public method that reaches that function", () => {
    const e = byMessage("slice end {end} is past the tensor's length {len}");
    assert.equal(e.record.errorClass, "SliceError::OutOfRange");
    assert.deepEqual(e.facts!.madeIn, [{ symbol: "bounds", path: "crates/mini/src/api.rs", line: 116, entryPoints: ["Tensor::slice"] }]);
    assert.match(e.record.triggerScenarios ?? "", /The symbol index finds it built in `bounds` \(`crates\/mini\/src\/api\.rs:116`\); users reach it through `Tensor::slice`\. Whether what is built there is returned to the caller unchanged \(or built inside a closure that runs later\) is not worked out here\./);
    assert.match(e.record.solutions[0]!, /^Handle the error at your call of `Tensor::slice`, which reaches code that builds it/);
    // Note: the `match` arms of `fmt` name both variants (one as `Self::Empty`) as patterns only: `bounds` alone builds them.
    assert.deepEqual(byMessage("a slice of no elements was asked for").facts!.madeIn?.map((m) => m.symbol), ["bounds"]);
  });

  it("names the errors a panic formats, and on those errors the panics that format them", () => {
    const at = (line: number) => {
      const e = records().find((x) => x.record.filePath === "crates/mini/src/clock.rs" && x.record.lineNumber === line);
      assert.ok(e, `a record at clock.rs:${line}`);
      return e;
    };
    // A method's error, taken by `if let Err(msg)`: the error `Clock::step` returns in its own body.
    const tick = at(27);
    assert.deepEqual(tick.facts!.forwards, { binding: "msg", call: "self.step()", through: "call", functions: [{ symbol: "Clock::step", path: "crates/mini/src/clock.rs", line: 13, confidence: "resolved" }], errors: [{ id: byMessage("the clock is not frozen").record.id, message: "the clock is not frozen", path: "crates/mini/src/clock.rs", line: 15 }] });
    assert.equal(tick.record.handlingStrategy, "handle-error");
    assert.match(tick.record.solutions[0]!, /^The text printed is the error's own: "the clock is not frozen" is catalogued as an error of its own/);
    // A closure's error, taken by its caller's `Err(msg)` arm: the errors of the closures passed to `with_clock`.
    const withClock = at(39);
    assert.equal(withClock.facts!.forwards?.through, "parameter");
    assert.deepEqual(withClock.facts!.forwards?.errors.map((e) => [e.message, e.line]), [["time is not paused", 53]]);
    // The other side: the closure's error reaches users only as that panic; the method's may be handled by other callers.
    const paused = byMessage("time is not paused");
    assert.deepEqual(paused.facts!.panickedWith, [{ id: withClock.record.id, symbol: "with_clock", path: "crates/mini/src/clock.rs", line: 39, every: true }]);
    assert.match(paused.record.documentation ?? "", /It does not reach users as a value: `with_clock`, which gets it, panics with its text on every error it gets/);
    assert.doesNotMatch(paused.record.documentation ?? "", /It is an error value/);
    assert.match(paused.record.solutions[0]!, /^It reaches your code as a panic of `with_clock`, not as a `Result`.* when you call `resume`/);
    const frozen = byMessage("the clock is not frozen");
    assert.deepEqual(frozen.facts!.panickedWith?.map((p) => [p.symbol, p.every]), [["Clock::tick", false]]);
    // `Clock::tick` returns nothing: the error cannot come back through it as a value.
    assert.match(frozen.record.solutions[0]!, /^`Clock::tick` reaches `step` but returns no `Result`: the error does not come back to you through it as a value/);
  });

  it("forwards what Rust prints: the panics' texts are the errors named", { skip: findRustc().ok ? false : "rustc is not installed" }, () => {
    const dir = tempDir("error-catalog-clock-");
    try {
      // Note: the fixture's module as it is, called from a program that prints each panic's text.
      const src = path.join(dir, "main.rs");
      writeFileSync(src, `#[path = ${JSON.stringify(fixture("symbols", "tree", "crates", "mini", "src", "clock.rs"))}]\nmod clock;\nfn main() {\n    std::panic::set_hook(Box::new(|info| eprintln!("<{}>", info.payload().downcast_ref::<String>().cloned().or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default())));\n    let _ = std::panic::catch_unwind(|| clock::resume());\n    let _ = std::panic::catch_unwind(|| clock::Clock::new(false).tick());\n}\n`);
      const bin = path.join(dir, "main");
      const compiled = spawnSync("rustc", ["--edition", "2021", "-A", "warnings", "-o", bin, src], { encoding: "utf8" });
      assert.equal(compiled.status, 0, compiled.stderr);
      const printed = [...spawnSync(bin, { encoding: "utf8" }).stderr.matchAll(/<([^>]*)>/g)].map((m) => m[1]);
      const forwarded = (line: number) => records().find((x) => x.record.filePath === "crates/mini/src/clock.rs" && x.record.lineNumber === line)!.facts!.forwards!.errors.map((e) => e.message);
      assert.deepEqual(printed, [...forwarded(39), ...forwarded(27)]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names, for a struct's Display text, the function that builds it", () => {
    const e = byMessage("stepped {} times too far");
    assert.equal(e.record.errorClass, "StepError");
    assert.deepEqual(e.facts!.madeIn, [{ symbol: "Clock::try_step", path: "crates/mini/src/clock.rs", line: 69, entryPoints: ["Clock::try_step"] }]);
    assert.match(e.record.solutions[0]!, /^Handle the error at your call of `Clock::try_step`/);
  });

  it("writes no guard that calls a function users cannot call", () => {
    const e = byMessage("length {n} is past the limit");
    assert.deepEqual(e.facts!.privateCalls, ["too_long"]);
    assert.equal(e.record.typeGuard, null);
    assert.equal(e.record.validationCode, null);
  });

  it("reaches a pub(crate) check through a private helper from the public method only", () => {
    const e = byMessage("rank must be positive");
    assert.deepEqual(e.facts!.entryPoints, [{ symbol: "Tensor::reshape", path: "crates/mini/src/api.rs", line: 29, via: ["Tensor::reshape", "helper", "Check::rank"], confidence: "resolved", carries: [["rank", "rank"]] }]);
    assert.deepEqual(e.facts!.docs, [
      { symbol: "Check::rank", of: "function", summary: "Checks a rank.", panics: null },
      { symbol: "Tensor::reshape", of: "entry-point", summary: "Reshapes the tensor to `rank` dimensions.", panics: null },
    ]);
    assert.match(e.record.documentation ?? "", /The docs of `Check::rank` say: “Checks a rank\.”( |$)/);
    assert.match(e.record.triggerScenarios ?? "", /The repository's `#\[should_panic\]` test `reshape_to_zero` \(`crates\/mini\/src\/api\.rs:75`\) reaches this site through the calls above and expects a message its pattern accepts\./);
    assert.match(e.record.triggerScenarios ?? "", /Users reach it through `Tensor::reshape` \(`Tensor::reshape → helper → Check::rank`/);
    assert.doesNotMatch(JSON.stringify([e.facts!.entryPoints, e.facts!.docs]), /crate_only|internal/);
    // The callers are the calls the index resolves (api.rs: `helper`, `crate_only` and `Tensor::internal` call `Check::rank`), not the file's name matches.
    assert.deepEqual(e.facts!.callers, ["Tensor::internal", "crate_only", "helper"]);
    const [first, ...rest] = e.reproductions!;
    assert.deepEqual({ ...first, permalink: undefined }, { path: "crates/mini/src/api.rs", line: 75, name: "reshape_to_zero", permalink: undefined, expected: "rank must be positive", how: "should-panic-reached", via: ["reshape_to_zero", "Tensor::reshape", "helper", "Check::rank"] });
    assert.match(first!.permalink, /\/blob\/[0-9a-f]{40}\/crates\/mini\/src\/api\.rs#L75$/);
    assert.deepEqual(rest, []);
    assert.match(e.record.exampleFix ?? "", /^\/\/ before: the repository's test `reshape_to_zero`[^\n]*\nfn reshape_to_zero\(\) \{\n    let tensor = Tensor::new\(3\);\n    tensor\.reshape\(0\);\n\}/);
  });

  it("counts a call in a macro's body for the macro's invocations, and quotes the entry point's # Panics", () => {
    const e = byMessage("check failed: ");
    assert.deepEqual(e.facts!.entryPoints, [{ symbol: "Tensor::narrow", path: "crates/mini/src/api.rs", line: 18, via: ["Tensor::narrow", "check!"], confidence: "resolved" }]);
    assert.deepEqual(e.facts!.docs?.map((d) => [d.symbol, d.of, d.panics]), [["Tensor::narrow", "entry-point", "If `at` is past the end of the tensor."]]);
    assert.match(e.record.triggerScenarios ?? "", /The docs of `Tensor::narrow` say under “# Panics”: “If `at` is past the end of the tensor\.”/);
    assert.deepEqual(e.reproductions?.map((r) => [r.name, r.how, r.line]), [["Tensor::narrow", "doc-test", 18]]);
  });

  it("reaches a function re-exported from a private module, through a macro, and links the test that calls it by the crate's path", () => {
    const e = byMessage("heads must be even");
    assert.deepEqual(e.facts!.entryPoints, [{ symbol: "attention", path: "crates/mini/src/kernels.rs", line: 8, via: ["attention", "dispatch!", "attention_impl"], confidence: "resolved" }]);
    assert.deepEqual(e.reproductions?.map((r) => [r.path, r.name, r.how, r.via]), [["crates/mini/tests/attention.rs", "odd_heads", "should-panic-reached", ["odd_heads", "attention", "dispatch!", "attention_impl"]]]);
  });
});

describe("checks a path makes first and where a returned error goes, on a fixture crate (fixtures/symbols/paths, which rustc compiles)", () => {
  const { byMessage, records } = fixtureRecords("paths", "example/ways");

  it("takes an entry point's own assertion before its call as a check made first, not a debug assertion nor one in another arm", () => {
    const e = byMessage("reduce: no values");
    const firsts = (symbol: string) => e.facts!.entryPoints!.find((p) => p.symbol === symbol)?.checksFirst ?? [];
    assert.deepEqual(firsts("max"), [{ caller: "max", callee: "max", before: "reduce", message: "max: cannot reduce an empty slice" }]);
    assert.deepEqual(firsts("pick"), []);
    assert.match(e.record.triggerScenarios ?? "", /On the way, `max` checks with a panic of its own on a line before its first call of `reduce` \(“max: cannot reduce an empty slice”\)/);
    assert.doesNotMatch(e.record.triggerScenarios ?? "", /debug build|pick: needs two values/);
  });

  it("counts the other records of a text several sites print, and says the panicked-at line tells them apart", () => {
    const both = records().filter((e) => e.record.errorMessage === "internal error: entered unreachable code");
    assert.equal(both.length, 2);
    for (const e of both) {
      assert.equal(e.facts!.sharedText, 1);
      assert.ok((e.record.documentation ?? "").includes(`One other catalogued record has this same text: the \`panicked at <file>:<line>:<column>\` line Rust prints above the message tells which site it was (this record's is \`crates/ways/src/lib.rs:${e.record.lineNumber}\`, a path of the repository: under a cargo registry or git checkout it starts at the crate's own folder).`), e.record.documentation ?? "");
    }
    assert.equal(byMessage("max: cannot reduce an empty slice").facts!.sharedText, undefined);
  });

  it("writes no guard that reads a field users cannot read (pub(crate)), and one that reads a pub field", () => {
    const hidden = byMessage("rank must be 2");
    assert.deepEqual(hidden.facts!.privateFields, ["t.rank"]);
    assert.equal(hidden.record.validationCode, null);
    assert.equal(hidden.record.typeGuard, null);
    const open = byMessage("len must be positive");
    assert.equal(open.facts!.privateFields, undefined);
    assert.match(open.record.validationCode ?? "", /t\.len > 0/);
  });

  it("counts a ? in the function's body as an exit before the site, and not one in a closure", () => {
    assert.equal(byMessage("total: no values").facts!.exitBeforePath, false);
    assert.equal(byMessage("first: zero").facts!.exitBeforePath, true);
  });

  it("says of a #[track_caller] function's panic that the panicked-at line names the caller's line", () => {
    const e = byMessage("index {i} is past the end");
    assert.equal(e.facts!.trackCaller, true);
    assert.match(e.record.documentation ?? "", /`at` is `#\[track_caller\]`: the `panicked at` line Rust prints names the line of the call of it, not this one\./);
    assert.equal(byMessage("max: cannot reduce an empty slice").facts!.trackCaller, undefined);
    // Note: a closure is a function of its own: the attribute does not reach its panic, reported at the site.
    assert.equal(byMessage("nonzero: a value is zero").facts!.trackCaller, undefined);
    assert.doesNotMatch(byMessage("nonzero: a value is zero").record.documentation ?? "", /track_caller/);
  });

  it("follows a returned error through Result::map, and quotes the entry point's # Errors section", () => {
    const e = byMessage("schedule: step must be greater than 0");
    assert.deepEqual(e.facts!.entryPoints!.map((p) => [p.symbol, p.errorPath]), [["Schedule::init", ["return"]]]);
    assert.deepEqual(e.facts!.docs?.filter((d) => d.of === "entry-point").map((d) => [d.symbol, d.errors]), [["Schedule::init", "An error is returned if `step` is 0."]]);
    assert.match(e.record.triggerScenarios ?? "", /The docs of `Schedule::init` say under “# Errors”: “An error is returned if `step` is 0\.”/);
    assert.match(e.record.solutions.join("\n"), /It comes back to you in the `Result` of `Schedule::init`/);
  });

  it("reads an expect's receiver on a field of self by the type its struct declares", () => {
    const e = byMessage("slot: already taken");
    assert.equal(e.facts!.receiverField, "value");
    assert.equal(e.facts!.receiverReturns, "option");
    assert.match(e.record.documentation ?? "", /holds no value \(None\) \(its struct declares `value` an Option\)/);
  });

  it("says an error a caller drops (is_ok) does not come back, with no advice to handle it", () => {
    const e = byMessage("count: empty text");
    assert.deepEqual(e.facts!.entryPoints!.map((p) => [p.symbol, p.errorPath]), [["is_count", ["discard"]]]);
    const solutions = e.record.solutions.join("\n");
    assert.match(solutions, /Through `is_count` it does not come back to you: `is_count` drops or handles it/);
    assert.doesNotMatch(solutions, /Handle the error at your call/);
  });

  it("names no entry point that returns nothing as where a variant's text comes back (a Drop::drop)", () => {
    const e = byMessage("pull: nothing left after {n} pulls");
    assert.deepEqual(e.facts!.madeIn?.map((m) => [m.symbol, m.entryPoints]), [["Queue::pull", ["Queue::pull"]]]);
    assert.doesNotMatch(e.record.solutions.join("\n"), /Queue::drop/);
    // The variant's doc comment says what the error means, in the crate's words.
    assert.deepEqual(e.facts!.docs?.filter((d) => d.of === "variant"), [{ symbol: "PullError::Empty", of: "variant", summary: "Nothing was left, after this many pulls.", panics: null }]);
    assert.match(e.record.documentation ?? "", /The docs of the variant `PullError::Empty` say: “Nothing was left, after this many pulls\.”/);
  });

  it("reads each entry point's way up: passed on with ?, ended by an expect, unread in a closure", () => {
    const e = byMessage("empty input");
    const path = (symbol: string) => e.facts!.entryPoints!.find((p) => p.symbol === symbol)?.errorPath;
    assert.deepEqual(path("load"), ["?"]);
    assert.deepEqual(path("load_or_panic"), ["expect"]);
    assert.equal(path("load_each"), undefined);
    const solutions = e.record.solutions.join("\n");
    assert.match(solutions, /It comes back to you in the `Result` of `load`, as the index reads the calls \(`load` → `read\(…\)\?`\)/);
    assert.match(solutions, /Through `load_or_panic` it does not come back to you as a value .*the `expect\(…\)` in `load_or_panic` turns it into a panic/);
    assert.match(solutions, /Handle the error at your call of `load_each`, which reaches `read` \(whether it passes the error on as it is/);
  });
});
