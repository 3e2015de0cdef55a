/**
 * Extraction against golden files: each `fixtures/extract/<case>.rs` has a
 * `<case>.expected.json` written by reading the fixture (kind, position, token tree, context,
 * message as written, skip reason of every site, in source order). The glob finds the cases; an
 * expected file without its fixture, or a fixture without its expected file, fails the suite.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { applyTestModules, declaredTestModules, extractFile, mayDeclareTestModule, testModuleNames } from "../pipeline/extract.js";
import { contextOfPath } from "../pipeline/rust/index.js";
import type { FileSites, Site } from "../pipeline/types.js";
import { fixture } from "./helpers/git.js";

/** The shape of `<case>.expected.json`. */
interface Expected {
  /** The path the file is extracted as (it decides the context); default `src/<case>.rs`. */
  readonly path?: string;
  /** Whether tree-sitter reports syntax errors in the file (default false). */
  readonly parseErrors?: boolean;
  /** Names `testModuleNames` must find (default none). */
  readonly testModules?: readonly string[];
  /** For `applyTestModules`: the context a library site in each path has once this file's declarations apply. */
  readonly ownedPaths?: Readonly<Record<string, Site["context"]>>;
  readonly sites: readonly Pick<Site, "kind" | "line" | "column" | "inTokenTree" | "context" | "message" | "skip">[];
}

const dir = fixture("extract");
const entries = readdirSync(dir).sort();
const sources = entries.filter((f) => f.endsWith(".rs")).map((f) => f.slice(0, -".rs".length));
const expectations = entries.filter((f) => f.endsWith(".expected.json")).map((f) => f.slice(0, -".expected.json".length));

describe("extract fixtures", () => {
  it("has no orphans: every fixture has an expected file and every expected file a fixture", () => {
    assert.ok(sources.length >= 10, `found only ${sources.length} fixtures in ${dir}`);
    assert.deepEqual(sources.filter((c) => !expectations.includes(c)), [], "fixtures without <case>.expected.json");
    assert.deepEqual(expectations.filter((c) => !sources.includes(c)), [], "expected files without <case>.rs");
    assert.deepEqual(entries.filter((f) => !f.endsWith(".rs") && !f.endsWith(".expected.json")), [], "stray files");
  });

  for (const name of sources.filter((c) => expectations.includes(c))) {
    it(name, async () => {
      const text = readFileSync(path.join(dir, `${name}.rs`), "utf8");
      const expected = JSON.parse(readFileSync(path.join(dir, `${name}.expected.json`), "utf8")) as Expected;
      const filePath = expected.path ?? `src/${name}.rs`;
      const result = await extractFile({ path: filePath, blob: "0".repeat(40), text });
      const got = result.sites.map((s) => ({ kind: s.kind, line: s.line, column: s.column, inTokenTree: s.inTokenTree, context: s.context, message: s.message, skip: s.skip }));
      assert.deepEqual(got, expected.sites);
      assert.equal(result.parseErrors, expected.parseErrors ?? false, "parseErrors");
      for (const s of result.sites) {
        assert.equal(s.path, filePath);
        // A site has a runtime message exactly when it is not skipped.
        assert.equal(s.runtime === null, s.skip !== null, `${name}:${s.line}: runtime and skip disagree`);
      }
      assert.deepEqual(testModuleNames(text), expected.testModules ?? [], "testModuleNames");
      assert.deepEqual(result.testModules, expected.testModules ?? [], "extractFile gives the declarations");
      if (expected.ownedPaths !== undefined) {
        const owned: FileSites[] = Object.keys(expected.ownedPaths).map((p) => ({ path: p, blob: "1".repeat(40), parseErrors: false, parsed: true, sites: [siteAt(p)], testModules: [] }));
        const applied = applyTestModules([result, ...owned]).slice(1);
        const contexts = Object.fromEntries(applied.map((f) => [f.path, f.sites[0]!.context]));
        assert.deepEqual(contexts, expected.ownedPaths);
      }
    });
  }
});

/** A library site at line 1 of `p`, as extraction would give it. */
function siteAt(p: string): Site {
  return { kind: "panic", path: p, line: 1, column: 1, inTokenTree: false, context: contextOfPath(p), message: "m", runtime: [{ lit: "m" }], skip: null, facts: null };
}

describe("applyTestModules", () => {
  it("never turns bench, example or build-script sites into test sites, and returns new values", () => {
    const files: FileSites[] = [
      { path: "benches/main.rs", blob: "a", parseErrors: false, parsed: false, sites: [], testModules: ["tests"] },
      { path: "benches/tests.rs", blob: "b", parseErrors: false, parsed: true, sites: [siteAt("benches/tests.rs")], testModules: [] },
    ];
    const before = JSON.stringify(files);
    const applied = applyTestModules(files);
    assert.equal(applied[1]!.sites[0]!.context, "bench");
    assert.equal(JSON.stringify(files), before, "input untouched");
  });
});

/** A seeded generator of numbers in [0, 1) (mulberry32): the same texts on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("the test-module pre-filter", () => {
  const rustFiles = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? rustFiles(path.join(dir, e.name)) : e.name.endsWith(".rs") ? [path.join(dir, e.name)] : []));

  it("says maybe wherever the lexer finds a test-module declaration: generated texts", () => {
    const next = random(20261201);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    const attributes = ["#[cfg(test)]", "#[cfg(all(test, unix))]", "#[cfg_attr(not(test), cfg(test))]", "#[cfg(not(not(test)))]", "# [ cfg ( test ) ]", "#[cfg(/* c */ test)]", "#[cfg(r#test)]", "#[rstest]", "#[quickcheck]", "#[tokio::test]", "#[cfg(not(test))]", "#[allow(dead_code)]", '#[path = "t.rs"]'];
    const gaps = ["", " ", "\n", "\t", "\u00a0", "\u2028", "/* c */", "/* /* nested */ */", "// line\n", " ' ", "\n\n"];
    const visibility = ["", "pub", "pub(crate)", "pub(in crate::a)", "pub /* v */ (super)", "pub(self)"];
    const names = ["tests", "t1", "_x", "módulo", "r#try", "名前", "tests_é"];
    const noise = ["", "fn f() {}", 'let s = "mod x;";', "'a", "b'x'", 'r#"#[cfg(test)] mod y;"#', "mod m { }", "struct S;", "/* #[cfg(test)] mod z; */"];
    let declarations = 0;
    for (let n = 0; n < 3000; n++) {
      const attrs = Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(attributes) + pick(gaps)).join("");
      const text = [pick(noise), pick(gaps), attrs, pick(visibility), pick([" ", "\n", "/* m */ "]), "mod", pick([" ", "\t", " /* n */ "]), pick(names), pick(gaps), ";", pick(gaps), pick(noise)].join("");
      const found = declaredTestModules(text);
      if (found.length > 0) declarations++;
      assert.ok(found.length === 0 || mayDeclareTestModule(text), `the pre-filter says no to ${JSON.stringify(text)}, where the lexer finds ${found.join(", ")}`);
    }
    assert.ok(declarations > 1000, `only ${declarations} generated texts declare a test module`);
  });

  it("says maybe wherever the lexer finds one in the fixtures, and no for texts without", () => {
    let declaring = 0;
    for (const file of rustFiles(fixture("."))) {
      const text = readFileSync(file, "utf8");
      if (declaredTestModules(text).length === 0) continue;
      declaring++;
      assert.ok(mayDeclareTestModule(text), file);
    }
    assert.ok(declaring >= 2, `${declaring} fixtures declare test modules`);
    for (const text of ["mod tests;", "#[cfg(test)] mod tests { }", "#[cfg(test)] fn f() {}", "#[cfg(test)]\nuse a::b;\nmod other;\n", "#[cfg(unix)]\npub mod ops;\n"]) {
      assert.deepEqual(declaredTestModules(text), [], text);
      assert.equal(mayDeclareTestModule(text), false, text);
    }
  });
});
