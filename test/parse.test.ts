/**
 * The two parsers behind `parseTree` (`pipeline/parse.ts`): the addon's and the plain one over
 * tree-sitter's node binding. Each one's flat tree is the binding's tree as its cursor reads it,
 * node for node (type, span, named, missing, field), on every Rust fixture, whole and in included
 * ranges; and the two give the same columns, byte for byte.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type Parser from "tree-sitter";
import type { FlatTree, Range, TreeParser } from "../pipeline/parse.js";
import { Lines, TreeView } from "../pipeline/tree-view.js";
import { needsAddon, parsers, rustFixtures } from "./helpers/rust.js";

const require = createRequire(import.meta.url);

/** Each node in preorder as the binding's cursor reads it. */
function bindingNodes(tree: Parser.Tree): string[] {
  const out: string[] = [];
  const cursor = tree.walk();
  for (;;) {
    out.push(`${cursor.nodeType} ${cursor.startIndex}-${cursor.endIndex} named=${cursor.nodeIsNamed} missing=${cursor.nodeIsMissing} field=${cursor.currentFieldName ?? ""}`);
    if (cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return out;
  }
}

/** Each node in preorder as the flat tree's columns give it, named by its grammar. */
function flatNodes(tree: FlatTree): string[] {
  const grammar = tree.grammar;
  const column = (k: number) => new Int32Array(tree.nodes, k * tree.count * 4, tree.count);
  const [starts, ends, , , , metas] = [0, 1, 2, 3, 4, 5].map(column) as [Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array];
  const out: string[] = [];
  for (let k = 0; k < tree.count; k++) {
    const meta = metas[k]!;
    const symbol = meta & 0xffff;
    out.push(`${symbol === 0xffff ? "ERROR" : grammar.types[symbol]} ${starts[k]}-${ends[k]} named=${(meta & (1 << 24)) !== 0} missing=${(meta & (1 << 25)) !== 0} field=${grammar.fields[(meta >> 16) & 0xff]}`);
  }
  return out;
}

/** Every other line of `text` as its own range: trees with ERROR nodes, rows and columns that matter. */
function everyOtherLine(text: string): Range[] {
  const lines = new Lines(text);
  const ranges: Range[] = [];
  for (let at = 0, k = 0; at < text.length; k++) {
    const nl = text.indexOf("\n", at);
    const end = nl < 0 ? text.length : nl + 1;
    if (k % 2 === 0 && end > at) ranges.push({ startIndex: at, endIndex: end, startPosition: lines.pointOf(at), endPosition: lines.pointOf(end) });
    at = end;
  }
  return ranges;
}

const files = rustFixtures();
const texts = files.map((f) => readFileSync(f, "utf8"));

describe("the parsers", () => {
  const binding = new (require("tree-sitter") as typeof Parser)();
  binding.setLanguage(require("tree-sitter-rust") as Parser.Language);

  it("finds the fixtures", () => assert.ok(files.length >= 30, `only ${files.length} Rust fixtures`));

  for (const { name, parser } of parsers()) {
    describe(name, () => {
      it("gives the binding's tree for every fixture, whole and in ranges", async () => {
        let compared = 0;
        for (const [k, file] of files.entries()) {
          const text = texts[k]!;
          const whole = await parser.parse(text);
          const reference = binding.parse(text);
          assert.deepEqual(flatNodes(whole), bindingNodes(reference), `${file}: whole`);
          assert.equal(whole.hasError, reference.rootNode.hasError, `${file}: hasError`);
          const ranges = everyOtherLine(text);
          const part = await parser.parse(text, ranges);
          assert.deepEqual(flatNodes(part), bindingNodes(binding.parse(text, undefined, { includedRanges: ranges })), `${file}: ranges`);
          compared += whole.count + part.count;
        }
        assert.ok(compared > 10_000, `${compared} nodes compared`);
      });

      it("has several parses in flight at once", async () => {
        const together = await Promise.all(texts.map((t) => parser.parse(t)));
        for (const [k, t] of texts.entries()) assert.deepEqual(flatNodes(together[k]!), flatNodes(await parser.parse(t)));
      });

      it("reads a tree however deep", async () => {
        const depth = 20_000;
        const text = `fn f() { let x = ${"(".repeat(depth)}1${")".repeat(depth)}; }`;
        const tree = await parser.parse(text);
        const view = new TreeView(tree, text, new Lines(text));
        const one = view.path(text.indexOf("1"), text.indexOf("1") + 1);
        assert.equal(one.type, "integer_literal");
        let parenthesised = 0;
        for (let n = one.parent; n !== null; n = n.parent) if (n.type === "parenthesized_expression") parenthesised++;
        assert.equal(parenthesised, depth);
      });

      it("says what is wrong with its input", async () => {
        assert.throws(() => parser.parse(7 as unknown as string), /the text must be a string/);
        const tree = await parser.parse("fn main() { let x = ; }");
        assert.equal(tree.hasError, true);
      });
    });
  }

  it("gives the same columns both ways, byte for byte", needsAddon, async () => {
    const [native, plain] = parsers().map((p) => p.parser) as [TreeParser, TreeParser];
    for (const [k, file] of files.entries()) {
      for (const ranges of [undefined, everyOtherLine(texts[k]!)]) {
        const [a, b] = await Promise.all([native.parse(texts[k]!, ranges), plain.parse(texts[k]!, ranges)]);
        assert.equal(a.count, b.count, `${file}: count`);
        assert.equal(a.hasError, b.hasError, `${file}: hasError`);
        assert.ok(Buffer.from(a.nodes).equals(Buffer.from(b.nodes)), `${file}${ranges ? " (ranges)" : ""}: columns`);
      }
    }
    // The names the plain parser learnt from its trees are the grammar's.
    const learnt = plain.grammar();
    learnt.types.forEach((type, id) => assert.equal(type, native.grammar().types[id], `type ${id}`));
    learnt.fields.forEach((field, id) => assert.equal(field, native.grammar().fields[id], `field ${id}`));
    assert.ok(learnt.types.filter((t) => t !== undefined).length > 100 && learnt.fieldIds.size > 20, "names learnt");
  });
});
