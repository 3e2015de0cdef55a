/**
 * The lexer pass (`layoutOf`, native/src/layout.c) on texts written to reach each of its rules:
 * identifiers past ASCII (the Unicode classes it is handed on first need), char and byte
 * literals, lifetimes, raw strings and identifiers, nested comments, attributes and macros.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { isTestAttribute } from "../pipeline/extract.js";
import { type Hit, layoutOf } from "../pipeline/layout.js";

/** Hits for every occurrence of `name` (a macro's when followed by `!`). */
function hitsOf(text: string, name: string): Hit[] {
  return [...text.matchAll(new RegExp(`(?<![\\w])${name}(?![\\w])`, "g"))].map((m) => ({ at: m.index, name, macro: text[m.index + name.length] === "!" }));
}

/** Each hit as [line, code, functions, excluded, inTokenTree]. */
function spotsOf(text: string, name = "panic") {
  const line = (at: number) => text.slice(0, at).split("\n").length;
  return layoutOf(text, hitsOf(text, name), isTestAttribute).spots.map((s) => [line(s.at), s.code, s.functions, s.excluded, s.inTokenTree]);
}

describe("the lexer pass", () => {
  it("reads identifiers past ASCII as identifiers, and other characters as punctuation", () => {
    const text = ["fn é() { panic!(\"a\") }", "fn ĉu_ŝ() { panic!(\"b\") }", "fn ok() { let x = 1 × 2; panic!(\"c\") }", "fn 名前() { panic!(\"d\") }"].join("\n");
    assert.deepEqual(spotsOf(text), [
      [1, true, ["é"], false, false],
      [2, true, ["ĉu_ŝ"], false, false],
      [3, true, ["ok"], false, false],
      [4, true, ["名前"], false, false],
    ]);
  });

  it("skips char and byte literals, lifetimes, strings and comments", () => {
    const text = [
      "fn a<'p>(x: &'p str) { let c = '\"'; let b = b'\"'; let e = '\\u{1F600}'; panic!(\"a\") }",
      "fn b() { let s = r#\"panic!(\"no\")\"#; let t = \"panic!\\\" no\"; panic!(\"b\") }",
      "fn c() { /* outer /* panic!(\"no\") */ still */ // panic!(\"no\")\n panic!(\"c\") }",
      "fn d() { let z = 'ŝ'; let q = '\\x41'; panic!(\"d\") }",
    ].join("\n");
    assert.deepEqual(
      spotsOf(text).filter((s) => s[1]),
      [
        [1, true, ["a"], false, false],
        [2, true, ["b"], false, false],
        [4, true, ["c"], false, false],
        [5, true, ["d"], false, false],
      ],
    );
    assert.equal(spotsOf(text).length, 8, "the hits in strings and comments are kept, as not code");
  });

  it("tells attributes, macro bodies and token trees apart", () => {
    const text = [
      "#[doc = \"panic\"]",
      "fn a() { vec![panic!(\"in a token tree\")]; }",
      "macro_rules! m { (panic) => { panic!(\"in a definition\") }; }", // the matcher: excluded; both inside the definition
      "fn r#match() { panic!(\"raw name\") }",
    ].join("\n");
    assert.deepEqual(
      layoutOf(text, hitsOf(text, "panic"), isTestAttribute).spots.map((s) => [s.code, s.excluded, s.inTokenTree, s.functions]),
      [
        [false, false, false, []],
        [true, false, true, ["a"]],
        [true, true, true, []],
        [true, false, true, []],
        [true, false, false, ["r#match"]],
      ],
    );
  });

  it("lays out items, bodies and test attributes", () => {
    const text = "#![allow(dead_code)]\nmod m {\n    pub fn f() {}\n    #[cfg(test)]\n    mod tests {}\n}\nimpl S { fn g() {} }\n";
    const layout = layoutOf(text, [], isTestAttribute);
    assert.equal(layout.innerTest, false);
    assert.deepEqual(
      layout.items.map((i) => [i.keyword, i.test, i.body?.items.map((b) => [b.keyword, b.test, text.slice(b.start, b.end).trim()])]),
      [
        ["mod", false, [["fn", false, "pub fn f() {}"], ["mod", true, "#[cfg(test)]\n    mod tests {}"]]],
        ["impl", false, [["fn", false, "fn g() {}"]]],
      ],
    );
    assert.equal(layout.preludeEnd, text.indexOf("mod m"));
    assert.equal(layoutOf("#![cfg(test)]\nfn t() {}", [], isTestAttribute).innerTest, true);
  });
});
