/**
 * The plain parser: tree-sitter's node binding (the `tree-sitter` package, which ships its own
 * prebuilds) parses on the calling thread, and a cursor reads the tree once into the columns the
 * addon gives (`FlatTree`, see parse.ts), so extraction reads either the same way.
 */
import { createRequire } from "node:module";
import type TreeSitter from "tree-sitter";
import type { FlatTree, Grammar, Range, TreeParser } from "./parse.js";

const require = createRequire(import.meta.url);

/** ERROR's symbol, as tree-sitter gives it. */
const ERROR_SYMBOL = 0xffff;

/**
 * A parser over tree-sitter's node binding, the binding and the Rust grammar loaded by its first
 * use. Its grammar's names are those of the ids its trees have held so far (so every id of a tree
 * it gave is named).
 * Note: the binding lists a grammar's names by id only internally; a cursor gives each node's
 * type and field by id and by name, so the names are learnt from the trees. An id no tree has held
 * is one no node read so far can have.
 */
export function bindingParser(): TreeParser {
  let parser: TreeSitter | undefined;
  const types: string[] = [];
  const fields: string[] = [""];
  const fieldIds = new Map<string, number>([["", 0]]);
  const grammar: Grammar = { types, fields, fieldIds };
  const names: Names = { types, fields, fieldIds };
  return {
    grammar: () => grammar,
    parse: (text, ranges) => {
      if (typeof text !== "string") throw new TypeError("parse: the text must be a string");
      parser ??= newParser();
      const tree = parser.parse(text, undefined, ranges === undefined ? undefined : { includedRanges: ranges as TreeSitter.Range[] });
      const flat = flatten(tree, names, grammar);
      // Note: the binding's tree is freed when the garbage collector finds it, which needs the event loop to turn.
      return new Promise((resolve) => setImmediate(resolve, flat));
    },
  };
}

/** The parser `parseNow` uses, made by its first call. */
let now: { readonly parser: TreeSitter; readonly names: Names; readonly grammar: Grammar } | undefined;

/**
 * Parses `ranges` of `text` on the calling thread, at once (the binding's parse is synchronous):
 * for the few small parts extraction reads again after the file's parse (a macro's body read as
 * items), where waiting for the thread pool would split extraction in two.
 */
export function parseNow(text: string, ranges: readonly Range[]): FlatTree {
  if (now === undefined) {
    const types: string[] = [];
    const fields: string[] = [""];
    const fieldIds = new Map<string, number>([["", 0]]);
    now = { parser: newParser(), names: { types, fields, fieldIds }, grammar: { types, fields, fieldIds } };
  }
  return flatten(now.parser.parse(text, undefined, { includedRanges: ranges as TreeSitter.Range[] }), now.names, now.grammar);
}

function newParser(): TreeSitter {
  const Parser = require("tree-sitter") as typeof TreeSitter;
  const parser = new Parser();
  parser.setLanguage(require("tree-sitter-rust") as TreeSitter.Language);
  return parser;
}

/** The names learnt so far, by id. */
interface Names {
  readonly types: string[];
  readonly fields: string[];
  readonly fieldIds: Map<string, number>;
}

/** The tree's nodes in preorder, as the addon's columns. */
function flatten(tree: TreeSitter.Tree, names: Names, grammar: Grammar): FlatTree {
  const root = tree.rootNode;
  const count = root.descendantCount;
  const nodes = new ArrayBuffer(count * 6 * 4);
  const column = (k: number) => new Int32Array(nodes, k * count * 4, count);
  const starts = column(0);
  const ends = column(1);
  const parents = column(2);
  const nexts = column(3);
  const prevs = column(4);
  const metas = column(5);
  // The open ancestors and, for each, its last child so far.
  const open: number[] = [];
  const last: number[] = [];
  const cursor = tree.walk();
  let n = 0;
  for (;;) {
    if (n === count) throw new Error("parse: the tree has more nodes than it counts");
    const depth = open.length;
    const before = depth > 0 ? last[depth - 1]! : -1;
    starts[n] = cursor.startIndex;
    ends[n] = cursor.endIndex;
    parents[n] = depth > 0 ? open[depth - 1]! : -1;
    nexts[n] = -1;
    prevs[n] = before;
    const symbol = cursor.nodeTypeId;
    if (symbol !== ERROR_SYMBOL && names.types[symbol] === undefined) names.types[symbol] = cursor.nodeType;
    const field = cursor.currentFieldId;
    if (field !== 0 && names.fields[field] === undefined) learnField(names, field, cursor.currentFieldName);
    metas[n] = symbol | (field << 16) | (cursor.nodeIsNamed ? 1 << 24 : 0) | (cursor.nodeIsMissing ? 1 << 25 : 0);
    if (before >= 0) nexts[before] = n;
    if (depth > 0) last[depth - 1] = n;
    n++;
    if (cursor.gotoFirstChild()) {
      open.push(n - 1);
      last.push(-1);
      continue;
    }
    while (!cursor.gotoNextSibling()) {
      if (open.length === 0 || !cursor.gotoParent()) {
        if (n !== count) throw new Error("parse: the tree has fewer nodes than it counts");
        return { nodes, count, hasError: root.hasError, grammar };
      }
      open.pop();
      last.pop();
    }
  }
}

function learnField(names: Names, id: number, name: string): void {
  // Note: the same bits as the addon's columns, which hold field ids up to 255.
  if (id > 0xff) throw new Error(`parse: the grammar's field ${name} has id ${id}; the tree's columns hold 255`);
  names.fields[id] = name;
  names.fieldIds.set(name, id);
}
