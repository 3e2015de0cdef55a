/**
 * Partial parsing: by default only the items holding a library site that lends its record facts
 * go to tree-sitter; the rest is read by the lexer (the callers of their functions included). That must give
 * the same sites as parsing everything, and the same facts for every site that can be catalogued,
 * on every Rust fixture, under a library path and under a test path.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type Parser from "tree-sitter";
import { callersOf, callsNamed } from "../pipeline/analyze/facts.js";
import { recordKey } from "../pipeline/build.js";
import { extractFile } from "../pipeline/extract.js";
import { isTestAttribute, KEYWORDS } from "../pipeline/rust/index.js";
import { layoutOf } from "../pipeline/layout.js";
import { parseTree, type Range } from "../pipeline/parse.js";
import type { Site } from "../pipeline/types.js";
import { fixture } from "./helpers/git.js";

const require = createRequire(import.meta.url);

/** tree-sitter's node binding, the oracle the lexer's callers are checked against. */
function bindingParser(): Parser {
  const parser = new (require("tree-sitter") as typeof Parser)();
  parser.setLanguage(require("tree-sitter-rust") as Parser.Language);
  return parser;
}

/** Every `.rs` file under fixtures/, relative to it. */
function rustFixtures(): string[] {
  const root = fixture(".");
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".rs")) out.push(path.relative(root, full));
    }
  };
  walk(root);
  return out.sort();
}

const withoutFacts = ({ facts: _facts, ...rest }: Site) => rest;

describe("partial parsing", () => {
  const files = rustFixtures();

  it("finds the fixtures", () => assert.ok(files.length >= 30, `only ${files.length} Rust fixtures`));

  for (const file of files) {
    it(`gives what a whole parse gives: ${file}`, async () => {
      const text = readFileSync(fixture(file), "utf8");
      for (const filePath of [`src/${path.basename(file)}`, `tests/${path.basename(file)}`]) {
        const input = { path: filePath, blob: "0".repeat(40), text };
        const whole = await extractFile(input, { includeTestCode: true });
        const part = await extractFile(input, { includeTestCode: false });
        assert.deepEqual(part.sites.map(withoutFacts), whole.sites.map(withoutFacts), `${filePath}: sites`);
        assert.deepEqual(part.testModules, whole.testModules, `${filePath}: test modules`);
        const catalogued = (sites: readonly Site[]) => sites.filter((s) => s.context === "library" && recordKey(s) !== null).map((s) => s.facts);
        assert.deepEqual(catalogued(part.sites), catalogued(whole.sites), `${filePath}: facts of library sites`);
      }
    });
  }

  it("hands tree-sitter only the items a library site needs", async () => {
    const text = readFileSync(fixture("extract/items.rs"), "utf8");
    const ranges: (readonly Range[])[] = [];
    const spy = (input: string, included?: readonly Range[]) => {
      ranges.push(included ?? []);
      return parseTree(input, included);
    };
    const result = await extractFile({ path: "src/items.rs", blob: "0".repeat(40), text }, undefined, spy);
    assert.equal(ranges.length, 1, "one parse");
    const parsed = ranges[0]!.map((r) => text.slice(r.startIndex, r.endIndex)).join("");
    for (const item of ["pub fn checked", "fn lifetimes", "pub fn r#match", "macro_rules! ensure", "pub fn after_tests", "pub trait Checked", "mod outer {\n    mod inner {", "pub fn deep", "impl Wrapper\nwhere\n    Wrapper: Sized,\n{", "pub fn always", "pub fn bounded"]) {
      assert.ok(parsed.includes(item), `${item} is parsed`);
    }
    // Test items, and items without a library site, are not (callers of a function holding one
    // included: the lexer reads them); nor are the test items inside the bodies parsed around a
    // library site, nor items whose library sites lend no record facts (a message an earlier
    // site of the file has). A site without a message lends its place's record facts (`bounded`).
    for (const item of ["impl Display for Wrapper", "fn helper", "mod tests", "fn top_level_test", "pub struct Wrapper", "static BRACES", "unsafe impl Send", "extern \"C\"", "fn test_helper", "fn only_in_tests", "pub mod std_only", "pub fn checked_again"]) {
      assert.ok(!parsed.includes(item), `${item} is not parsed`);
    }
    // Their sites are read by the lexer all the same.
    const again = result.sites.filter((s) => s.message === "n is over the limit: {n}");
    assert.deepEqual(again.map((s) => [s.line, s.context, s.facts === null]), [[14, "library", false], [135, "library", true]]);
    assert.ok(result.sites.some((s) => s.line === 130 && s.kind === "assert-eq" && s.context === "library" && s.skip === "no-message"), "the assert_eq! without a message");
    // The caller in `impl Display` is found all the same; those in a `#[cfg(test)] impl` and in
    // `mod tests` are test code, which the facts leave out.
    const checked = result.sites.find((s) => s.message === "n is over the limit: {n}");
    assert.deepEqual(checked?.facts?.callers, ["fmt"]);
  });

  it("parses nothing of a file whose sites are all test code", async () => {
    const text = "#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { panic!(\"boom\"); }\n}\n";
    const part = await extractFile({ path: "src/lib.rs", blob: "0".repeat(40), text });
    assert.equal(part.parsed, false);
    assert.deepEqual(part.sites.map((s) => [s.line, s.context, s.message]), [[4, "test", "boom"]]);
    assert.equal((await extractFile({ path: "tests/it.rs", blob: "0".repeat(40), text: "fn main() { panic!(\"x\") }" })).parsed, false);
  });
});

describe("calls by name in long texts (an index of the words instead of a search per name)", () => {
  it("finds the calls a search per name finds, in every Rust fixture, for every word", () => {
    const edge = [
      "fn f() { g::<T>::g::<U>(); g(); xg(); g2(); r#g(); a.g (); G::g::<Vec<u8>>(1); g :: < T > (); }",
      "fn h() { HashMap::<K, V>::with_capacity::<X>(n); with_capacity(1); éwith_capacity(2); with_capacityé(3); }",
    ];
    let compared = 0;
    for (const text of [...rustFixtures().map((file) => readFileSync(fixture(file), "utf8")), ...edge]) {
      const words = new Set(text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
      for (const name of words) {
        const found = callsNamed(text, name, false);
        assert.deepEqual(callsNamed(text, name, true), found, name);
        compared += found.length;
      }
    }
    assert.ok(compared > 100, `${compared} calls compared`);
    assert.equal(callsNamed(edge[0]!, "g", true).length, 6, "g::<T> (whose tail holds the second g), g(, r#g(, a.g (, G::g::<…>(, g :: < T > (");
  });
});

/**
 * The callers of a function as a whole syntax tree gives them: from each call's name node up,
 * the innermost `function_item` is the caller, unless a node on the way has an attribute that
 * makes it test code among the siblings before it.
 * Note: which attribute makes code test code is the table's `isTestAttribute` (its own tests
 * hold hand-written expectations for every form); what is checked here is that the lexer finds
 * the items and the functions around each call that the tree finds.
 */
function treeCallers(tree: Parser.Tree, text: string, name: string): string[] {
  const isTest = (node: Parser.SyntaxNode) => {
    for (let s = node.previousNamedSibling; s !== null; s = s.previousNamedSibling) {
      if (s.type === "line_comment" || s.type === "block_comment") continue;
      if (s.type !== "attribute_item") return false;
      if (isTestAttribute(s.text, false)) return true;
    }
    return false;
  };
  const found = new Set<string>();
  for (const at of callsNamed(text, name)) {
    if (/\bfn\s+$/.test(text.slice(Math.max(0, at - 8), at))) continue;
    const node = tree.rootNode.descendantForIndex(at, at + name.length);
    if ((node.type !== "identifier" && node.type !== "field_identifier") || node.startIndex !== at) continue;
    let caller: string | null = null;
    for (let a = node.parent; a !== null; a = a.parent) {
      if (caller === null && a.type === "function_item") caller = a.childForFieldName("name")?.text ?? "";
      if (isTest(a)) {
        caller = null;
        break;
      }
    }
    if (caller !== null && caller !== name && caller !== "") found.add(caller);
  }
  return [...found].sort();
}

describe("callers read by the lexer", () => {
  const parser = bindingParser();
  it("are the callers a whole syntax tree gives, for every name called in every Rust fixture", () => {
    let compared = 0;
    let withCallers = 0;
    for (const file of rustFixtures()) {
      const text = readFileSync(fixture(file), "utf8");
      const tree = parser.parse((index: number) => text.slice(index, index + 65536));
      const layout = layoutOf(text, [], isTestAttribute);
      // Every word standing before `(` but keywords (a function, a method, a tuple struct): most are called somewhere.
      const names = new Set([...text.matchAll(/\b([A-Za-z_]\w*)\s*\(/g)].map((m) => m[1]!).filter((w) => !KEYWORDS.has(w)));
      // All names read at once, as extraction reads them, and each alone.
      const together = callersOf(text, layout, names);
      for (const name of names) {
        const expected = treeCallers(tree, text, name);
        assert.deepEqual(together.get(name), expected, `${file}: callers of ${name}`);
        assert.deepEqual(callersOf(text, layout, [name]).get(name), expected, `${file}: callers of ${name} alone`);
        compared++;
        if (expected.length > 0) withCallers++;
      }
    }
    assert.ok(compared > 500 && withCallers > 100, `${compared} names compared, ${withCallers} with callers`);
  });

  it("leave out calls in comments, strings, macro definitions' functions and test code", () => {
    const text = [
      "pub fn target() { panic!(\"x\") }",
      "pub fn plain() { target(); }",
      "pub fn in_text() { // target()\n let s = \"target()\"; }",
      "macro_rules! m { () => { fn generated() { target() } } }",
      "pub fn outer() { vec![target()]; fn inner() { target(); } }",
      "#[cfg(test)]\nmod tests { fn t() { target(); } }",
      "#[test]\nfn a_test() { target(); }",
      "impl S { pub fn method(&self) { self.x.target(); S::target(); } }",
      "#[cfg(test)]\nimpl S { fn in_test_impl(&self) { target(); } }",
      "#[tokio::test]\nasync fn tokio_test() { target(); }",
      "#[cfg_attr(not(test), cfg(test))]\nfn gated_by_cfg_attr() { target(); }",
      "#[cfg(not(not(test)))]\nfn double_negation() { target(); }",
      "#[cfg(all(not(test), unix))]\nfn unix_library() { target(); }",
      "#[cfg(any(test, feature = \"x\"))]\nfn any_test() { target(); }",
      "#[cfg(all(feature = \"test\"))]\nfn feature_named_test() { target(); }",
      "#[cfg_attr(test, test)]\nfn sometimes_a_test() { target(); }",
    ].join("\n");
    const layout = layoutOf(text, [], isTestAttribute);
    const expected = ["any_test", "feature_named_test", "inner", "method", "outer", "plain", "sometimes_a_test", "unix_library"];
    assert.deepEqual(callersOf(text, layout, ["target"]).get("target"), expected);
    const tree = parser.parse(text);
    assert.deepEqual(treeCallers(tree, text, "target"), expected);
  });
});
