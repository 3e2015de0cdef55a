/**
 * A parsed file's syntax tree read through a cache: each node's type, span, parent and field
 * children cross from native code once, and what extraction derives from a node (is it a test
 * item, which cfg gates stand before it, …) is kept beside it for the other sites of the file.
 *
 * Note: node properties cross into native code (a few µs each; `parent` searches down from the
 * root every time) and a file's sites share most of their ancestors (the function, the impl, the
 * module). So the nodes around an offset are found by descending from the root with one tree
 * cursor (`path`), which reads types and spans without making node objects, and a descent goes
 * through the nodes earlier descents met without asking the tree again. Node objects are made
 * only for the nodes whose siblings or fields are read. Every cached value is a function of the
 * node alone, so a node met twice under two entries only costs time.
 */
import type Parser from "tree-sitter";

type Node = Parser.SyntaxNode;

/** How a node is first met: as an object from the binding, or on a cursor descent. */
type Origin = { readonly node: Node } | { readonly type: string; readonly start: number; readonly end: number; readonly parent: ViewNode | null; readonly object?: Node };

/** One node as the view read it. */
export class ViewNode {
  private kind: string | undefined;
  private from = -1;
  private to = -1;
  private object: Node | undefined;
  private up: ViewNode | null | undefined;
  /** Non-empty children met on descents, sorted by start (kept by `TreeView.path`). */
  kids: ViewNode[] | undefined;
  private fields: Map<string, ViewNode | null> | undefined;
  private memos: Map<string, unknown> | undefined;

  constructor(
    readonly view: TreeView,
    origin: Origin,
  ) {
    if ("node" in origin) {
      this.object = origin.node;
    } else {
      this.kind = origin.type;
      this.from = origin.start;
      this.to = origin.end;
      this.up = origin.parent;
      this.object = origin.object;
    }
  }

  /** The binding's node object, made when first asked for. */
  get node(): Node {
    return (this.object ??= this.view.nodeAt(this));
  }

  /** The node's type (`function_item`, `identifier`, `(`, …). */
  get type(): string {
    return (this.kind ??= this.node.type);
  }

  /** Offset of the node's start in the file text. */
  get start(): number {
    if (this.from < 0) this.from = this.node.startIndex;
    return this.from;
  }

  /** Offset just past the node's end. */
  get end(): number {
    if (this.to < 0) this.to = this.node.endIndex;
    return this.to;
  }

  /** The parent node, or null at the root. */
  get parent(): ViewNode | null {
    if (this.up === undefined) this.up = this.view.wrap(this.node.parent);
    return this.up;
  }

  /** The node's text (a slice of the file text, as the binding's `text` gives it). */
  get text(): string {
    return this.view.text.slice(this.start, this.end);
  }

  /** 1-based line of the node's start. */
  get line(): number {
    return this.view.lineOf(this.start);
  }

  /** The child in field `name` (`childForFieldName`), or null. */
  field(name: string): ViewNode | null {
    this.fields ??= new Map();
    let child = this.fields.get(name);
    if (child === undefined) {
      child = this.view.wrap(this.node.childForFieldName(name));
      this.fields.set(name, child);
    }
    return child;
  }

  /** The text of the child in field `name`, or "" when there is none. */
  fieldText(name: string): string {
    return this.field(name)?.text ?? "";
  }

  /** True when `other` is this node as the facts compare nodes: same span and type (wrappers differ). */
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

/** A child as `namedChildren` lists it, read without making a node object. */
export interface ChildSpan {
  readonly type: string;
  readonly start: number;
  readonly end: number;
}

/**
 * The named children of `node`: the same list, in the same order, as `namedChildren` (which the
 * binding reads with a tree cursor too), as types and spans only.
 * Note: `namedChildren` makes a wrapper object per child, which costs more than reading the child.
 */
export function namedChildSpans(node: Node): ChildSpan[] {
  const out: ChildSpan[] = [];
  const cursor = node.walk();
  if (cursor.gotoFirstChild()) {
    do {
      if (cursor.nodeIsNamed) out.push({ type: cursor.nodeType, start: cursor.startIndex, end: cursor.endIndex });
    } while (cursor.gotoNextSibling());
  }
  return out;
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
  private readonly byNode = new Map<Node, ViewNode>();
  private readonly memos = new Map<string, unknown>();
  private cursor: Parser.TreeCursor | undefined;
  /** The nodes from the root down to where the cursor stands. */
  private cursorPath: ViewNode[] = [];

  constructor(
    readonly tree: Parser.Tree,
    readonly text: string,
    readonly lines: Lines = new Lines(text),
  ) {
    const root = tree.rootNode;
    this.root = new ViewNode(this, { type: root.type, start: root.startIndex, end: root.endIndex, parent: null, object: root });
    this.byNode.set(root, this.root);
  }

  /** The view of `node` (null for null). */
  wrap(node: Node | null): ViewNode | null {
    if (node === null) return null;
    let seen = this.byNode.get(node);
    if (seen === undefined) {
      seen = new ViewNode(this, { node });
      this.byNode.set(node, seen);
    }
    return seen;
  }

  /**
   * The smallest node spanning `start…end`, as `descendantForIndex(start, end)` finds it (for a
   * non-empty range), with its ancestors as parents.
   * Note: from the root down, each step takes the first child that ends after `start` (what
   * `gotoFirstChildForIndex` moves to) while it spans the whole range; `descendantForIndex`
   * takes the same child, since children do not overlap.
   */
  path(start: number, end: number): ViewNode {
    let at = this.root;
    for (;;) {
      const kids = (at.kids ??= []);
      // The last non-empty child met so far that starts at or before `start`.
      let lo = 0;
      let hi = kids.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (kids[mid]!.start <= start) lo = mid + 1;
        else hi = mid;
      }
      let next = lo > 0 && kids[lo - 1]!.end > start ? kids[lo - 1] : undefined;
      if (next === undefined) {
        const cursor = this.moveTo(at);
        if (cursor.gotoFirstChildForIndex(start) === null) return at;
        next = new ViewNode(this, { type: cursor.nodeType, start: cursor.startIndex, end: cursor.endIndex, parent: at });
        // Note: only non-empty children are kept (sorted by start): an empty one never spans an
        //   offset, and non-empty children do not overlap, so a span names one child.
        if (next.end > next.start) {
          const { start: from, end: to } = next;
          const known = kids.find((k) => k.start === from && k.end === to);
          if (known === undefined) kids.splice(lo, 0, next);
          else next = known;
        }
        this.cursorPath.push(next);
      }
      if (next.start > start || next.end < end) return at;
      at = next;
    }
  }

  /**
   * False when no attribute that starts at or after `from` and ends by `to` can be `#[test]`-like
   * or `#[cfg(test)]`-like: such an attribute starts with `#[` (or `#![`), white space allowed,
   * and holds `test` or `quickcheck`. A text check that spares walking siblings.
   */
  testAttributeBetween(from: number, to: number): boolean {
    const attributes = this.attributeStarts;
    const words = this.memo("testWords", () => offsetsOf(this.text, /test|quickcheck/g));
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
    return this.memo("hasError", () => this.tree.rootNode.hasError);
  }

  /** `node` and its ancestors up to the root, innermost first. */
  chain(node: ViewNode): ViewNode[] {
    const out: ViewNode[] = [];
    for (let a: ViewNode | null = node; a !== null; a = a.parent) out.push(a);
    return out;
  }

  /** The binding's object for a node met on a descent. */
  nodeAt(node: ViewNode): Node {
    const object = this.moveTo(node).currentNode;
    if (!this.byNode.has(object)) this.byNode.set(object, node);
    return object;
  }

  /**
   * The cursor, standing on `node` (one met on a descent): up to the nearest of its ancestors on
   * the cursor's path, then down again the way descents go (each node spans its own start).
   */
  private moveTo(node: ViewNode): Parser.TreeCursor {
    if (this.cursor === undefined) {
      this.cursor = this.tree.walk();
      this.cursorPath = [this.root];
    }
    const cursor = this.cursor;
    const path = this.cursorPath;
    const down: ViewNode[] = [];
    let i = path.lastIndexOf(node);
    for (let a = node; i < 0; i = path.lastIndexOf(a)) {
      down.push(a);
      a = a.parent!;
    }
    for (let k = path.length - 1; k > i; k--) cursor.gotoParent();
    path.length = i + 1;
    for (let k = down.length - 1; k >= 0; k--) {
      cursor.gotoFirstChildForIndex(down[k]!.start);
      path.push(down[k]!);
    }
    return cursor;
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
function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}
