import { describe, it } from "node:test";
import assert from "node:assert/strict";

import {
  anchored,
  composePattern,
  decodeStringLiteral,
  isDistinctive,
  messageKey,
  normalizeParts,
  parseFormatString,
  patternParts,
  patternSpecificity,
  runtimeParts,
  slugify,
  type FormatPiece,
} from "../pipeline/message.js";
import type { MessagePart } from "../pipeline/types.js";
import { RULES, STD_WORDS } from "../pipeline/rules/index.js";
import { readDelimited, respace, splitArgs } from "../pipeline/tokens.js";

const W: MessagePart = { wild: true };
const G: MessagePart = { gap: true };
const L = (lit: string): MessagePart => ({ lit });

/** The parts a `format!` string gives at run time; fails the test when it does not parse. */
function partsOf(fmt: string): MessagePart[] {
  const pieces = parseFormatString(fmt);
  assert.notEqual(pieces, null, `format string should parse: ${JSON.stringify(fmt)}`);
  return runtimeParts(pieces!);
}

/** Whether the composed pattern, anchored, matches the whole text, checked with and without the `u` flag. */
function matches(parts: readonly MessagePart[], text: string): boolean {
  const source = composePattern(parts);
  const plain = anchored(source).test(text);
  const unicode = anchored(source, "u").test(text);
  assert.equal(unicode, plain, `u flag changed the result of /${source}/ on ${JSON.stringify(text)}`);
  return plain;
}

describe("decodeStringLiteral", () => {
  it("decodes a plain string", () => {
    assert.equal(decodeStringLiteral('"Autodiff should not wrap an autodiff tensor."'), "Autodiff should not wrap an autodiff tensor.");
    assert.equal(decodeStringLiteral('""'), "");
  });

  it("decodes every simple escape", () => {
    assert.equal(decodeStringLiteral(String.raw`"a\nb\rc\td\\e\0f\'g\"h"`), "a\nb\rc\td\\e\0f'g\"h");
  });

  it("decodes \\x escapes up to 7F", () => {
    assert.equal(decodeStringLiteral(String.raw`"\x41\x7f\x7F"`), "A\x7f\x7f");
    assert.equal(decodeStringLiteral(String.raw`"\x80"`), null);
    assert.equal(decodeStringLiteral(String.raw`"\x4"`), null);
    assert.equal(decodeStringLiteral(String.raw`"\xZZ"`), null);
  });

  it("decodes \\u{…} escapes with 1–6 digits and underscores", () => {
    assert.equal(decodeStringLiteral(String.raw`"\u{1F600}"`), "\u{1F600}");
    assert.equal(decodeStringLiteral(String.raw`"\u{1_F6_00}"`), "\u{1F600}");
    assert.equal(decodeStringLiteral(String.raw`"\u{41}\u{e9}"`), "Aé");
    assert.equal(decodeStringLiteral(String.raw`"\u{00_0041}"`), "A");
    assert.equal(decodeStringLiteral(String.raw`"\u{10FFFF}"`), "\u{10FFFF}");
  });

  it("rejects malformed \\u escapes", () => {
    for (const bad of [
      String.raw`"\u{}"`,
      String.raw`"\u{_1}"`,
      String.raw`"\u{1234567}"`,
      String.raw`"\u{D800}"`,
      String.raw`"\u{110000}"`,
      String.raw`"\u41"`,
      String.raw`"\u{41"`,
    ]) {
      assert.equal(decodeStringLiteral(bad), null, bad);
    }
  });

  it("skips a line continuation and all following whitespace", () => {
    assert.equal(decodeStringLiteral('"a\\\n   \t  b"'), "ab");
    assert.equal(decodeStringLiteral('"a\\\n\n\n b"'), "ab");
    assert.equal(decodeStringLiteral('"a\\\r\n  \r\n b"'), "ab");
    assert.equal(decodeStringLiteral('"one \\\n    two"'), "one two");
  });

  it("reads CRLF as \\n and rejects a bare CR", () => {
    assert.equal(decodeStringLiteral('"line1\r\nline2"'), "line1\nline2");
    assert.equal(decodeStringLiteral('"multi\nline"'), "multi\nline");
    assert.equal(decodeStringLiteral('r#"crlf\r\nx"#'), "crlf\nx");
    assert.equal(decodeStringLiteral('"bare\rcr"'), null);
    assert.equal(decodeStringLiteral('r"bare\rcr"'), null);
  });

  it("takes raw strings verbatim, with any number of hashes", () => {
    assert.equal(decodeStringLiteral(String.raw`r"raw \n {}"`), String.raw`raw \n {}`);
    assert.equal(decodeStringLiteral(String.raw`r#"has "quote" inside"#`), 'has "quote" inside');
    assert.equal(decodeStringLiteral(String.raw`r##"a "# b"##`), 'a "# b');
    assert.equal(decodeStringLiteral(String.raw`r###"x"##y"###`), 'x"##y');
    assert.equal(decodeStringLiteral(String.raw`r#""#`), "");
    assert.equal(decodeStringLiteral(String.raw`r#"""#`), '"');
  });

  it("decodes byte and C strings", () => {
    assert.equal(decodeStringLiteral(String.raw`b"bytes\xFF\x00\n"`), "bytes\xff\0\n");
    assert.equal(decodeStringLiteral(String.raw`br#"raw \ bytes"#`), String.raw`raw \ bytes`);
    assert.equal(decodeStringLiteral(String.raw`c"cstr\xFF\u{41}"`), "cstr\xffA");
    assert.equal(decodeStringLiteral(String.raw`cr#"raw "c""#`), 'raw "c"');
    assert.equal(decodeStringLiteral('c"é"'), "é");
  });

  it("rejects what rustc rejects in byte and C strings", () => {
    assert.equal(decodeStringLiteral(String.raw`b"\u{41}"`), null);
    assert.equal(decodeStringLiteral('b"é"'), null);
    assert.equal(decodeStringLiteral('br"é"'), null);
    assert.equal(decodeStringLiteral(String.raw`c"\0"`), null);
    assert.equal(decodeStringLiteral(String.raw`c"\x00"`), null);
    assert.equal(decodeStringLiteral(String.raw`c"\u{0}"`), null);
    assert.equal(decodeStringLiteral('cr"nul\0"'), null);
  });

  it("returns null for anything that is not one well-formed string literal", () => {
    for (const bad of [
      "",
      '"',
      "r",
      'r"',
      String.raw`"\q"`,
      String.raw`"abc\"`,
      '"abc"x',
      '"a"b"',
      "'a'",
      "b'a'",
      'r#"a"',
      'r#"a"##',
      'r"a"b"',
      'r##"a"#',
      'rb"x"',
      'bc"x"',
      'R"x"',
      "plain",
      `r${"#".repeat(256)}"x"${"#".repeat(256)}`,
    ]) {
      assert.equal(decodeStringLiteral(bad), null, JSON.stringify(bad));
    }
    assert.equal(decodeStringLiteral(`r${"#".repeat(255)}"x"${"#".repeat(255)}`), "x");
  });
});

describe("parseFormatString", () => {
  const arg = (a: string, name = ""): FormatPiece => ({ arg: a, name });

  it("splits text and arguments", () => {
    assert.deepEqual(parseFormatString("bad {x:?} and {}"), [{ text: "bad " }, arg("{x:?}", "x"), { text: " and " }, arg("{}")]);
    assert.deepEqual(parseFormatString("no args"), [{ text: "no args" }]);
    assert.deepEqual(parseFormatString(""), []);
  });

  it("names positional, indexed and named arguments", () => {
    assert.deepEqual(parseFormatString("{}{0}{name}{_a}{00}{é}"), [
      arg("{}"),
      arg("{0}", "0"),
      arg("{name}", "name"),
      arg("{_a}", "_a"),
      arg("{00}", "0"),
      arg("{é}", "é"),
    ]);
  });

  it("accepts every format-spec form verbatim", () => {
    for (const spec of [
      "{:?}",
      "{:#?}",
      "{:x?}",
      "{:#x?}",
      "{:X?}",
      "{x:>8}",
      "{0:.*}",
      "{:.*}",
      "{:width$}",
      "{:08.3}",
      "{:.prec$}",
      "{:1$.2$}",
      "{:0$}",
      "{:+#010.3e}",
      "{:*^10}",
      "{: >5}",
      "{:<<}",
      "{:}>5}",
      "{:{<5}",
      "{:-}",
      "{:.}",
      "{:5.}",
      "{:}",
      "{0:}",
      "{0 }",
      "{:? }",
      "{ }",
      "{x\n}",
      "{:e}",
      "{:b}",
      "{:0x}",
      "{:>+#08.*?}",
      "{65535}",
    ]) {
      const pieces = parseFormatString(`a${spec}b`);
      assert.deepEqual(pieces?.map((p) => ("arg" in p ? p.arg : p.text)), ["a", spec, "b"], spec);
    }
  });

  it("reads {{ and }} as one literal brace and merges the text around them", () => {
    assert.deepEqual(parseFormatString("{{}}"), [{ text: "{}" }]);
    assert.deepEqual(parseFormatString("x}}y{{z"), [{ text: "x}y{z" }]);
    assert.deepEqual(parseFormatString("{{{x}}}"), [{ text: "{" }, arg("{x}", "x"), { text: "}" }]);
    assert.deepEqual(parseFormatString("Foo {{ a: {} }}"), [{ text: "Foo { a: " }, arg("{}"), { text: " }" }]);
  });

  it("returns null for unmatched braces and malformed arguments", () => {
    for (const bad of [
      "{",
      "}",
      "a { b",
      "a } b",
      "{}}",
      "{:}}",
      "{:{}",
      "{:",
      "{ 0}",
      "{ x}",
      "{_}",
      "{:_}",
      "{r#type}",
      "{:?#}",
      "{:##}",
      "{:+-}",
      "{a:b:c}",
      "{:ab<5}",
      "{:?x}",
      "{65536}",
      "{:65536}",
      "{99999999999999999999999}",
    ]) {
      assert.equal(parseFormatString(bad), null, JSON.stringify(bad));
    }
  });
});

describe("runtimeParts", () => {
  it("turns text into literals and arguments into holes", () => {
    assert.deepEqual(partsOf("bad {x:?} and {}"), [L("bad "), W, L(" and "), W]);
    assert.deepEqual(partsOf("plain"), [L("plain")]);
    assert.deepEqual(partsOf(""), []);
  });

  it("collapses adjacent holes and merges adjacent literals", () => {
    assert.deepEqual(partsOf("{}{:?}{x} tail"), [W, L(" tail")]);
    assert.deepEqual(runtimeParts([{ text: "a" }, { text: "" }, { text: "b" }, { arg: "{}", name: "" }, { arg: "{0}", name: "0" }]), [L("ab"), W]);
  });
});

describe("composePattern", () => {
  it("writes the seed record's pattern exactly", () => {
    assert.equal(composePattern([L("Autodiff should not wrap an autodiff tensor.")]), String.raw`Autodiff should not wrap an autodiff tensor\.`);
  });

  it("escapes only syntax characters and /", () => {
    assert.equal(composePattern([L(String.raw`\^$.|?*+()[]{}/`)]), String.raw`\\\^\$\.\|\?\*\+\(\)\[\]\{\}\/`);
    const plain = "abc XYZ 019 _-,:;'\"`~!@#%&=<> é";
    assert.equal(composePattern([L(plain)]), plain);
  });

  it("writes line breaks, tabs and control characters as escapes", () => {
    assert.equal(composePattern([L("a\nb\tc\rd")]), String.raw`a\nb\tc\rd`);
    assert.equal(composePattern([L("\0\x1b\x7f\u0085")]), String.raw`\x00\x1B\x7F\x85`);
    assert.equal(composePattern([L("a\u2028b")]), String.raw`a\u2028b`);
  });

  it("keeps surrogate pairs and escapes lone surrogates", () => {
    assert.equal(composePattern([L("a\u{1F600}b")]), "a\u{1F600}b");
    assert.equal(composePattern([L("\ud800x\udc00")]), String.raw`\uD800x\uDC00`);
    assert.equal(composePattern([L("\ud800\ud800\udc00\udc00")]), String.raw`\uD800` + "\ud800\udc00" + String.raw`\uDC00`);
  });

  it("matches exactly the literal text, anchored, with and without the u flag", () => {
    const text = "every \\^$.|?*+()[]{}/ char - '\" `x` :#=!<> , \n\t\r\0\x1b\u2028 é \u{1F600} 0123";
    const source = composePattern([L(text)]);
    assert.ok(matches([L(text)], text));
    assert.ok(!matches([L(text)], `before ${text}`));
    assert.ok(!matches([L(text)], `${text} after`));
    // pasted into a regex literal it means the same (an unescaped `/` or newline would break it)
    const literal = new Function(`return /${source}/u;`)() as RegExp;
    assert.equal(literal.source, source);
  });

  it("writes each hole where it stands: first run as is, middle runs atomic, the last before the end", () => {
    assert.equal(composePattern(partsOf("bad {x:?} and {}")), String.raw`bad (?=([\s\S]*? and ))\1[\s\S]*`);
    assert.equal(composePattern(partsOf("{} failed while loading")), String.raw`[\s\S]*? failed while loading`);
    assert.equal(composePattern(partsOf("{}: {}")), String.raw`(?=([\s\S]*?: ))\1[\s\S]*`);
    assert.equal(composePattern(partsOf("a {} b {} c")), String.raw`a (?=([\s\S]*? b ))\1[\s\S]*? c`);
    assert.equal(composePattern([W, L("only this."), W]), String.raw`(?=([\s\S]*?only this\.))\1[\s\S]*`);
  });

  it("gives [\\s\\S]* without literal text, and an empty group for the empty message (a pattern is never empty)", () => {
    assert.equal(composePattern([W]), String.raw`[\s\S]*`);
    assert.equal(composePattern([W, L(""), W]), String.raw`[\s\S]*`);
    assert.equal(composePattern([]), "(?:)");
    assert.ok(matches([], ""));
    assert.ok(!matches([], "x"));
    assert.ok(matches([W], "any\ntext"));
  });

  it("matches the runtime texts of the field notes as a whole", () => {
    const bad = partsOf("bad {x:?} and {}");
    assert.ok(matches(bad, "bad 3 and 5"));
    assert.ok(matches(bad, "bad Foo {\n  a: 1\n} and 5"));
    assert.ok(matches(partsOf("msg {}"), "msg 1"));
    assert.ok(matches(partsOf("not yet implemented: {}"), "not yet implemented: m"));
    assert.ok(matches(partsOf("internal error: entered unreachable code: {}"), "internal error: entered unreachable code: m"));
    const eq = partsOf("assertion `left == right` failed: m: {}\n  left: {:?}\n right: {:?}");
    assert.ok(matches(eq, "assertion `left == right` failed: m: 9\n  left: 1\n right: 2"));
    assert.ok(matches([L("could not open: "), W], 'could not open: "boom"'));
    assert.ok(matches(partsOf("w={:>w$}|{:08.3}|{0:.*}|{{lit}}"), "w=       1|0002.500|1|{lit}"));
  });

  it("matches holes that hold newlines and text that repeats a literal", () => {
    const parts = partsOf("line1\nline2 {} (tab\there) [x] $1.00 a/b {}");
    assert.ok(matches(parts, "line1\nline2 v\nw (tab\there) [x] $1.00 a/b 7"));
    // the first " and " is inside the hole: the earliest occurrence still leads to a match
    assert.ok(matches(partsOf("{} and {} end"), "x and y and z end"));
    // the last run is found where it ends the message, not where it first occurs
    assert.ok(matches(partsOf("{} end"), "end of the end"));
    assert.ok(matches(partsOf("a{}a{}a"), "aaa"));
    assert.ok(!matches(partsOf("a{}a{}a"), "aa"));
    assert.ok(matches(partsOf("ab{}b"), "abb"));
    assert.ok(!matches(partsOf("ab{}b"), "ab"));
    assert.ok(matches(partsOf("{}0{}1{}2{}3{}4{}5{}6{}7{}8{}9{}10{}11{}"), "0-1-2-3-4-5-6-7-8-9-10-11"));
    assert.ok(matches(partsOf("{}0{}1{}2{}3{}4{}5{}6{}7{}8{}9{}10{}11"), "x0-1-2-3-4-5-6-7-8-9-10-11"));
  });

  it("does not match a text with more or less around it, a missing piece, or pieces out of order", () => {
    const bad = partsOf("bad {x:?} and {}");
    assert.ok(!matches(bad, "bad 3 or 5"));
    assert.ok(!matches(bad, "ad 3 and 5"));
    assert.ok(!matches(bad, "so bad 3 and 5"));
    assert.ok(!matches(bad, " and 5 bad 3"));
    assert.ok(!matches(partsOf("{} failed"), "x failed twice"));
    assert.ok(!matches([L("tensor.")], "tensorX"));
    assert.ok(!matches([L("Index out of bounds")], "Index out of bounds for dim 2"));
    const eq = partsOf("assertion `left == right` failed: m: {}\n  left: {:?}\n right: {:?}");
    assert.ok(!matches(eq, "assertion `left == right` failed: m: 9\n  left: 1\n"));
  });

  it("fails fast on large inputs built to fail", () => {
    const parts = partsOf("ab{}ab{}ab{}ab{}c");
    assert.equal(parts.filter((p) => "wild" in p).length, 4);
    // every literal but the last, over and over: each is found at once, `c` at the end never is.
    const input = "ab".repeat(50_000);
    assert.equal(input.length, 100_000);
    assert.equal(anchored(composePattern(parts)).test(input), false);
    assert.equal(anchored(composePattern(parts), "u").test(input), false);
    assert.equal(anchored(composePattern(parts)).test(`${input}c`), true);
    assert.equal(anchored(composePattern(parts)).test(`${input}c${input}`), false);
    const spaced = partsOf("bad {x:?} and {} at {}: {}!");
    assert.equal(anchored(composePattern(spaced)).test("bad  and  at : ".repeat(7_000)), false);
    // The last run occurs everywhere but at the end; the optional group follows nowhere.
    const tail: MessagePart[] = [L("x "), W, L(" now"), { optional: [L(": "), W] }];
    assert.equal(anchored(composePattern(tail)).test("x " + " now:x".repeat(20_000)), false);
  });
});

describe("composePattern with gaps and an optional group", () => {
  const cond: MessagePart[] = [L("assertion failed: "), L("x"), G, L(">"), G, L("0")];

  it("lets any white space stand in a gap, and needs the condition to end the message", () => {
    assert.equal(composePattern(cond), String.raw`assertion failed: x\s*>\s*0`);
    assert.equal(matches(cond, "assertion failed: x > 0"), true);
    assert.equal(matches(cond, "assertion failed: x>0"), true);
    assert.equal(matches(cond, "assertion failed: x > 0 && y"), false);
    assert.equal(matches(cond, "assertion failed: x > 01"), false);
  });

  it("makes a first run with gaps atomic when holes follow", () => {
    assert.equal(composePattern([L("a"), G, L("b"), W, L("c")]), String.raw`(?=(a\s*b))\1[\s\S]*?c`);
    assert.equal(matches([L("a"), G, L("b"), W, L("c")], "a \n b..c"), true);
  });

  it("allows the optional group, or nothing, after a message that ends with text", () => {
    const expect: MessagePart[] = [L("could not open"), { optional: [L(": "), W] }];
    assert.equal(composePattern(expect), String.raw`could not open(?:: [\s\S]*)?`);
    assert.equal(matches(expect, "could not open"), true);
    assert.equal(matches(expect, 'could not open: "boom"'), true);
    assert.equal(matches(expect, "could not open: Multi {\n    a: 1,\n}"), true);
    assert.equal(matches(expect, "could not open it"), false);
    assert.equal(matches(expect, "could not open:"), false);
    const formatted: MessagePart[] = [L("Decoding failed for "), W, L(" now"), { optional: [L(": "), W] }];
    assert.equal(composePattern(formatted), String.raw`Decoding failed for [\s\S]*? now(?:: [\s\S]*)?`);
    assert.equal(matches(formatted, "Decoding failed for x now: now"), true);
    assert.equal(matches(formatted, "Decoding failed for x now"), true);
    assert.equal(matches(formatted, "Decoding failed for x nowhere"), false);
  });

  it("drops an optional group after a hole, and reads one that is not last as a hole", () => {
    assert.equal(composePattern([L("Missing item "), W, { optional: [L(": "), W] }]), String.raw`Missing item [\s\S]*`);
    assert.equal(composePattern([L("a "), { optional: [L("b")] }, L(" c")]), String.raw`a [\s\S]*? c`);
    assert.equal(composePattern([L("a "), { optional: [W, L("b")] }]), String.raw`a [\s\S]*`);
  });
});

describe("normalizeParts and messageKey", () => {
  it("spells equal messages one way", () => {
    assert.deepEqual(normalizeParts([L("a"), L(""), L("b"), W, G, W, L("c"), G, G, L("d")]), [L("ab"), W, L("c"), G, L("d")]);
    assert.deepEqual(normalizeParts([L("a"), W, { optional: [L(": "), W] }]), [L("a"), W]);
    assert.deepEqual(normalizeParts([{ optional: [] }, L("x")]), [L("x")]);
  });

  it("keys a message by its text, holes and gaps, not by the regex", () => {
    assert.equal(messageKey(partsOf("State {} cannot follow state {}")), JSON.stringify(["State ", 0, " cannot follow state ", 0]));
    assert.equal(messageKey([L("a"), G, L("b")]), JSON.stringify(["a", 1, "b"]));
    assert.equal(messageKey([L("m"), { optional: [L(": "), W] }]), JSON.stringify(["m", [": ", 0]]));
    assert.equal(messageKey([L("a"), L("b"), W, W]), messageKey([L("ab"), W]));
    assert.notEqual(messageKey([L("a b")]), messageKey([L("a"), G, L("b")]));
    assert.notEqual(messageKey([L("0")]), messageKey([W]));
  });
});

describe("patternParts", () => {
  it("reads back what composePattern wrote", () => {
    const all: MessagePart[][] = [
      [L("Autodiff should not wrap an autodiff tensor.")],
      partsOf("bad {x:?} and {}"),
      partsOf("{} failed while loading"),
      partsOf("{}0{}1{}2"),
      [L("assertion failed: "), L("x"), G, L(">"), G, L("0")],
      [L("a"), G, L("b"), W, L("c"), W],
      [L("m \\ ( ) [ ] { } ? * + | ^ $ . / \n\t\r\0 \u2028 \ud800 🦀"), { optional: [L(": "), W] }],
      [W],
      [],
    ];
    for (const parts of all) {
      const source = composePattern(parts);
      assert.deepEqual(patternParts(source), normalizeParts(parts), source);
    }
  });

  it("gives null for any other regex", () => {
    assert.equal(patternParts("a.b"), null);
    assert.equal(patternParts("^(?=([\\s\\S]*?bad ))\\1"), null);
    assert.equal(patternParts("a(b)"), null);
    assert.equal(patternParts("\\d+"), null);
  });
});

describe("patternSpecificity", () => {
  it("counts literal characters", () => {
    assert.equal(patternSpecificity(partsOf("bad {x:?} and {}")), 9);
    assert.equal(patternSpecificity([L("Autodiff should not wrap an autodiff tensor.")]), 44);
    assert.equal(patternSpecificity([W]), 0);
    assert.equal(patternSpecificity([L("é\u{1F600}")]), 2);
    assert.equal(patternSpecificity([L("open"), { optional: [L(": "), W] }]), 6);
  });

  it("ranks a more specific message first", () => {
    const a = partsOf("not yet implemented: {}");
    const b = partsOf("not yet implemented: tensor {}");
    assert.ok(patternSpecificity(b) > patternSpecificity(a));
  });
});

describe("isDistinctive", () => {
  it("needs at least 3 ASCII letters in the literal text", () => {
    assert.equal(isDistinctive(partsOf("{}")), false);
    assert.equal(isDistinctive(partsOf("{}: {}")), false);
    assert.equal(isDistinctive(partsOf("{:?}")), false);
    assert.equal(isDistinctive(partsOf("[{}] ({}) -> {} = 42")), false);
    assert.equal(isDistinctive(partsOf("{ab} {cd}")), false);
    assert.equal(isDistinctive(partsOf("a{}b")), false);
    assert.equal(isDistinctive(partsOf("bad {x}")), true);
    assert.equal(isDistinctive(partsOf("a{}b{}c")), true);
    assert.equal(isDistinctive([L("Autodiff should not wrap an autodiff tensor.")]), true);
  });
});

describe("slugify", () => {
  it("makes the seed slug", () => {
    assert.equal(slugify("Autodiff should not wrap an autodiff tensor.", "38c5ff15ce6533cc"), "autodiff-should-not-wrap-an-autodiff-tensor-38c5ff");
  });

  it("drops the punctuation of placeholders", () => {
    assert.equal(slugify("unsupported dispatch device: {__other:?}", "abcdef0123"), "unsupported-dispatch-device-other-abcdef");
  });

  it("trims dashes and collapses runs of other characters", () => {
    assert.equal(slugify("  --Hello,   World!!  ", "0123456789"), "hello-world-012345");
    assert.equal(slugify("Tensor Operation Error: 3D/4D über", "ffffff"), "tensor-operation-error-3d-4d-ber-ffffff");
  });

  it("cuts at a word boundary to at most 60 characters", () => {
    const msg = "the quick brown fox jumps over the lazy dog and keeps on running far away";
    const slug = slugify(msg, "123456abc");
    assert.equal(slug, "the-quick-brown-fox-jumps-over-the-lazy-dog-and-keeps-on-123456");
    assert.ok(slug.length - "-123456".length <= 60);
    // exactly 60 fits
    const sixty = `${"a".repeat(29)} ${"b".repeat(30)}`;
    assert.equal(slugify(sixty, "abcdef"), `${"a".repeat(29)}-${"b".repeat(30)}-abcdef`);
    assert.equal(slugify(`${sixty} c`, "abcdef"), `${"a".repeat(29)}-${"b".repeat(30)}-abcdef`);
  });

  it("cuts a first word longer than 60 characters", () => {
    assert.equal(slugify(`${"x".repeat(70)} tail`, "abcdef"), `${"x".repeat(60)}-abcdef`);
  });

  it("gives the id prefix alone when there is no letter or digit", () => {
    assert.equal(slugify("{}: {:?}", "38c5ff15ce6533cc"), "38c5ff");
    assert.equal(slugify("", "38c5ff15ce6533cc"), "38c5ff");
  });
});

describe("respace", () => {
  /** The condition's tokens, read with the same lexer extraction uses. */
  const respaceOf = (source: string): string => {
    const call = readDelimited(`(${source})`, 0);
    assert.notEqual(call, null, source);
    return respace(call!.tokens);
  };

  it("prints conditions as rustc 1.95 printed them in `assertion failed: …`", () => {
    // Left: the condition as written; right: what rustc printed after `assertion failed: `.
    const seen: [string, string][] = [
      ["v().len()>5 &&  true", "v().len() > 5 && true"],
      ["v().len() > 10\n            || v()\n                .is_empty()", "v().len() > 10 || v().is_empty()"],
      ["v().iter().map(|x| x * 2).collect::<Vec<_>>().is_empty()", "v().iter().map(|x| x * 2).collect::<Vec<_>>().is_empty()"],
      ["!v().contains(&3)", "!v().contains(&3)"],
      ["v().iter().all(|&x| x > 5)", "v().iter().all(|&x| x > 5)"],
      ["v()[0]==2", "v()[0] == 2"],
      ["*r == 2 && &v()[..] == &[9][..]", "*r == 2 && &v()[..] == &[9][..]"],
      ["std::mem::size_of::<Vec<Vec<u8>>>() == 1", "std::mem::size_of::<Vec<Vec<u8>>>() == 1"],
      ["n() % 2 == 0 && n() / 2 > 10 || n() * 3 < -1 && 1<<4 > 100", "n() % 2 == 0 && n() / 2 > 10 || n() * 3 < -1 && 1 << 4 > 100"],
      ["!b || -n() >= 0 && !!false", "!b || -n() >= 0 && !!false"],
      ["matches!(x,Some( 3 ))", "matches!(x,Some(3))"],
      ["vec![1,2 ,3].len()==n() as usize", "vec![1,2,3].len() == n() as usize"],
      ['format!( "{}",n() )=="x"', 'format!("{}",n()) == "x"'],
      ["x.map(| v | { v + 1 })==Some(3)", "x.map(|v| { v + 1 }) == Some(3)"],
      ["x.map(move |v: i32| -> i32 { v + 1 }).is_none()", "x.map(move |v: i32| -> i32 { v + 1 }).is_none()"],
      ["&mut 5 == &mut n()", "&mut 5 == &mut n()"],
      ["if let Some(v) = x { v < 0 } else { false }", "if let Some(v) = x { v < 0 } else { false }"],
      ["match x { Some(v) => v < 0, None => false }", "match x { Some(v) => v < 0, None => false, }"],
      ["match x { Some(v) => { v < 0 } None => false }", "match x { Some(v) => { v < 0 } None => false, }"],
      ["unsafe { n() } == 1", "unsafe { n() } == 1"],
      ["S { a: n() }.a == 0", "S { a: n() }.a == 0"],
      ["{ let v: Vec<u8> = vec![]; v.len() > 0 }", "{ let v: Vec<u8> = vec![]; v.len() > 0 }"],
      ["x == None::<i32>", "x == None::<i32>"],
      ["n() == 'a' as i32", "n() == 'a' as i32"],
      ["n().checked_sub(1).is_none() /* comment */ && true", "n().checked_sub(1).is_none() && true"],
      ['r#"raw"# == "x"', 'r#"raw"# == "x"'],
      ["-(n()) > 0", "-(n()) > 0"],
      ["(0..n()).all(|i|i<3)", "(0..n()).all(|i| i < 3)"],
      ["m!(a{b} c { d }[e] { } f) == 0", "m!(a{b} c { d }[e] {} f) == 0"],
      ["m!(x . y ; z , w $ q # [a] ! ( ) fn (x)) == 0", "m!(x.y; z, w $q #[a] ! () fn(x)) == 0"],
      ["x.map(|_| ()).is_none()", "x.map(|_| ()).is_none()"],
    ];
    for (const [source, printed] of seen) assert.equal(respaceOf(source), printed, source);
  });

  it("keeps a string token's own spaces", () => {
    assert.equal(respaceOf('s ==  "a  b"'), 's == "a  b"');
  });
});

describe("rules: the whole runtime text, and what a site without text of its own prints", () => {
  /** What the rule named `name` says of the call `name!(args)` / `.name(args)`. */
  const describeCall = (name: string, args: string) => {
    const rule = RULES.find((r) => r.name === name)!;
    const call = readDelimited(`(${args})`, 0);
    assert.notEqual(call, null, args);
    return rule.describe(splitArgs(call!.tokens));
  };
  const pattern = (name: string, args: string) => composePattern(describeCall(name, args).runtime!);
  const place = (name: string, args: string) => {
    const d = describeCall(name, args);
    assert.equal(d.runtime, null, `${name}!(${args}) should have no record of its own`);
    return [d.skip, d.place?.message, composePattern(d.place!.runtime)];
  };

  it("writes std's words, the left:/right: lines and expect's suffix into the pattern", () => {
    assert.equal(pattern("todo", '"sparse {}", x'), String.raw`not yet implemented: sparse [\s\S]*`);
    assert.equal(pattern("assert_ne", 'a, b, "stride {} differs", s'), "assertion `left != right` failed: stride " + String.raw`(?=([\s\S]*? differs\n  left: ))\1(?=([\s\S]*?\n right: ))\2[\s\S]*`);
    assert.equal(pattern("expect", '"the shape should be valid"'), String.raw`the shape should be valid(?:: [\s\S]*)?`);
    assert.equal(pattern("expect_err", '"wanted an error"'), String.raw`wanted an error: [\s\S]*`);
    assert.equal(pattern("expect", '&format!("item {} is missing", i)'), String.raw`item [\s\S]*? is missing(?:: [\s\S]*)?`);
    // `{value}` and `{}` given string literals are their text; `{0:>4}` pads, so it stays a hole.
    assert.equal(pattern("panic", '"{value} and {0:>4} of {}", "one", value = "v"'), String.raw`v and [\s\S]*? of one`);
  });

  it("says what std prints for a site without text of its own", () => {
    assert.deepEqual(place("panic", ""), ["no-message", "explicit panic", "explicit panic"]);
    assert.deepEqual(place("unreachable", ""), ["no-message", "internal error: entered unreachable code", "internal error: entered unreachable code"]);
    assert.deepEqual(place("unimplemented", '"{}", x'), ["no-distinctive-text", "{}", String.raw`not implemented: [\s\S]*`]);
    assert.deepEqual(place("assert_eq", "a, b"), ["no-message", "assertion `left == right` failed", "assertion `left == right` failed" + String.raw`\n  left: (?=([\s\S]*?\n right: ))\1[\s\S]*`]);
    assert.deepEqual(place("debug_assert_ne", "a, b"), ["no-message", "assertion `left != right` failed", "assertion `left != right` failed" + String.raw`\n  left: (?=([\s\S]*?\n right: ))\1[\s\S]*`]);
    assert.deepEqual(place("panic", '"{}: {}", a, b'), ["no-distinctive-text", "{}: {}", String.raw`(?=([\s\S]*?: ))\1[\s\S]*`]);
    assert.deepEqual(place("assert", "ok"), ["no-distinctive-text", "assertion failed: ok", "assertion failed: ok"]);
    assert.deepEqual(place("expect", '"ab"'), ["no-distinctive-text", "ab", String.raw`ab(?:: [\s\S]*)?`]);
    // A message held in a value is shown as a hole named for it: its name is not its text.
    assert.deepEqual(place("expect", "&message"), ["dynamic-message", "{message}", String.raw`[\s\S]*`]);
    assert.deepEqual(place("panic", "$($msg)*"), ["dynamic-message", "{$($msg) *}", String.raw`[\s\S]*`]);
  });

  it("lists std's words of every rule, longest first", () => {
    assert.ok(STD_WORDS.includes("internal error: entered unreachable code: "));
    assert.ok(STD_WORDS.includes("\n right: "));
    assert.ok(STD_WORDS.indexOf("not yet implemented: ") < STD_WORDS.indexOf("not yet implemented"));
  });
});
