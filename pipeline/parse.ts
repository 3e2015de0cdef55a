/**
 * tree-sitter off the JavaScript thread: the text is parsed by tree-sitter's C library on libuv's
 * thread pool (`native/`, built at install), and the tree comes back as flat arrays.
 *
 * Note: the node binding parses on the calling thread and reads each node through a native call;
 * parsing here lets the calling thread lex and read other files meanwhile, on the machine's other
 * core, and reading a node is an array read. The trees are those of the binding, node for node
 * (same library, same grammar).
 */
import { createRequire } from "node:module";
import { addon } from "./native.js";

/** One range tree-sitter reads, in UTF-16 offsets and 0-based rows and columns. */
export interface Range {
  readonly startIndex: number;
  readonly endIndex: number;
  readonly startPosition: { readonly row: number; readonly column: number };
  readonly endPosition: { readonly row: number; readonly column: number };
}

/**
 * A syntax tree as flat columns, one entry per node in preorder (the root first): see
 * `native/src/parse.c`.
 */
export interface FlatTree {
  readonly nodes: ArrayBuffer;
  readonly count: number;
  readonly hasError: boolean;
}

/** Parses `text`, or only `ranges` of it when given. */
export type ParseTree = (text: string, ranges?: readonly Range[]) => Promise<FlatTree>;

/** The grammar's names of node types and fields, by id. */
export interface Grammar {
  readonly types: readonly string[];
  readonly fields: readonly string[];
  readonly fieldIds: ReadonlyMap<string, number>;
}

const require = createRequire(import.meta.url);

let loaded: { language: unknown; grammar: Grammar } | undefined;

/** The Rust grammar, loaded by the first parse (a run that parses nothing never loads it). */
function load(): NonNullable<typeof loaded> {
  if (loaded !== undefined) return loaded;
  const language = require("tree-sitter-rust") as unknown;
  const fields = addon().fieldNames(language);
  const grammar: Grammar = { types: addon().symbolNames(language), fields, fieldIds: new Map(fields.map((name, id) => [name, id])) };
  loaded = { language, grammar };
  return loaded;
}

/** The names of the grammar's node types and fields. */
export function grammar(): Grammar {
  return load().grammar;
}

/** Parses `text` (only `ranges` of it when given) on the thread pool. */
export const parseTree: ParseTree = (text, ranges) => {
  const { language } = load();
  const native = addon();
  if (ranges === undefined) return native.parse(language, text);
  const packed = new Int32Array(ranges.length * 6);
  ranges.forEach((r, k) => packed.set([r.startIndex, r.endIndex, r.startPosition.row, r.startPosition.column, r.endPosition.row, r.endPosition.column], k * 6));
  return native.parse(language, text, packed);
};
