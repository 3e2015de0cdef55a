/**
 * The lexer pass (`layoutOf`), both ways: the addon's (native/src/layout.c) and the plain one
 * (pipeline/layout-plain.ts), on texts written to reach each of its rules: identifiers past ASCII
 * (the Unicode classes the addon is handed on first need), char and byte literals, lifetimes, raw
 * strings and identifiers, nested comments, attributes and macros. Then the two passes' columns,
 * compared on every Rust fixture and on each cut short at many places (unclosed strings,
 * comments, groups).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { candidateHits, isTestAttribute } from "../pipeline/extract.js";
import { type Hit, type LexerPass, layoutOf, type RawLayout } from "../pipeline/layout.js";
import { lexers, needsAddon, rustFixtures } from "./helpers/rust.js";

/** Hits for every occurrence of `name` (a macro's when followed by `!`). */
function hitsOf(text: string, name: string): Hit[] {
  return [...text.matchAll(new RegExp(`(?<![\\w])${name}(?![\\w])`, "g"))].map((m) => ({ at: m.index, name, macro: text[m.index + name.length] === "!" }));
}

/** Each hit as [line, code, functions, excluded, inTokenTree]. */
function spotsOf(pass: LexerPass, text: string, name = "panic") {
  const line = (at: number) => text.slice(0, at).split("\n").length;
  return layoutOf(text, hitsOf(text, name), isTestAttribute, pass).spots.map((s) => [line(s.at), s.code, s.functions, s.excluded, s.inTokenTree]);
}

for (const { name: way, pass } of lexers()) describe(`the lexer pass (${way})`, () => {
  it("reads identifiers past ASCII as identifiers, and other characters as punctuation", () => {
    const text = ["fn é() { panic!(\"a\") }", "fn ĉu_ŝ() { panic!(\"b\") }", "fn ok() { let x = 1 × 2; panic!(\"c\") }", "fn 名前() { panic!(\"d\") }"].join("\n");
    assert.deepEqual(spotsOf(pass, text), [
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
      spotsOf(pass, text).filter((s) => s[1]),
      [
        [1, true, ["a"], false, false],
        [2, true, ["b"], false, false],
        [4, true, ["c"], false, false],
        [5, true, ["d"], false, false],
      ],
    );
    assert.equal(spotsOf(pass, text).length, 8, "the hits in strings and comments are kept, as not code");
  });

  it("tells attributes, macro bodies and token trees apart", () => {
    const text = [
      "#[doc = \"panic\"]",
      "fn a() { vec![panic!(\"in a token tree\")]; }",
      "macro_rules! m { (panic) => { panic!(\"in a definition\") }; }", // the matcher: excluded; both inside the definition
      "fn r#match() { panic!(\"raw name\") }",
    ].join("\n");
    assert.deepEqual(
      layoutOf(text, hitsOf(text, "panic"), isTestAttribute, pass).spots.map((s) => [s.code, s.excluded, s.inTokenTree, s.functions]),
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
    const layout = layoutOf(text, [], isTestAttribute, pass);
    assert.equal(layout.innerTest, false);
    assert.deepEqual(
      layout.items.map((i) => [i.keyword, i.test, i.body?.items.map((b) => [b.keyword, b.test, text.slice(b.start, b.end).trim()])]),
      [
        ["mod", false, [["fn", false, "pub fn f() {}"], ["mod", true, "#[cfg(test)]\n    mod tests {}"]]],
        ["impl", false, [["fn", false, "fn g() {}"]]],
      ],
    );
    assert.equal(layout.preludeEnd, text.indexOf("mod m"));
    assert.equal(layoutOf("#![cfg(test)]\nfn t() {}", [], isTestAttribute, pass).innerTest, true);
  });
});

/** Hits for every word of `text` (identifier-like runs, past ASCII too), as the lexer is handed them. */
function everyWord(text: string): Hit[] {
  return [...text.matchAll(/[\p{L}_][\p{L}\p{N}_]*/gu)].map((m) => ({ at: m.index, name: m[0], macro: text[m.index + m[0].length] === "!" }));
}

function packed(hits: readonly Hit[]): Int32Array {
  return Int32Array.from(hits.flatMap((h) => [h.at, h.name.length]));
}

function columns(raw: RawLayout): number[][] {
  return [raw.items, raw.spots, raw.names, raw.attributes].map((c) => [...c]);
}

describe("the two lexer passes", () => {
  const files = rustFixtures();
  const texts = files.map((f) => readFileSync(f, "utf8"));
  const [native, plain] = lexers().map((l) => l.pass) as [LexerPass, LexerPass];
  const same = (text: string, hits: readonly Hit[], what: string) => assert.deepEqual(columns(plain(text, packed(hits))), columns(native(text, packed(hits))), what);

  it("give the same columns on every fixture, with its candidates and with every word as a hit", needsAddon, () => {
    let spots = 0;
    for (const [k, file] of files.entries()) {
      same(texts[k]!, candidateHits(texts[k]!), `${file}: candidates`);
      const words = everyWord(texts[k]!);
      same(texts[k]!, words, `${file}: every word`);
      spots += words.length;
    }
    assert.ok(spots > 5000, `${spots} hits compared`);
  });

  it("give the same columns on each fixture cut short at many places", needsAddon, () => {
    let cuts = 0;
    for (const [k, file] of files.entries()) {
      const text = texts[k]!;
      const step = Math.max(1, Math.floor(text.length / 97));
      for (let end = 1; end < text.length; end += step, cuts++) {
        const cut = text.slice(0, end);
        same(cut, everyWord(cut), `${file} cut at ${end}`);
      }
    }
    assert.ok(cuts > 1000, `${cuts} cuts compared`);
  });

  it("give the same columns on texts at the edges of the rules", needsAddon, () => {
    const edges = [
      "",
      "r#",
      "fn r#",
      "'",
      "b'",
      "'\\u{1F600",
      "'\\x4'",
      "\"unclosed panic",
      "r##\"raw \"# panic\"##; panic!()",
      "/* /* unclosed */ panic",
      "fn 𝔘() { panic!() } // a surrogate pair",
      "fn é\u00a0x() { panic!() }",
      "#![cfg(test)] mod m { #![cfg(test)] fn f() { panic!() } }",
      "macro_rules! m { ($x:expr) => { panic!() } } fn g() { m!{ panic!() } }",
      "impl X { fn a() {} } else as trait T { fn b(); } mod n",
      "1.5e3.max(2).panic 0x1F_u8.panic",
      ")]}fn f() { panic!() }",
    ];
    for (const text of edges) same(text, everyWord(text), JSON.stringify(text));
  });
});
