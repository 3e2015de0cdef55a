/**
 * tree-sitter's parse of a file as flat columns (`FlatTree`), behind a seam (`TreeParser`) with two
 * implementations that give the same columns: the addon's, where tree-sitter's C library parses
 * on libuv's thread pool (`native/src/parse.c`), and the plain one, tree-sitter's node binding on
 * the calling thread walked with a cursor (`parse-binding.ts`). Which one a process uses is
 * decided once (`native.ts`).
 *
 * Note: the addon lets the calling thread lex and read other files while a parse runs, on the
 * machine's other core; with the binding, reading a node is a call into native code, so the plain
 * parser reads every node once into the columns. Both are tree-sitter's library at the version the
 * `tree-sitter` package vendors and the grammar of `tree-sitter-rust`: the trees are the same, node
 * for node (`test/parse.test.ts`).
 */
import { createRequire } from "node:module";
import { type Addon, addon } from "./native.js";
import { bindingParser } from "./parse-binding.js";

/** One range tree-sitter reads, in UTF-16 offsets and 0-based rows and columns. */
export interface Range {
  readonly startIndex: number;
  readonly endIndex: number;
  readonly startPosition: { readonly row: number; readonly column: number };
  readonly endPosition: { readonly row: number; readonly column: number };
}

/**
 * A syntax tree as flat columns, one entry per node in preorder (the root first): six Int32
 * columns of `count` entries in `nodes`: start, end (UTF-16 offsets), parent, next sibling,
 * previous sibling (-1 for none), and meta: the symbol (bits 0-15; 0xffff for ERROR), the field
 * the node fills in its parent (bits 16-23), named (bit 24), missing (bit 25). As the addon
 * answers (`native/src/parse.c`).
 */
export interface RawTree {
  readonly nodes: ArrayBuffer;
  readonly count: number;
  readonly hasError: boolean;
}

/** A syntax tree as flat columns, with the names its ids stand for. */
export interface FlatTree extends RawTree {
  readonly grammar: Grammar;
}

/** Parses `text`, or only `ranges` of it when given. */
export type ParseTree = (text: string, ranges?: readonly Range[]) => Promise<FlatTree>;

/** The grammar's names of node types and fields, by id. */
export interface Grammar {
  readonly types: readonly string[];
  readonly fields: readonly string[];
  readonly fieldIds: ReadonlyMap<string, number>;
}

/** A way to parse Rust: its parse, and the names its trees' ids stand for. */
export interface TreeParser {
  readonly parse: ParseTree;
  /**
   * The names of the ids in the trees this parser gives (each tree's `grammar`): every id of the
   * grammar, or at least those of the trees it has given so far.
   */
  grammar(): Grammar;
}

const require = createRequire(import.meta.url);

/** The addon's parser, the Rust grammar loaded by its first use. */
export function nativeParser(native: Addon): TreeParser {
  let loaded: { language: unknown; grammar: Grammar } | undefined;
  const load = () => {
    if (loaded !== undefined) return loaded;
    const language = require("tree-sitter-rust") as unknown;
    const fields = native.fieldNames(language);
    loaded = { language, grammar: { types: native.symbolNames(language), fields, fieldIds: new Map(fields.map((name, id) => [name, id])) } };
    return loaded;
  };
  return {
    grammar: () => load().grammar,
    parse: (text, ranges) => {
      const { language, grammar } = load();
      let packed: Int32Array | undefined;
      if (ranges !== undefined) {
        packed = new Int32Array(ranges.length * 6);
        ranges.forEach((r, k) => packed!.set([r.startIndex, r.endIndex, r.startPosition.row, r.startPosition.column, r.endPosition.row, r.endPosition.column], k * 6));
      }
      return native.parse(language, text, packed).then(({ nodes, count, hasError }) => ({ nodes, count, hasError, grammar }));
    },
  };
}

let chosen: TreeParser | undefined;

/** The parser of this process: the addon's where it loads, else the binding's (see native.ts). */
export function treeParser(): TreeParser {
  if (chosen !== undefined) return chosen;
  const native = addon();
  chosen = native === null ? bindingParser() : nativeParser(native);
  return chosen;
}

/** The names of the grammar's node types and fields (those of this process's parser). */
export function grammar(): Grammar {
  return treeParser().grammar();
}

/** Parses `text` (only `ranges` of it when given) with this process's parser. */
export const parseTree: ParseTree = (text, ranges) => treeParser().parse(text, ranges);
