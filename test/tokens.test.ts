/**
 * The lexer (pipeline/tokens.ts) on its own: token kinds and spans of Rust's literals, comments
 * and punctuation, the delimited groups and argument lists built from them, and the small
 * character tests. Every expectation is written by hand from the Rust Reference's lexical
 * grammar (and, for the printed conditions, from what rustc 1.95 prints).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { charEnd, codeAt, isAsciiWord, isSpace, isStrLiteral, lexString, lexToken, readDelimited, respaced, skipTrivia, splitArgs, type Token, tokenize } from "../pipeline/tokens.js";

/** Each token as [kind, text]. */
const kinds = (text: string) => tokenize(text).map((t) => [t.kind, t.text]);
/** Each token as [text, start, end]. */
const spans = (tokens: readonly Token[]) => tokens.map((t) => [t.text, t.start, t.end]);

describe("lexToken: literals", () => {
  it("reads raw strings up to the quote with as many hashes as opened them", () => {
    assert.deepEqual(lexToken('r#"a "quoted" b"#', 0), { kind: "string", text: 'r#"a "quoted" b"#', start: 0, end: 17 });
    assert.deepEqual(spans(tokenize('x r##"a "# b"## y')), [["x", 0, 1], ['r##"a "# b"##', 2, 15], ["y", 16, 17]]);
    assert.deepEqual(kinds('r"no \\escape" z'), [["string", 'r"no \\escape"'], ["ident", "z"]]);
  });

  it("reads byte, raw byte and C strings, and byte literals", () => {
    assert.deepEqual(kinds('b"\\x00\\"" br"\\n" br#"a"b"# c"nul" cr#"c"#'), [
      ["string", 'b"\\x00\\""'],
      ["string", 'br"\\n"'],
      ["string", 'br#"a"b"#'],
      ["string", 'c"nul"'],
      ["string", 'cr#"c"#'],
    ]);
    assert.deepEqual(kinds("b'x' b'\\n' b'\\''"), [
      ["char", "b'x'"],
      ["char", "b'\\n'"],
      ["char", "b'\\''"],
    ]);
    // `b`, `c` and `r` alone are identifiers.
    assert.deepEqual(kinds("b c r br"), [["ident", "b"], ["ident", "c"], ["ident", "r"], ["ident", "br"]]);
  });

  it("tells char literals from lifetimes", () => {
    assert.deepEqual(kinds("'a' '\\n' '\\'' '\\u{1F600}' '\\x41' 'ŝ'"), [
      ["char", "'a'"],
      ["char", "'\\n'"],
      ["char", "'\\''"],
      ["char", "'\\u{1F600}'"],
      ["char", "'\\x41'"],
      ["char", "'ŝ'"],
    ]);
    assert.deepEqual(kinds("&'a str, 'static, 'é"), [["punct", "&"], ["lifetime", "'a"], ["ident", "str"], ["punct", ","], ["lifetime", "'static"], ["punct", ","], ["lifetime", "'é"]]);
    // A label is a lifetime too: `'outer: loop`.
    assert.deepEqual(kinds("'outer: loop"), [["lifetime", "'outer"], ["punct", ":"], ["ident", "loop"]]);
  });

  it("reads numbers with bases, exponents and suffixes, and stops before a range or a method", () => {
    assert.deepEqual(kinds("1_000 0xFF_u8 0o17 0b1010 2.5f32 1e5 1.0"), [
      ["number", "1_000"],
      ["number", "0xFF_u8"],
      ["number", "0o17"],
      ["number", "0b1010"],
      ["number", "2.5f32"],
      ["number", "1e5"],
      ["number", "1.0"],
    ]);
    assert.deepEqual(kinds("1..2"), [["number", "1"], ["punct", ".."], ["number", "2"]]);
    assert.deepEqual(kinds("1.max(2)"), [["number", "1"], ["punct", "."], ["ident", "max"], ["open", "("], ["number", "2"], ["close", ")"]]);
    assert.deepEqual(kinds("x.0.1"), [["ident", "x"], ["punct", "."], ["number", "0.1"]]);
  });
});

describe("lexToken: identifiers and punctuation", () => {
  it("reads raw and Unicode identifiers", () => {
    assert.deepEqual(kinds("r#match é_x1 名前 _ __"), [["ident", "r#match"], ["ident", "é_x1"], ["ident", "名前"], ["ident", "_"], ["ident", "__"]]);
    // A character that is neither a letter nor a digit is punctuation on its own.
    assert.deepEqual(kinds("a×b"), [["ident", "a"], ["punct", "×"], ["ident", "b"]]);
  });

  it("reads the longest operator", () => {
    assert.deepEqual(
      tokenize("a::b->c=>d==e!=f<=g>>=h..=i...j&&k||l+=m<<=n#$?@").filter((t) => t.kind === "punct").map((t) => t.text),
      ["::", "->", "=>", "==", "!=", "<=", ">>=", "..=", "...", "&&", "||", "+=", "<<=", "#", "$", "?", "@"],
    );
    assert.deepEqual(kinds("([{}])"), [["open", "("], ["open", "["], ["open", "{"], ["close", "}"], ["close", "]"], ["close", ")"]]);
  });

  it("gives each operator of two or three characters as its text in the source", () => {
    const operators = ["<<=", ">>=", "...", "..=", "<<", ">>", "<=", ">=", "..", "::", "->", "-=", "=>", "==", "&&", "&=", "||", "|=", "!=", "+=", "*=", "/=", "%=", "^="];
    const text = operators.join(" x ");
    const puncts = tokenize(text).filter((t) => t.kind === "punct");
    assert.deepEqual(puncts.map((t) => t.text), operators);
    for (const t of puncts) assert.equal(t.text, text.slice(t.start, t.end));
  });

  it("reads at most 256 characters of an identifier at once (its window)", () => {
    const long = "a".repeat(300);
    assert.deepEqual(spans(tokenize(long)).map(([, start, end]) => [start, end]), [[0, 256], [256, 300]]);
  });

  it("gives null at the end and on a quote that starts no literal", () => {
    assert.equal(lexToken("ab", 2), null);
    assert.equal(lexToken("' x", 0), null);
    assert.equal(lexToken("'ab'", 0)?.text, "'ab", "a lifetime, then a stray quote");
  });
});

describe("skipTrivia", () => {
  it("skips white space, line comments, doc comments and nested block comments", () => {
    assert.equal(skipTrivia("  \t\n x", 0), 5);
    assert.equal(skipTrivia("// line\nx", 0), 8);
    assert.equal(skipTrivia("/// doc\n//! inner doc\n/** block doc */ x", 0), 39);
    assert.equal(skipTrivia("/* outer /* inner */ still */x", 0), 29);
    assert.equal(skipTrivia("/* never closed /* */", 0), 21);
    assert.equal(skipTrivia("// to the end", 0), 13);
    assert.equal(skipTrivia("a / b", 2), 2, "a lone slash is punctuation");
    assert.equal(skipTrivia("x", 5), 5);
  });

  it("is what tokenize skips: comments hold no tokens", () => {
    assert.deepEqual(kinds('a /* panic!("x") */ b // c\n d'), [["ident", "a"], ["ident", "b"], ["ident", "d"]]);
  });
});

describe("readDelimited", () => {
  it("gives the tokens inside a group, nested groups kept flat, and the offset past it", () => {
    const text = "(a, [b, c], {d}) rest";
    const group = readDelimited(text, 0)!;
    assert.deepEqual(group.tokens.map((t) => t.text), ["a", ",", "[", "b", ",", "c", "]", ",", "{", "d", "}"]);
    assert.equal(group.end, 16);
  });

  it("reads delimiters inside strings, chars and comments as their text", () => {
    const group = readDelimited('("a)", \')\', /* ) */ b)', 0)!;
    assert.deepEqual(group.tokens.map((t) => t.text), ['"a)"', ",", "')'", ",", "b"]);
    assert.equal(group.end, 22);
  });

  it("starts at any delimiter and is null on a mismatch, an unclosed group or no delimiter", () => {
    assert.deepEqual(readDelimited("x[1]", 1)?.tokens.map((t) => t.text), ["1"]);
    assert.equal(readDelimited("(a]", 0), null);
    assert.equal(readDelimited("(a", 0), null);
    assert.equal(readDelimited("a(b)", 0), null);
    assert.equal(readDelimited("(a ' b)", 0), null, "a stray quote");
  });
});

describe("splitArgs", () => {
  const texts = (args: Token[][]) => args.map((a) => a.map((t) => t.text).join(" "));
  it("splits at top-level commas only", () => {
    assert.deepEqual(texts(splitArgs(tokenize('"m {}", f(a, b), [1, 2], x'))), ['"m {}"', "f ( a , b )", "[ 1 , 2 ]", "x"]);
  });
  it("adds no empty argument for a trailing comma, keeps a leading one, and gives none for no tokens", () => {
    assert.deepEqual(texts(splitArgs(tokenize("a, b,"))), ["a", "b"]);
    assert.deepEqual(texts(splitArgs(tokenize(", a"))), ["", "a"]);
    assert.deepEqual(splitArgs([]), []);
  });
});

describe("tokenize", () => {
  it("skips a stray quote, or stops there when asked", () => {
    assert.deepEqual(kinds("a ' b"), [["ident", "a"], ["ident", "b"]]);
    assert.deepEqual(tokenize("a ' b", "stop").map((t) => t.text), ["a"]);
  });
  it("reads the quote of an unterminated string as punctuation", () => {
    assert.deepEqual(kinds('x "abc'), [["ident", "x"], ["punct", '"'], ["ident", "abc"]]);
  });
  it("gives offsets in UTF-16 code units", () => {
    assert.deepEqual(spans(tokenize("'😀' x")), [["'😀'", 0, 4], ["x", 5, 6]]);
  });
});

describe("literal and character tests", () => {
  it("lexString: the end of the string literal at an offset, or null", () => {
    assert.equal(lexString('"a\\"b" x', 0), 6);
    assert.equal(lexString('x b"y"', 2), 6);
    assert.equal(lexString('r"x"#', 0), 4);
    assert.equal(lexString('cr#"x"#', 0), 7);
    assert.equal(lexString('r#"x"', 0), null, "closing hash missing");
    assert.equal(lexString('#"x"', 0), null, "hashes without r");
    assert.equal(lexString('"never closed', 0), null);
    assert.equal(lexString("rx", 0), null);
  });

  it("charEnd: the end of the char literal at an offset, or null", () => {
    assert.equal(charEnd("'x'", 0), 3);
    assert.equal(charEnd("'\\u{41}'", 0), 8);
    assert.equal(charEnd("'a", 0), null);
    assert.equal(charEnd("'ab'", 0), null);
  });

  it("isStrLiteral: a str literal, not a byte or C string", () => {
    const first = (text: string) => tokenize(text)[0];
    assert.equal(isStrLiteral(first('"x"')), true);
    assert.equal(isStrLiteral(first('r#"x"#')), true);
    assert.equal(isStrLiteral(first('b"x"')), false);
    assert.equal(isStrLiteral(first('c"x"')), false);
    assert.equal(isStrLiteral(first("x")), false);
    assert.equal(isStrLiteral(undefined), false);
  });

  it("isSpace is JavaScript's \\s; isAsciiWord is \\w; codeAt is -1 outside the text", () => {
    for (const c of [" ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff"]) assert.equal(isSpace(c.charCodeAt(0)), true, JSON.stringify(c));
    for (const c of ["a", "_", "\u200b", "\u0085"]) assert.equal(isSpace(c.charCodeAt(0)), false, JSON.stringify(c));
    for (const c of ["a", "z", "A", "Z", "0", "9", "_"]) assert.equal(isAsciiWord(c.charCodeAt(0)), true, c);
    for (const c of ["-", " ", "é", "$"]) assert.equal(isAsciiWord(c.charCodeAt(0)), false, c);
    assert.deepEqual([codeAt("ab", -1), codeAt("ab", 0), codeAt("ab", 2)], [-1, 97, -1]);
  });
});

describe("respaced", () => {
  it("prints a condition as rustc does, and gives the printed tokens apart", () => {
    assert.deepEqual(respaced(tokenize("a.b(c)==d")), { text: "a.b(c) == d", pieces: ["a", ".", "b", "(", "c", ")", "==", "d"] });
    assert.deepEqual(respaced(tokenize("c!=b'x'")).text, "c != b'x'");
  });
});
