/**
 * The Rust table (pipeline/rust/): which attributes make code test code, the `cfg` evaluator,
 * Cargo's paths, and the keyword lists the file-layout pass holds. Every expectation is written
 * by hand from the Rust Reference and from what rustc 1.95 does with each form (the forms marked
 * so were compiled with and without `--test` to see which items exist).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { cfgPredicateText, cfgValue, contextOfPath, isTestAttribute, ITEM_CONTAINERS, ITEM_MODIFIERS, metaOf, NOT_MACRO_NAMES, readAttribute, simplestCfg, cfgTruth } from "../pipeline/rust/index.js";
import { tokenize } from "../pipeline/tokens.js";
import { packageRoot } from "../pipeline/paths.js";

describe("isTestAttribute on outer attributes", () => {
  const cases: [string, boolean][] = [
    // Test functions, by the last segment of the path.
    ["#[test]", true],
    ["#[ test ]", true],
    ["#[tokio::test]", true],
    ['#[tokio::test(flavor = "multi_thread")]', true],
    ["#[::core::prelude::v1::test]", true],
    ["#[rstest]", true],
    ["#[test_case(1, 2)]", true],
    ["#[wasm_bindgen_test]", true],
    ["#[quickcheck]", true],
    ["#[should_panic]", false],
    ["#[ignore]", false],
    ["#[tests]", false],
    ["#[testing::helper]", false],
    ["#[derive(Debug)]", false],
    ['#[doc = "#[test]"]', false],
    // cfg predicates that hold in test builds only.
    ["#[cfg(test)]", true],
    ["#[cfg( test )]", true],
    ["#[cfg(/* only in */ test)]", true],
    ["#[cfg(\n    test\n)]", true],
    ['#[cfg(all(test, feature = "std"))]', true],
    ['#[cfg(all(feature = "std", test))]', true],
    ['#[cfg(all(feature = "std", all(unix, test)))]', true],
    ["#[cfg(all(test,))]", true],
    ["#[cfg(not(not(test)))]", true],
    ["#[cfg(any(test))]", true],
    ["#[cfg(any(test, false))]", true],
    // … and those that do not.
    ["#[cfg(all(not(test), unix))]", false],
    ["#[cfg(not(test))]", false],
    ['#[cfg(any(test, feature = "testing"))]', false],
    ["#[cfg(any(test, debug_assertions))]", false],
    ['#[cfg(feature = "test")]', false],
    ['#[cfg(all(feature = "test"))]', false],
    ["#[cfg(all(any(test, unix)))]", false],
    ["#[cfg(unix)]", false],
    ["#[cfg(any())]", false], // never compiled, in test builds neither
    ["#[cfg(all(test, not(test)))]", false], // likewise
    ["#[cfg(true)]", false],
    ["#[cfg(r#test)]", true], // a raw identifier is the identifier (rustc 1.95, checked)
    ["#[cfg]", false],
    ["#[cfg(test", false],
    // cfg_attr applies its attributes where its predicate holds (rustc 1.95, checked).
    ["#[cfg_attr(test, derive(Debug))]", false],
    ["#[cfg_attr(not(test), no_std)]", false],
    ["#[cfg_attr(test, test)]", false], // a plain function in other builds
    ['#[cfg_attr(feature = "x", test)]', false],
    ["#[cfg_attr(all(), test)]", true],
    ["#[cfg_attr(not(test), cfg(test))]", true],
    ["#[cfg_attr(test, cfg(test))]", false],
    ["#[cfg_attr(all(), cfg(test))]", true],
    ["#[cfg_attr(unix, cfg(test))]", false],
    ["#[cfg_attr(unix, cfg_attr(all(), cfg(test)))]", false],
    ["#[cfg_attr(all(), cfg_attr(all(), cfg(test)))]", true],
    ["#[cfg_attr(all(), inline, cfg(test))]", true],
    ["#[cfg_attr(test)]", false],
  ];
  for (const [attribute, expected] of cases) {
    it(`${JSON.stringify(attribute)}: ${expected ? "test code" : "not test code"}`, () => assert.equal(isTestAttribute(attribute, false), expected));
  }
});

describe("isTestAttribute on inner attributes", () => {
  it("counts cfg and cfg_attr, never a test function's attribute", () => {
    assert.equal(isTestAttribute("#![cfg(test)]", true), true);
    assert.equal(isTestAttribute("#![ cfg ( all ( test , unix ) ) ]", true), true);
    assert.equal(isTestAttribute("#![cfg_attr(not(test), no_std)]", true), false);
    assert.equal(isTestAttribute("#![cfg_attr(not(test), cfg(test))]", true), true);
    assert.equal(isTestAttribute("#![test]", true), false);
    // A tree with errors may give an inner attribute without its `!`.
    assert.equal(isTestAttribute("#[cfg(test)]", true), true);
    assert.equal(isTestAttribute("#[test]", true), false);
  });
});

describe("cfgValue", () => {
  const value = (predicate: string, test: boolean) => cfgValue(tokenize(predicate), test);
  it("is three-valued: an option other than test is unknown", () => {
    assert.deepEqual([value("test", false), value("test", true)], [false, true]);
    assert.deepEqual([value("unix", false), value('feature = "std"', true)], [null, null]);
    assert.deepEqual([value("true", false), value("false", true)], [true, false]);
    assert.deepEqual([value("all()", false), value("any()", true)], [true, false]);
    assert.deepEqual([value("all(unix, test)", false), value("all(unix, test)", true)], [false, null]);
    assert.deepEqual([value("any(unix, test)", false), value("any(unix, test)", true)], [null, true]);
    assert.deepEqual([value("not(test)", false), value("not(unix)", false)], [true, null]);
    assert.deepEqual([value("not(test, unix)", false), value("nope(test)", true), value("all(test) x", true), value("", true)], [null, null, null, null]);
  });
});

describe("reading attributes", () => {
  it("gives the path and what its parentheses hold", () => {
    const texts = (tokens: readonly { text: string }[] | null) => tokens?.map((t) => t.text) ?? null;
    const read = (text: string) => {
      const meta = readAttribute(text);
      return meta === null ? null : [meta.path, texts(meta.args)];
    };
    assert.deepEqual(read("#[test]"), [["test"], null]);
    assert.deepEqual(read("#![cfg(test)]"), [["cfg"], ["test"]]);
    assert.deepEqual(read("# ! [ cfg ( test ) ] // after"), [["cfg"], ["test"]]);
    assert.deepEqual(read('#[tokio::test(flavor = "x")]'), [["tokio", "test"], ["flavor", "=", '"x"']]);
    assert.deepEqual(read("#[::std::prelude::v1::test]"), [["std", "prelude", "v1", "test"], null]);
    assert.deepEqual(read('#[doc = "x"]'), [["doc"], null]);
    assert.deepEqual(read("#[cfg(a)(b)]"), [["cfg"], null]);
    assert.deepEqual(read("#[a::(b)]"), [["a"], null]);
    assert.deepEqual(read("#[(b)]"), [[], null]);
    assert.deepEqual([read("#[cfg(test)"), read("[cfg(test)]"), read("#[cfg(test)] fn"), read("")], [null, null, null, null]);
    assert.deepEqual(texts(metaOf(tokenize("cfg(all(test, unix))")).args), ["all", "(", "test", ",", "unix", ")"]);
  });

  it("cfgPredicateText: a cfg attribute's predicate as written, white space and comments collapsed", () => {
    assert.equal(cfgPredicateText('#[cfg(feature = "std")]'), 'feature = "std"');
    assert.equal(cfgPredicateText("#![cfg(all(\n    unix,\n    test\n))]"), "all( unix, test )");
    assert.equal(cfgPredicateText("#[cfg()]"), "");
    // Note: comments between the predicate's tokens are no part of it (tokio's util/mod.rs).
    assert.equal(cfgPredicateText('#[cfg(any(\n    // io driver uses `WakeList`\n    feature = "net", /* or */ feature = "sync",\n))]'), 'any( feature = "net", feature = "sync", )');
    assert.equal(cfgPredicateText("#[cfg_attr(test, derive(Debug))]"), null);
    assert.equal(cfgPredicateText("#[test]"), null);
  });
});

describe("contextOfPath", () => {
  it("follows Cargo's layout", () => {
    assert.equal(contextOfPath("crates/a/src/lib.rs"), "library");
    assert.equal(contextOfPath("crates/a/tests/it.rs"), "test");
    assert.equal(contextOfPath("tests/common/mod.rs"), "test");
    assert.equal(contextOfPath("crates/a/benches/b.rs"), "bench");
    assert.equal(contextOfPath("examples/e/src/main.rs"), "example");
    assert.equal(contextOfPath("crates/a/build.rs"), "build-script");
    assert.equal(contextOfPath("build.rs"), "build-script");
    assert.equal(contextOfPath("crates/a/src/build.rs"), "library");
    assert.equal(contextOfPath("crates/a/src/tests.rs"), "library");
  });
});

describe("the lists the file-layout pass holds", () => {
  /** The strings of the C array `name` in native/src/layout.c. */
  const cArray = (name: string): string[] => {
    const source = readFileSync(path.join(packageRoot(), "native", "src", "layout.c"), "utf8");
    const m = new RegExp(`static const char \\*const ${name}\\[\\] = \\{([^}]*)\\};`).exec(source);
    assert.ok(m, `layout.c declares ${name}`);
    return [...m[1]!.matchAll(/"([^"]*)"/g)].map((x) => x[1]!);
  };
  it("are the table's, word for word", () => {
    assert.deepEqual(cArray("KEYWORDS"), NOT_MACRO_NAMES);
    assert.deepEqual(cArray("MODIFIERS"), ITEM_MODIFIERS);
    assert.deepEqual(cArray("CONTAINERS"), ITEM_CONTAINERS);
  });
  it("name the words after which `!` is not a macro's", () => {
    for (const word of ["if", "return", "match", "while", "in", "yield", "box", "self"]) assert.ok(NOT_MACRO_NAMES.includes(word), word);
    for (const word of ["panic", "assert", "vec", "macro_rules", "format"]) assert.ok(!NOT_MACRO_NAMES.includes(word), word);
  });
});

describe("simplestCfg", () => {
  /** Predicates and their simplest form, worked out by hand. */
  const CASES: readonly (readonly [string, string])[] = [
    // The shortest sub-predicate that holds in the same builds.
    ["any(rt, all(not(rt), rt))", "rt"],
    ['any(feature = "x", all(feature = "x", unix))', 'feature = "x"'],
    ["all(unix, any(unix, windows))", "unix"],
    ["not(not(test))", "test"],
    // An argument that cannot change the whole goes, wherever it stands.
    ["any(sync, all(not(sync), net, not(loom)))", "any(sync, all(net, not(loom)))"],
    ["any(sync, all(not(sync), sync), all(not(sync), net))", "any(sync, net)"],
    // Kept: nothing simpler holds in the same builds, or it cannot be read.
    ["any(unix, windows)", "any(unix, windows)"],
    ['all(feature = "a", not(feature = "b"))', 'all(feature = "a", not(feature = "b"))'],
    ["any(unix", "any(unix"],
    ["nonsense(x)", "nonsense(x)"],
  ];
  for (const [predicate, simplest] of CASES) it(`${predicate} is ${simplest}`, () => assert.equal(simplestCfg(predicate), simplest));
});

describe("cfgTruth", () => {
  /** tokio's table, cut down: `rt-multi-thread` enables `rt`, `full` enables both through it. */
  const features = new Map([
    ["rt", []],
    ["rt-multi-thread", ["rt"]],
    ["full", ["rt-multi-thread", "net"]],
    ["net", []],
  ]);
  /** Predicates, worked out by hand over the builds Cargo can make. */
  const CASES: readonly (readonly [readonly string[], string])[] = [
    [[], "always"],
    [['feature = "rt"'], "sometimes"],
    [['any(feature = "rt", not(feature = "rt"))'], "always"],
    [['all(unix, not(unix))'], "never"],
    // An implication, direct and through a chain.
    [['feature = "rt-multi-thread"', 'not(feature = "rt")'], "never"],
    [['all(feature = "full", not(feature = "rt"))'], "never"],
    [['any(not(feature = "rt-multi-thread"), feature = "rt")'], "always"],
    // The other way round holds in some builds: `rt` does not enable `rt-multi-thread`.
    [['feature = "rt"', 'not(feature = "rt-multi-thread")'], "sometimes"],
    // Options outside the table are free.
    [['all(tokio_unstable, feature = "io-uring")'], "sometimes"],
    [["any(unix"], "unknown"],
  ];
  for (const [predicates, truth] of CASES) it(`${predicates.join(" and ") || "no gate"}: ${truth}`, () => assert.equal(cfgTruth(predicates, features), truth));
  it("tries no more than a bounded number of options", () => {
    const many = `all(${Array.from({ length: 20 }, (_, i) => `o${i}`).join(", ")}, not(o0))`;
    assert.equal(cfgTruth([many], features), "unknown");
  });
});
