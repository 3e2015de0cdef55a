/**
 * A file's layout as one lexer pass sees it: its items (at the top level and in `impl`, `trait`
 * and `mod` bodies), and for each panic candidate whether it is code and what encloses it (an
 * attribute, a `macro_rules!` matcher, a macro's token tree, functions). Pure: text in, plain
 * data out.
 *
 * Note: this is what lets extraction parse only part of a file. Only the items that can hold a
 * catalogued site are handed to tree-sitter, as included ranges with the headers of the bodies
 * around them; a site in any other item is test code by its items' attributes or by its path,
 * and what it needs (is it code, in which macro, what stands before it) is read here, as are the
 * callers of a site's function (`callersOf` reads their items again on their own).
 * The pass itself is behind a seam (`LexerPass`): the addon's where it loads, else a plain one in
 * TypeScript, with the same columns.
 */
import { type Addon, addon } from "./native.js";
import { IDENT_START, IDENT_WORD, plainLayout } from "./layout-plain.js";

/** A candidate of the text scan: the name's offset, the name, and whether it is a macro's. */
export interface Hit {
  readonly at: number;
  readonly name: string;
  readonly macro: boolean;
}

/** A candidate as the lexer sees it. */
export interface Spot extends Hit {
  /** The innermost item that holds it, null before the first top-level item. */
  readonly item: Item | null;
  /** True when an identifier token equal to the name starts at `at` (not a comment, a string, a longer name). */
  readonly code: boolean;
  /** Inside an attribute (`#[…]`) or a `macro_rules!` matcher: never a site. */
  readonly excluded: boolean;
  /** Inside a macro invocation's token tree or a `macro_rules!` body. */
  readonly inTokenTree: boolean;
  /** Offset of the last code character before `at` (comments and white space skipped), -1 at the start. */
  readonly before: number;
  /**
   * Names of the functions whose bodies enclose it, outermost first: functions of the code, as
   * tree-sitter reads them (a `fn` in a macro's token tree or a `macro_rules!` body is none).
   */
  readonly functions: readonly string[];
}

/**
 * An item of the file's top level or of an `impl`, `trait` or `mod` body: its outer attributes
 * included, and the trivia after it up to the next item (or its list's closing brace).
 */
export interface Item {
  readonly start: number;
  end: number;
  /** The item whose body lists this one, null at the top level. */
  readonly parent: Item | null;
  /** True when one of its outer attributes makes it test code (`#[test]`, `#[cfg(test)]`, …). */
  test: boolean;
  /** Its first word past `pub`, `unsafe`, `const`, …: `fn`, `impl`, `mod`, a macro's name, …; "" until known. */
  keyword: string;
  /** Where `keyword` starts (-1 until known): a header's words after it name the item. */
  keywordAt: number;
  /** For `impl`, `trait` and `mod` items with a body: the items listed in it. */
  body: Body | null;
}

/** The `{ … }` of an `impl`, `trait` or `mod` item. */
export interface Body {
  /** Where its first item starts (its closing brace when it has none): what precedes is the header. */
  preludeEnd: number;
  /** Offset of the closing brace (the text's end when it never closes). */
  close: number;
  readonly items: Item[];
}

export interface Layout {
  /** Offset where the first top-level item starts (what precedes it: comments, inner attributes). */
  readonly preludeEnd: number;
  readonly items: readonly Item[];
  /** The candidates, in the order given. */
  readonly spots: readonly Spot[];
  /** True when an inner attribute makes the whole file test code (`#![cfg(test)]`). */
  readonly innerTest: boolean;
}

/**
 * The lexer pass's answer as flat columns (one pass over the file's UTF-16 text):
 * - items, 7 per item in the order they start: start, end, parent (-1 at the top level), the
 *   keyword's start and end (-1, -1 until known), the body's prelude end and closing brace
 *   (-1, -1 without a body);
 * - spots, 7 per hit: item (-1 for none), code, excluded, inTokenTree, before, and the first and
 *   count of its functions in names;
 * - names, 2 per function name: start, end;
 * - attributes, 4 per attribute whose test-ness decides an item's or the file's (`isTest`):
 *   start, end, inner, item (-1: the file, for an inner attribute at the top level).
 */
export interface RawLayout {
  readonly items: Int32Array;
  readonly spots: Int32Array;
  readonly names: Int32Array;
  readonly attributes: Int32Array;
}

/**
 * The lexer pass: a text and its hits ([offset, name length] pairs, sorted by offset) in, the
 * columns out. Two implementations give the same columns: the addon's (`native/src/layout.c`)
 * and the plain one (`layout-plain.ts`).
 */
export type LexerPass = (text: string, hits: Int32Array) => RawLayout;

/** The addon's lexer pass; it is handed the identifier classes past ASCII the first time a text needs them. */
export function nativeLexer(native: Addon): LexerPass {
  return (text, hits) => {
    const raw = native.layout(text, hits);
    if (raw !== null) return raw;
    native.identClasses(...identClasses());
    return native.layout(text, hits)!;
  };
}

let chosen: LexerPass | undefined;

/** The lexer pass of this process: the addon's where it loads, else the plain one (see native.ts). */
export function lexerPass(): LexerPass {
  if (chosen !== undefined) return chosen;
  const native = addon();
  chosen = native === null ? plainLayout : nativeLexer(native);
  return chosen;
}

const NO_FUNCTIONS: readonly string[] = [];

/**
 * The layout of `text`, with the lexer's view of each hit (`hits` sorted by offset).
 * `isTest(attribute)` says whether an attribute's text (`#[…]`, `#![…]`) makes its item test code.
 * `pass` is the lexer pass that reads the text (this process's by default); this builds the
 * layout's objects from its columns.
 */
export function layoutOf(text: string, hits: readonly Hit[], isTest: (attribute: string, inner: boolean) => boolean, pass: LexerPass = lexerPass()): Layout {
  const packed = new Int32Array(hits.length * 2);
  hits.forEach((hit, k) => {
    packed[2 * k] = hit.at;
    packed[2 * k + 1] = hit.name.length;
  });
  const { items: I, spots: S, names: N, attributes: A } = pass(text, packed);
  const all: Item[] = [];
  const top: Item[] = [];
  for (let k = 0; k < I.length; k += 7) {
    const parent = I[k + 2]! < 0 ? null : all[I[k + 2]!]!;
    const item: Item = { start: I[k]!, end: I[k + 1]!, parent, test: false, keyword: I[k + 3]! < 0 ? "" : text.slice(I[k + 3], I[k + 4]), keywordAt: I[k + 3]!, body: I[k + 5]! < 0 ? null : { preludeEnd: I[k + 5]!, close: I[k + 6]!, items: [] } };
    all.push(item);
    (parent === null ? top : parent.body!.items).push(item);
  }
  let innerTest = false;
  for (let k = 0; k < A.length; k += 4) {
    const inner = A[k + 2] === 1;
    if (!isTest(text.slice(A[k], A[k + 1]), inner)) continue;
    if (inner) innerTest = true;
    else all[A[k + 3]!]!.test = true;
  }
  const spots = hits.map((hit, j): Spot => {
    const k = j * 7;
    const code = S[k + 1] === 1;
    const functions: string[] = [];
    for (let f = S[k + 5]!, end = f + S[k + 6]!; f < end; f++) functions.push(text.slice(N[2 * f], N[2 * f + 1]));
    return { at: hit.at, name: hit.name, macro: hit.macro, item: S[k]! < 0 ? null : all[S[k]!]!, code, excluded: S[k + 2] === 1, inTokenTree: S[k + 3] === 1, before: S[k + 4]!, functions: code ? functions : NO_FUNCTIONS };
  });
  return { preludeEnd: top[0]?.start ?? text.length, items: top, spots, innerTest };
}

/** Which UTF-16 code units past ASCII start an identifier and go on with one, as bit sets (JavaScript's Unicode classes, which the plain pass tests directly). */
function identClasses(): [Uint8Array, Uint8Array] {
  const start = new Uint8Array(8192);
  const word = new Uint8Array(8192);
  for (let c = 128; c < 65536; c++) {
    const unit = String.fromCharCode(c);
    if (IDENT_START.test(unit)) start[c >> 3]! |= 1 << (c & 7);
    if (IDENT_WORD.test(unit)) word[c >> 3]! |= 1 << (c & 7);
  }
  return [start, word];
}

/** `item` and the items whose bodies hold it, innermost first. */
export function chain(item: Item | null): Item[] {
  const out: Item[] = [];
  for (let a = item; a !== null; a = a.parent) out.push(a);
  return out;
}

/** The innermost item that holds offset `at`, null outside every item. */
export function itemAt(items: readonly Item[], at: number): Item | null {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (items[mid]!.start <= at) lo = mid + 1;
    else hi = mid;
  }
  const item = lo > 0 ? items[lo - 1] : undefined;
  if (item === undefined || at >= item.end) return null;
  const body = item.body;
  return (body !== null && at >= body.preludeEnd && at < body.close ? itemAt(body.items, at) : null) ?? item;
}

/**
 * The items around a site, outermost first (`m::Type::f`): the `mod`, `impl` and `trait` items
 * whose bodies hold it, as the lexer laid them out, then the functions around it. Pure.
 */
export function ownerAt(text: string, spot: Spot): string {
  const names: string[] = [];
  for (let item = spot.item; item !== null; item = item.parent) {
    if (item.body === null || item.keywordAt < 0) continue;
    const name = itemName(text.slice(item.keywordAt, item.body.preludeEnd), item.keyword);
    if (name !== null) names.push(name);
  }
  return [...names.reverse(), ...spot.functions].join("::");
}

/** The name a `mod`, `trait` or `impl` header gives its body (an impl's self type, without generics), or null. */
export function itemName(header: string, keyword: string): string | null {
  if (keyword === "mod" || keyword === "trait") return /^\w+\s+(?:r#)?([A-Za-z_]\w*)/.exec(header)?.[1] ?? null;
  if (keyword !== "impl") return null;
  const head = /^impl\s*(?:<(?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*>)?([^{]*)/.exec(header)?.[1]?.replace(/\bwhere\b[\s\S]*$/, "") ?? "";
  const self = /\sfor\s+([\s\S]*)$/.exec(head)?.[1] ?? head;
  // Note: a reference's lifetime is no part of the type's name (`for &'a mut RowDeserializer<'a>`).
  return /(?:[A-Za-z_]\w*\s*::\s*)*([A-Za-z_]\w*)/.exec(self.replace(/'[A-Za-z_]\w*\s*/g, "").replace(/^[\s&!*]+|dyn\s+|mut\s+/g, ""))?.[1] ?? null;
}
