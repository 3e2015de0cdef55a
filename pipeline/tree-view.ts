/**
 * A parsed file's syntax tree (`FlatTree`, flat arrays from `parse.ts`) read through node objects
 * made as they are met, and what extraction derives from a node (is it a test item, which cfg
 * gates stand before it, …) kept beside it for the other sites of the file.
 *
 * Note: a file's sites share most of their ancestors (the function, the impl, the module): each
 * node's object, and what is derived from it, is made once per file.
 */
import type { FlatTree } from "./parse.js";
import { TEST_WORDS } from "./rust/index.js";

/** One node of the tree. */
export class ViewNode {
  private fields: Map<string, ViewNode | null> | undefined;
  private memos: Map<string, unknown> | undefined;

  constructor(
    readonly view: TreeView,
    /** Its place in the tree's preorder (0: the root). */
    readonly index: number,
  ) {}

  /** The node's type (`function_item`, `identifier`, `(`, …). */
  get type(): string {
    return this.view.typeOf(this.index);
  }

  /** Offset of the node's start in the file text. */
  get start(): number {
    return this.view.starts[this.index]!;
  }

  /** Offset just past the node's end. */
  get end(): number {
    return this.view.ends[this.index]!;
  }

  /** The parent node, or null at the root. */
  get parent(): ViewNode | null {
    return this.view.node(this.view.parents[this.index]!);
  }

  /** The node's text (a slice of the file text). */
  get text(): string {
    return this.view.text.slice(this.start, this.end);
  }

  /** 1-based line of the node's start. */
  get line(): number {
    return this.view.lineOf(this.start);
  }

  /** Its children, named or not, in order. */
  get children(): ViewNode[] {
    const out: ViewNode[] = [];
    for (let c = this.view.firstChild(this.index); c >= 0; c = this.view.nexts[c]!) out.push(this.view.node(c)!);
    return out;
  }

  /** Its named children, in order. */
  get namedChildren(): ViewNode[] {
    const out: ViewNode[] = [];
    for (let c = this.view.firstChild(this.index); c >= 0; c = this.view.nexts[c]!) if (this.view.isNamed(c)) out.push(this.view.node(c)!);
    return out;
  }

  /** The first named child, or null. */
  get firstNamedChild(): ViewNode | null {
    let c = this.view.firstChild(this.index);
    while (c >= 0 && !this.view.isNamed(c)) c = this.view.nexts[c]!;
    return this.view.node(c);
  }

  /** The named sibling before it, or null. */
  get previousNamedSibling(): ViewNode | null {
    let c = this.view.prevs[this.index]!;
    while (c >= 0 && !this.view.isNamed(c)) c = this.view.prevs[c]!;
    return this.view.node(c);
  }

  /** The first child in field `name` (as `childForFieldName` gives it), or null. */
  field(name: string): ViewNode | null {
    this.fields ??= new Map();
    let child = this.fields.get(name);
    if (child === undefined) {
      const id = this.view.tree.grammar.fieldIds.get(name) ?? -1;
      let c = this.view.firstChild(this.index);
      while (c >= 0 && this.view.fieldOf(c) !== id) c = this.view.nexts[c]!;
      child = this.view.node(c);
      this.fields.set(name, child);
    }
    return child;
  }

  /** The text of the child in field `name`, or "" when there is none. */
  fieldText(name: string): string {
    return this.field(name)?.text ?? "";
  }

  /** True when `other` is this node as the facts compare nodes: same span and type. */
  same(other: ViewNode | null): boolean {
    return other !== null && other.start === this.start && other.end === this.end && other.type === this.type;
  }

  /** `compute()` once per node and `key`; later calls return the first answer. */
  memo<T>(key: string, compute: () => T): T {
    this.memos ??= new Map();
    if (this.memos.has(key)) return this.memos.get(key) as T;
    const value = compute();
    this.memos.set(key, value);
    return value;
  }
}

/** A child as `namedChildren` lists it: its type and span. */
export interface ChildSpan {
  readonly type: string;
  readonly start: number;
  readonly end: number;
}

/** The named children of `node`, as types and spans only. */
export function namedChildSpans(node: ViewNode): ChildSpan[] {
  return node.namedChildren.map((c) => ({ type: c.type, start: c.start, end: c.end }));
}

/** Lines and columns of a file's offsets, as tree-sitter counts them. */
export class Lines {
  private starts: number[] | undefined;

  constructor(readonly text: string) {}

  /** 1-based line of `offset` (line feeds before it). */
  lineOf(offset: number): number {
    const starts = (this.starts ??= lineStartsOf(this.text));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** 1-based column of `offset` in UTF-16 code units, as tree-sitter's node bindings count it. */
  columnOf(offset: number): number {
    return offset === 0 ? 1 : offset - this.text.lastIndexOf("\n", offset - 1);
  }

  /** The tree-sitter point (0-based row and column) of `offset`. */
  pointOf(offset: number): { row: number; column: number } {
    return { row: this.lineOf(offset) - 1, column: this.columnOf(offset) - 1 };
  }
}

/** The cached view of one parsed file. */
export class TreeView {
  readonly root: ViewNode;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly parents: Int32Array;
  readonly nexts: Int32Array;
  readonly prevs: Int32Array;
  private readonly metas: Int32Array;
  private readonly types: readonly string[];
  private readonly made: (ViewNode | undefined)[] = [];
  private readonly memos = new Map<string, unknown>();

  constructor(
    readonly tree: FlatTree,
    readonly text: string,
    readonly lines: Lines = new Lines(text),
  ) {
    const column = (k: number) => new Int32Array(tree.nodes, k * tree.count * 4, tree.count);
    this.starts = column(0);
    this.ends = column(1);
    this.parents = column(2);
    this.nexts = column(3);
    this.prevs = column(4);
    this.metas = column(5);
    this.types = tree.grammar.types;
    this.root = this.node(0)!;
  }

  /** The node at `index` in preorder, null for -1. */
  node(index: number): ViewNode | null {
    if (index < 0) return null;
    return (this.made[index] ??= new ViewNode(this, index));
  }

  /** The type of the node at `index`. */
  typeOf(index: number): string {
    const symbol = this.metas[index]! & 0xffff;
    return symbol === 0xffff ? "ERROR" : this.types[symbol]!;
  }

  /** The field id the node at `index` fills in its parent (0: none). */
  fieldOf(index: number): number {
    return (this.metas[index]! >> 16) & 0xff;
  }

  isNamed(index: number): boolean {
    return (this.metas[index]! & (1 << 24)) !== 0;
  }

  /** The first child of the node at `index` (the next in preorder, when it is a child), or -1. */
  firstChild(index: number): number {
    return index + 1 < this.tree.count && this.parents[index + 1] === index ? index + 1 : -1;
  }

  /**
   * The smallest node spanning `start…end`, as `descendantForIndex(start, end)` finds it (for a
   * non-empty range): from the root down, each step takes the first child that ends after `start`
   * (what `gotoFirstChildForIndex` moves to) while it spans the whole range.
   */
  path(start: number, end: number): ViewNode {
    let at = 0;
    for (;;) {
      let c = this.firstChildEndingAfter(at, start);
      if (c < 0 || this.starts[c]! > start || this.ends[c]! < end) return this.node(at)!;
      at = c;
    }
  }

  /** The children of the node at `index` with many of them, in order (made when first asked for). */
  private readonly childLists = new Map<number, Int32Array>();

  /**
   * The first child of the node at `index` that ends after `offset`, or -1.
   * Note: siblings end in order; a node with many children (a file's items) is searched by halves.
   */
  firstChildEndingAfter(index: number, offset: number): number {
    let c = this.firstChild(index);
    for (let k = 0; k < 8; k++) {
      if (c < 0 || this.ends[c]! > offset) return c;
      c = this.nexts[c]!;
    }
    let list = this.childLists.get(index);
    if (list === undefined) {
      const out: number[] = [];
      for (let d = this.firstChild(index); d >= 0; d = this.nexts[d]!) out.push(d);
      list = Int32Array.from(out);
      this.childLists.set(index, list);
    }
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.ends[list[mid]!]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo < list.length ? list[lo]! : -1;
  }

  /**
   * False when no attribute that starts at or after `from` and ends by `to` can be `#[test]`-like
   * or `#[cfg(test)]`-like: such an attribute starts with `#[` (or `#![`), white space allowed,
   * and holds one of the table's `TEST_WORDS`. A text check that spares walking siblings.
   */
  testAttributeBetween(from: number, to: number): boolean {
    const attributes = this.attributeStarts;
    const words = this.memo("testWords", () => offsetsOf(this.text, TEST_WORD));
    const attribute = attributes[firstAtOrAfter(attributes, from)];
    if (attribute === undefined || attribute >= to) return false;
    const word = words[firstAtOrAfter(words, attribute)];
    return word !== undefined && word < to;
  }

  /** False when no `#[cfg(` (or `#![cfg(`, white space allowed) starts at or after `from` and before `to`. */
  cfgAttributeBetween(from: number, to: number): boolean {
    const starts = this.cfgAttributeStarts;
    const start = starts[firstAtOrAfter(starts, from)];
    return start !== undefined && start < to;
  }

  /**
   * Offsets where `/#\s*!?\s*\[/` matches, in order.
   * Note: each match starts at a `#` and holds no other, so testing at each `#` (found by
   * `indexOf`; `#` is rare in Rust) gives the matches a global search gives, faster.
   */
  get attributeStarts(): number[] {
    return this.memo("attributeStarts", () => {
      const out: number[] = [];
      for (let i = this.text.indexOf("#"); i >= 0; i = this.text.indexOf("#", i + 1)) {
        ATTRIBUTE_AT.lastIndex = i;
        if (ATTRIBUTE_AT.test(this.text)) out.push(i);
      }
      return out;
    });
  }

  /** Offsets where `/#\s*!?\s*\[\s*cfg\s*\(/` matches, in order. */
  get cfgAttributeStarts(): number[] {
    return this.memo("cfgAttributeStarts", () =>
      this.attributeStarts.filter((i) => {
        CFG_AT.lastIndex = i;
        return CFG_AT.test(this.text);
      }),
    );
  }

  /** True when the tree has ERROR or MISSING nodes. */
  get hasError(): boolean {
    return this.tree.hasError;
  }

  /** `node` and its ancestors up to the root, innermost first. */
  chain(node: ViewNode): ViewNode[] {
    const out: ViewNode[] = [];
    for (let a: ViewNode | null = node; a !== null; a = a.parent) out.push(a);
    return out;
  }

  /** 1-based line of `offset`, as tree-sitter counts rows (line feeds before it). */
  lineOf(offset: number): number {
    return this.lines.lineOf(offset);
  }

  /** `compute()` once per file and `key`. */
  memo<T>(key: string, compute: () => T): T {
    if (this.memos.has(key)) return this.memos.get(key) as T;
    const value = compute();
    this.memos.set(key, value);
    return value;
  }
}

const ATTRIBUTE_AT = /#\s*!?\s*\[/y;
const TEST_WORD = new RegExp(TEST_WORDS.join("|"), "g");
const CFG_AT = /#\s*!?\s*\[\s*cfg\s*\(/y;

/** Where `pattern` (global) matches in `text`, in order. */
function offsetsOf(text: string, pattern: RegExp): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(pattern)) out.push(m.index);
  return out;
}

/** Index of the first element of the sorted `values` that is at least `value` (their length when none is). */
function firstAtOrAfter(values: readonly number[], value: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Offsets where lines start: 0 and each offset right after a line feed. */
export function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}
