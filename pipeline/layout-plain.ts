/**
 * The lexer pass in TypeScript: the plain twin of `native/src/layout.c`, for where the addon does
 * not load. Same input (a text, its hits as [offset, name length] pairs sorted by offset), same
 * flat columns out (`RawLayout`, described in layout.ts), so `layoutOf` builds the same layout
 * from either. Pure.
 *
 * Note: a rule changed here is changed in layout.c too: `test/layout.test.ts` compares the two
 * passes' columns on every Rust fixture and on texts written for their rules.
 */
import type { RawLayout } from "./layout.js";
import { charEnd, codeAt, isSpace, lexString } from "./tokens.js";

/** What a delimited group is to tree-sitter. */
const PLAIN = 0;
const TOKEN_TREE = 1;
const ATTRIBUTE = 2;
const MATCHER = 3;
const DEFINITION = 4;

/** The kind of the previous token. */
const PREV_NONE = 0;
const PREV_IDENT = 1;
const PREV_PUNCT = 2;
const PREV_OTHER = 3;

/** Where a `macro_rules! name` stands: after its `!`, after its name (the next group is its definition). */
const NONE = 0;
const AFTER_BANG = 1;
const AFTER_NAME = 2;

/** The item columns, 7 per item (start, end, …: see RawLayout). */
const I_END = 1;
const I_PARENT = 2;
const I_KW_START = 3;
const I_KW_END = 4;
const I_PRELUDE = 5;
const I_CLOSE = 6;
const I_COLUMNS = 7;

/** A list of items being read: the top level, or an item's body. */
interface List {
  /** The item whose body it is, -1 for the top level. */
  readonly owner: number;
  /** After `;`, `}` or an inner attribute at this level: the next token starts an item. */
  boundary: boolean;
  /** Its last item so far, -1. */
  last: number;
}

interface Frame {
  readonly kind: number;
  /** The list of items the group is (-1: none). */
  readonly list: number;
  readonly close: number;
  /** Where the attribute starts (`#`), for attribute groups. */
  readonly from: number;
  readonly inner: boolean;
  /** The name of the function whose body the group is: its start and end, -1 for none. */
  readonly fnStart: number;
  readonly fnEnd: number;
  /** The name after `fn` seen in this group, waiting for its body. */
  pendingStart: number;
  pendingEnd: number;
  fnNext: boolean;
}

/** Words that may stand before `!` as an operator, never as a macro's name. */
const KEYWORDS = new Set(["as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "yield", "box"]);
/** Words that may stand before an item's keyword. */
const MODIFIERS = new Set(["pub", "const", "unsafe", "async", "extern", "default", "safe"]);
/** Items whose body is a list of items. */
const CONTAINERS = new Set(["impl", "trait", "mod"]);

/** The lexer pass over `text` with `hits` ([offset, name length] pairs, sorted by offset), as layout.c answers it. */
export function plainLayout(text: string, hits: Int32Array): RawLayout {
  const n = text.length;
  const nhits = hits.length / 2;
  const items: number[] = [];
  const spots: number[] = [];
  const names: number[] = [];
  const attributes: number[] = [];
  const lists: List[] = [{ owner: -1, boundary: true, last: -1 }];
  const topList = 0;
  const stack: Frame[] = [];
  const top: Frame = { kind: PLAIN, list: topList, close: 0, from: 0, inner: false, fnStart: -1, fnEnd: -1, pendingStart: -1, pendingEnd: -1, fnNext: false };
  let frame = top;
  let prev = PREV_NONE;
  let prevStart = 0;
  let prevEnd = 0;
  let prevChar = 0;
  let bangName = false;
  let definition = NONE;
  let h = 0;
  /** The innermost item being read, -1. */
  let current = -1;

  const startItem = (list: List, at: number): number => {
    if (list.last >= 0) items[list.last * I_COLUMNS + I_END] = at;
    else if (list.owner >= 0 && items[list.owner * I_COLUMNS + I_PRELUDE]! >= 0) items[list.owner * I_COLUMNS + I_PRELUDE] = at;
    const item = items.length / I_COLUMNS;
    items.push(at, n, list.owner, -1, -1, -1, -1);
    list.last = item;
    return item;
  };

  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c <= 32 || (c >= 0x80 && isSpace(c))) {
      // A run of white space, as layout.c reads it.
      do i++;
      while (i < n && text.charCodeAt(i) <= 32);
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
    } else if (isIdentStartAt(text, i)) {
      const str = c === 98 || c === 99 || c === 114 ? lexString(text, i) : null;
      if (str !== null) i = str;
      else if (c === 98 /* b */ && codeAt(text, i + 1) === 39) i = charEnd(text, i + 1) ?? i + 2;
      else {
        let j = i + 1;
        if (c === 114 && codeAt(text, j) === 35 && isIdentStartAt(text, j + 1)) j += 2; // r#name
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
        const d = codeAt(text, j + 1);
        if (codeAt(text, j) === 46 && d >= 48 && d <= 57) j++;
        else break;
      }
      i = j;
    } else {
      kind = PREV_PUNCT;
      i++;
    }

    // A new item starts at an identifier (not `else`, `as`) or an outer attribute's `#`.
    const list = frame.list;
    if (list >= 0 && lists[list]!.boundary && ((kind === PREV_IDENT && !isWord(text, start, i, "else") && !isWord(text, start, i, "as")) || (c === 35 && kind === PREV_PUNCT && codeAt(text, skipSpace(text, i)) !== 33))) {
      current = startItem(lists[list]!, start);
    }

    // Hits inside what was just read, or in the comments and white space before it.
    while (h < nhits && hits[2 * h]! < i) {
      const at = hits[2 * h]!;
      const length = hits[2 * h + 1]!;
      h++;
      const code = kind === PREV_IDENT && at === start && i - start === length;
      let excluded = 0;
      let inTokenTree = 0;
      const first = names.length / 2;
      let count = 0;
      if (code) {
        for (const f of stack) {
          if (f.kind === ATTRIBUTE || f.kind === MATCHER) excluded = 1;
          else if (f.kind === TOKEN_TREE || f.kind === DEFINITION) inTokenTree = 1;
          if (f.fnStart >= 0 && f.kind === PLAIN) {
            names.push(f.fnStart, f.fnEnd);
            count++;
          }
        }
      }
      spots.push(current, code ? 1 : 0, excluded, inTokenTree, code ? prevEnd - 1 : -1, first, count);
    }

    if (kind === PREV_IDENT) {
      if (list >= 0 && current >= 0 && items[current * I_COLUMNS + I_KW_START]! < 0 && !MODIFIERS.has(text.slice(start, i))) {
        items[current * I_COLUMNS + I_KW_START] = start;
        items[current * I_COLUMNS + I_KW_END] = i;
      }
      if (frame.fnNext) {
        frame.pendingStart = start;
        frame.pendingEnd = i;
      }
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
      else if (prevChar === 33 && bangName) group = TOKEN_TREE;
      else if (c === 91 && prevChar === 35) {
        group = ATTRIBUTE;
        from = prevEnd - 1;
      } else if (c === 91 && prevChar === 33 && hashBang(text, prevEnd - 1) > 0) {
        group = ATTRIBUTE;
        inner = true;
        from = hashBang(text, prevEnd - 1) - 1;
      }
      // The body of an `impl`, `trait` or `mod` item lists items of its own.
      let body = -1;
      const k = current * I_COLUMNS;
      if (c === 123 && group === PLAIN && list >= 0 && current >= 0 && items[k + I_PRELUDE]! < 0 && items[k + I_PARENT] === lists[list]!.owner && items[k + I_KW_START]! >= 0 && CONTAINERS.has(text.slice(items[k + I_KW_START], items[k + I_KW_END]))) {
        items[k + I_PRELUDE] = n;
        items[k + I_CLOSE] = n;
        body = lists.length;
        lists.push({ owner: current, boundary: true, last: -1 });
      }
      let fnStart = -1;
      let fnEnd = -1;
      if (c === 123) {
        fnStart = frame.pendingStart;
        fnEnd = frame.pendingEnd;
        frame.pendingStart = frame.pendingEnd = -1;
      }
      frame.fnNext = false;
      frame = { kind: group, list: body, close: c === 40 ? 41 : c + 2, from, inner, fnStart, fnEnd, pendingStart: -1, pendingEnd: -1, fnNext: false };
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
        if (closed.list >= 0) {
          const owned = lists[closed.list]!;
          const owner = owned.owner;
          items[owner * I_COLUMNS + I_CLOSE] = start;
          if (owned.last < 0) items[owner * I_COLUMNS + I_PRELUDE] = start;
          else items[owned.last * I_COLUMNS + I_END] = start;
          current = owner;
        }
        const outer = frame.list;
        if (outer >= 0) {
          if (closed.kind === ATTRIBUTE && (!closed.inner || outer === topList)) attributes.push(closed.from, i, closed.inner ? 1 : 0, closed.inner ? -1 : current);
          lists[outer]!.boundary = c === 125 || (closed.kind === ATTRIBUTE && closed.inner);
        }
      }
      definition = NONE;
    } else {
      if (kind === PREV_PUNCT && c === 59 /* ; */) frame.pendingStart = frame.pendingEnd = -1;
      if (kind === PREV_PUNCT && c === 33 /* ! */) {
        const named = prev === PREV_IDENT;
        bangName = named && !KEYWORDS.has(text.slice(prevStart, prevEnd));
        definition = named && isWord(text, prevStart, prevEnd, "macro_rules") ? AFTER_BANG : NONE;
      } else definition = NONE;
      frame.fnNext = false;
    }
    // Only `;` and a closing `}` (handled above) end an item; any other token is inside one.
    if (list >= 0 && !(kind === PREV_PUNCT && (c === 41 || c === 93 || c === 125))) lists[list]!.boundary = kind === PREV_PUNCT && c === 59;
    prev = kind;
    prevStart = start;
    prevChar = kind === PREV_PUNCT ? c : 0;
    prevEnd = i;
  }
  for (; h < nhits; h++) spots.push(current, 0, 0, 0, -1, names.length / 2, 0);
  return { items: Int32Array.from(items), spots: Int32Array.from(spots), names: Int32Array.from(names), attributes: Int32Array.from(attributes) };
}

/** True when `text` from `start` to `end` is `word`. */
function isWord(text: string, start: number, end: number, word: string): boolean {
  return end - start === word.length && text.startsWith(word, start);
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

/** May an identifier start with the character at `i`? Out of the text, yes (as layout.c answers). */
function isIdentStartAt(text: string, i: number): boolean {
  if (i < 0 || i >= text.length) return true;
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
  return IDENT_START.test(text[i]!);
}

/** Is the character at `i` one an identifier goes on with? */
function isWordAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
  return IDENT_WORD.test(text[i]!);
}

/** The identifier classes past ASCII, on one UTF-16 code unit (what `identClasses` in layout.ts hands layout.c). */
export const IDENT_START = /[\p{L}_]/u;
export const IDENT_WORD = /[\p{L}\p{N}_]/u;
