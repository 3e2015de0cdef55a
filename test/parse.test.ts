/**
 * The native parse (`pipeline/parse.ts`): its flat tree is the node binding's tree, node for node
 * (type, span, named, missing, field), on every Rust fixture, whole and in included ranges.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type Parser from "tree-sitter";
import { type FlatTree, grammar, parseTree, type Range } from "../pipeline/parse.js";
import { Lines, TreeView } from "../pipeline/tree-view.js";
import { fixture } from "./helpers/git.js";

const require = createRequire(import.meta.url);

function rustFixtures(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".rs")) out.push(full);
    }
  };
  walk(fixture("."));
  return out.sort();
}

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

/** Each node in preorder as the flat tree gives it. */
function flatNodes(tree: FlatTree, text: string): string[] {
  const view = new TreeView(tree, text, new Lines(text));
  const out: string[] = [];
  for (let k = 0; k < tree.count; k++) {
    const meta = new Int32Array(tree.nodes, 5 * tree.count * 4, tree.count)[k]!;
    out.push(`${view.typeOf(k)} ${view.starts[k]}-${view.ends[k]} named=${view.isNamed(k)} missing=${(meta & (1 << 25)) !== 0} field=${grammar().fields[view.fieldOf(k)]}`);
  }
  return out;
}

describe("native parse", () => {
  const parser = new (require("tree-sitter") as typeof Parser)();
  parser.setLanguage(require("tree-sitter-rust") as Parser.Language);
  const files = rustFixtures();

  it("finds the fixtures", () => assert.ok(files.length >= 30, `only ${files.length} Rust fixtures`));

  it("gives the binding's tree for every fixture, whole and in ranges", async () => {
    let compared = 0;
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      const input = (index: number) => text.slice(index, index + 65536);
      const whole = await parseTree(text);
      assert.deepEqual(flatNodes(whole, text), bindingNodes(parser.parse(input)), `${file}: whole`);
      assert.equal(whole.hasError, parser.parse(input).rootNode.hasError, `${file}: hasError`);
      // Every other line as its own range: trees with ERROR nodes, rows and columns that matter.
      const lines = new Lines(text);
      const ranges: Range[] = [];
      for (let at = 0, k = 0; at < text.length; k++) {
        const nl = text.indexOf("\n", at);
        const end = nl < 0 ? text.length : nl + 1;
        if (k % 2 === 0 && end > at) ranges.push({ startIndex: at, endIndex: end, startPosition: lines.pointOf(at), endPosition: lines.pointOf(end) });
        at = end;
      }
      const part = await parseTree(text, ranges);
      assert.deepEqual(flatNodes(part, text), bindingNodes(parser.parse(input, undefined, { includedRanges: ranges })), `${file}: ranges`);
      compared += whole.count + part.count;
    }
    assert.ok(compared > 10_000, `${compared} nodes compared`);
  });

  it("has several parses in flight at once", async () => {
    const texts = files.map((f) => readFileSync(f, "utf8"));
    const together = await Promise.all(texts.map((t) => parseTree(t)));
    for (const [k, t] of texts.entries()) assert.deepEqual(flatNodes(together[k]!, t), flatNodes(await parseTree(t), t));
  });

  it("reads a tree however deep", async () => {
    const depth = 20_000;
    const text = `fn f() { let x = ${"(".repeat(depth)}1${")".repeat(depth)}; }`;
    const tree = await parseTree(text);
    const view = new TreeView(tree, text, new Lines(text));
    const one = view.path(text.indexOf("1"), text.indexOf("1") + 1);
    assert.equal(one.type, "integer_literal");
    let parenthesised = 0;
    for (let n = one.parent; n !== null; n = n.parent) if (n.type === "parenthesized_expression") parenthesised++;
    assert.equal(parenthesised, depth);
  });

  it("says what is wrong with its input", async () => {
    assert.throws(() => parseTree(7 as unknown as string), /the text must be a string/);
    const tree = await parseTree("fn main() { let x = ; }");
    assert.equal(tree.hasError, true);
  });
});
