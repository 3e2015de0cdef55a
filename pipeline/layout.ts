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
 */
import { charEnd, codeAt, isSpace, lexString } from "./tokens.js";

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

/** Items whose body is a list of items that can be parsed one by one. */
const CONTAINERS = new Set(["impl", "trait", "mod"]);

/** What a delimited group is to tree-sitter. */
const PLAIN = 0;
const TOKEN_TREE = 1;
const ATTRIBUTE = 2;
const MATCHER = 3;
const DEFINITION = 4;

/** A list of items being read: the top level, or an item's body. */
interface List {
  readonly items: Item[];
  readonly owner: Item | null;
  /** After `;`, `}` or an inner attribute at this level: the next token starts an item. */
  boundary: boolean;
}

interface Frame {
  readonly kind: number;
  /** Set when the group is a list of items (the top level, an `impl`/`trait`/`mod` body). */
  readonly list: List | null;
  readonly close: number;
  /** Where the attribute starts (`#`), for attribute groups. */
  readonly from: number;
  readonly inner: boolean;
  readonly fn: string | null;
  /** The name after `fn` seen in this group, waiting for its body. */
  pendingFn: string | null;
  fnNext: boolean;
}

/** Words that may stand before `!` as an operator, never as a macro's name. */
const KEYWORDS = new Set(["as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "yield", "box"]);

const NO_FUNCTIONS: readonly string[] = [];

/** Words that may stand before an item's keyword. */
const MODIFIERS = new Set(["pub", "const", "unsafe", "async", "extern", "default", "safe"]);

const PREV_NONE = 0;
const PREV_IDENT = 1;
const PREV_PUNCT = 2;
const PREV_OTHER = 3;

const NONE = 0;
const AFTER_BANG = 1;
const AFTER_NAME = 2;

/**
 * The layout of `text`, with the lexer's view of each hit (`hits` sorted by offset).
 * `isTest(attribute)` says whether an attribute's text (`#[…]`, `#![…]`) makes its item test code.
 */
export function layoutOf(text: string, hits: readonly Hit[], isTest: (attribute: string, inner: boolean) => boolean): Layout {
  const n = text.length;
  const spots: Spot[] = [];
  const stack: Frame[] = [];
  const topList: List = { items: [], owner: null, boundary: true };
  const top: Frame = { kind: PLAIN, list: topList, close: 0, from: 0, inner: false, fn: null, pendingFn: null, fnNext: false };
  let frame = top;
  let innerTest = false;
  // The previous significant token: its kind, start, character (punctuation) and end.
  let prev = PREV_NONE;
  let prevStart = 0;
  let prevChar = 0;
  let prevEnd = 0;
  /** The identifier before a `!` that may name a macro (`name!`), else "". */
  let bangName = "";
  /** Where a `macro_rules! name` stands: after its `!`, after its name (the next group is its definition). */
  let definition = NONE;
  let h = 0;
  /** The innermost item being read. */
  let current: Item | null = null;

  const startItem = (list: List, at: number) => {
    const last = list.items.at(-1);
    if (last !== undefined) last.end = at;
    else if (list.owner?.body) list.owner.body.preludeEnd = at;
    current = { start: at, end: n, parent: list.owner, test: false, keyword: "", body: null };
    list.items.push(current);
  };
  const functions = (): string[] => {
    const out: string[] = [];
    for (const f of stack) if (f.fn !== null && f.kind === PLAIN) out.push(f.fn);
    return out;
  };

  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c <= 32 || (c >= 0x80 && isSpace(c))) {
      i++;
      continue;
    }
    if (c === 47 /* / */) {
      const next = codeAt(text, i + 1);
      if (next === 47) {
        const nl = text.indexOf("\n", i);
        i = nl < 0 ? n : nl;
        continue;
      }
      if (next === 42) {
        let depth = 1;
        let j = i + 2;
        while (j < n && depth > 0) {
          const d = text.charCodeAt(j);
          if (d === 47 && codeAt(text, j + 1) === 42) (depth++, (j += 2));
          else if (d === 42 && codeAt(text, j + 1) === 47) (depth--, (j += 2));
          else j++;
        }
        i = j;
        continue;
      }
    }
    const start = i;
    let kind = PREV_OTHER;
    if (c === 34 /* " */) {
      i = lexString(text, i) ?? n;
    } else if (c === 39 /* ' */) {
      const end = charEnd(text, i);
      if (end !== null) i = end;
      else {
        // A lifetime or a label: the quote and the name after it.
        i++;
        while (i < n && isWordAt(text, i)) i++;
      }
    } else if (isIdentStart(text, c, i)) {
      const str = c === 98 || c === 99 || c === 114 ? lexString(text, i) : null;
      if (str !== null) i = str;
      else if (c === 98 /* b */ && codeAt(text, i + 1) === 39) i = charEnd(text, i + 1) ?? i + 2;
      else {
        let j = i + 1;
        if (c === 114 && text.charCodeAt(j) === 35 && isIdentStart(text, text.charCodeAt(j + 1), j + 1)) j += 2; // r#name
        for (;;) {
          const d = codeAt(text, j);
          if ((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || (d >= 48 && d <= 57) || d === 95 || (d >= 128 && isWordAt(text, j))) j++;
          else break;
        }
        i = j;
        kind = PREV_IDENT;
      }
    } else if (c >= 48 && c <= 57) {
      let j = i + 1;
      for (;;) {
        while (j < n && isWordAt(text, j)) j++;
        if (codeAt(text, j) === 46 && isDigit(codeAt(text, j + 1))) j++;
        else break;
      }
      i = j;
    } else {
      kind = PREV_PUNCT;
      i++;
    }

    // Note: an identifier's text is sliced only where it is needed, which is rarely.
    // A new item starts at an identifier (not `else`, `as`) or an outer attribute's `#`.
    const list = frame.list;
    if (list !== null && list.boundary && ((kind === PREV_IDENT && !continuesItem(text, start, i)) || (c === 35 && kind === PREV_PUNCT && codeAt(text, skipSpace(text, i)) !== 33))) startItem(list, start);

    // Hits inside what was just read, or in the comments and white space before it.
    while (h < hits.length && hits[h]!.at < i) {
      const hit = hits[h++]!;
      const code = kind === PREV_IDENT && hit.at === start && i - start === hit.name.length && text.startsWith(hit.name, start);
      let excluded = false;
      let inTokenTree = false;
      if (code) {
        for (const f of stack) {
          if (f.kind === ATTRIBUTE || f.kind === MATCHER) excluded = true;
          else if (f.kind === TOKEN_TREE || f.kind === DEFINITION) inTokenTree = true;
        }
      }
      // Note: properties written out, not spread: a spread per candidate is a slow path in V8.
      spots.push({ at: hit.at, name: hit.name, macro: hit.macro, item: current, code, excluded, inTokenTree, before: code ? prevEnd - 1 : -1, functions: code ? functions() : NO_FUNCTIONS });
    }

    if (kind === PREV_IDENT) {
      if (list !== null && current !== null && current.keyword === "") {
        const word = text.slice(start, i);
        if (!MODIFIERS.has(word)) current.keyword = word;
      }
      if (frame.fnNext) frame.pendingFn = text.slice(start, i);
      frame.fnNext = i - start === 2 && c === 102 && text.charCodeAt(start + 1) === 110; // fn
      definition = definition === AFTER_BANG ? AFTER_NAME : NONE;
    } else if (kind === PREV_PUNCT && (c === 40 || c === 91 || c === 123)) {
      // ( [ {: what the group is follows from its parent and the tokens before it.
      const parent = frame.kind;
      let group = PLAIN;
      let from = 0;
      let inner = false;
      if (parent === TOKEN_TREE || parent === MATCHER || parent === ATTRIBUTE) group = parent;
      else if (parent === DEFINITION) group = prevChar === 62 && codeAt(text, prevEnd - 2) === 61 ? TOKEN_TREE : MATCHER; // after `=>`: a rule's body
      else if (definition === AFTER_NAME) group = DEFINITION;
      else if (prevChar === 33 && bangName !== "") group = TOKEN_TREE;
      else if (c === 91 && prevChar === 35) {
        group = ATTRIBUTE;
        from = prevEnd - 1;
      } else if (c === 91 && prevChar === 33 && hashBang(text, prevEnd - 1) > 0) {
        group = ATTRIBUTE;
        inner = true;
        from = hashBang(text, prevEnd - 1) - 1;
      }
      // The body of an `impl`, `trait` or `mod` item lists items of its own.
      let body: List | null = null;
      if (c === 123 && group === PLAIN && list !== null && current !== null && current.body === null && current.parent === list.owner && CONTAINERS.has(current.keyword)) {
        current.body = { preludeEnd: n, close: n, items: [] };
        body = { items: current.body.items, owner: current, boundary: true };
      }
      const fn = c === 123 ? frame.pendingFn : null;
      if (c === 123) frame.pendingFn = null;
      frame.fnNext = false;
      frame = { kind: group, list: body, close: c === 40 ? 41 : c + 2, from, inner, fn, pendingFn: null, fnNext: false };
      stack.push(frame);
      definition = NONE;
    } else if (kind === PREV_PUNCT && (c === 41 || c === 93 || c === 125)) {
      // ) ] }: closes the innermost group it matches; a stray closer is ignored.
      let k = stack.length - 1;
      while (k >= 0 && stack[k]!.close !== c) k--;
      if (k >= 0) {
        const closed = stack[k]!;
        stack.length = k;
        frame = stack.at(-1) ?? top;
        if (closed.list !== null) {
          const owner = closed.list.owner!;
          owner.body!.close = start;
          if (owner.body!.items.length === 0) owner.body!.preludeEnd = start;
          else owner.body!.items.at(-1)!.end = start;
          current = owner;
        }
        const outer = frame.list;
        if (outer !== null) {
          if (closed.kind === ATTRIBUTE && isTest(text.slice(closed.from, i), closed.inner)) {
            if (!closed.inner) current!.test = true;
            else if (outer === topList) innerTest = true;
          }
          outer.boundary = c === 125 || (closed.kind === ATTRIBUTE && closed.inner);
        }
      }
      definition = NONE;
    } else {
      if (kind === PREV_PUNCT && c === 59 /* ; */) frame.pendingFn = null;
      if (kind === PREV_PUNCT && c === 33 /* ! */) {
        const name = prev === PREV_IDENT ? text.slice(prevStart, prevEnd) : "";
        bangName = KEYWORDS.has(name) ? "" : name;
        definition = name === "macro_rules" ? AFTER_BANG : NONE;
      } else definition = NONE;
      frame.fnNext = false;
    }
    // Only `;` and a closing `}` (handled above) end an item; any other token is inside one.
    if (list !== null && !(kind === PREV_PUNCT && (c === 41 || c === 93 || c === 125))) list.boundary = kind === PREV_PUNCT && c === 59;
    prev = kind;
    prevStart = start;
    prevChar = kind === PREV_PUNCT ? c : 0;
    prevEnd = i;
  }
  for (; h < hits.length; h++) {
    const hit = hits[h]!;
    spots.push({ at: hit.at, name: hit.name, macro: hit.macro, item: current, code: false, excluded: false, inTokenTree: false, before: -1, functions: NO_FUNCTIONS });
  }
  return { preludeEnd: topList.items[0]?.start ?? n, items: topList.items, spots, innerTest };
}
/** True for `else` and `as`, which go on with an item after a `}` rather than start one. */
function continuesItem(text: string, start: number, end: number): boolean {
  const length = end - start;
  return (length === 4 && text.startsWith("else", start)) || (length === 2 && text.startsWith("as", start));
}

/** Offset of the first character at or after `i` that is not white space. */
function skipSpace(text: string, i: number): number {
  while (isSpace(codeAt(text, i))) i++;
  return i;
}

/** When the `!` at `bang` follows a `#` (white space allowed), the offset just past that `#`; else 0. */
function hashBang(text: string, bang: number): number {
  let j = bang - 1;
  while (j >= 0 && isSpace(text.charCodeAt(j))) j--;
  return j >= 0 && text.charCodeAt(j) === 35 ? j + 1 : 0;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** May an identifier start with the character `c` at `i`? */
function isIdentStart(text: string, c: number, i: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
  return /[\p{L}_]/u.test(text[i]!);
}

/** Is the character at `i` one an identifier goes on with? */
function isWordAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
  return /[\p{L}\p{N}_]/u.test(text[i]!);
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
