/**
 * A small Rust lexer for the arguments of one macro call or method call.
 *
 * Note: tree-sitter decides WHERE a site is (code, not a comment or a string; which item; inside
 * which macro). The arguments are read from the text with this lexer because tree-sitter gives a
 * macro's arguments as a flat token tree, and inside ERROR nodes not even that; one lexer reads
 * `panic!(…)` the same way in a function body, a `quote!` block or a broken file.
 */
import { EXPRESSION_LEADERS, KEYWORDS } from "./rust/keywords.js";

export type TokenKind = "ident" | "lifetime" | "string" | "char" | "number" | "punct" | "open" | "close";

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** Offsets into the file text (UTF-16 code units, as tree-sitter's node bindings count). */
  readonly start: number;
  readonly end: number;
}

const OPEN: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/** True for the characters JavaScript's `\s` matches (white space and line terminators). */
export function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * The UTF-16 code unit at `i`, or -1 outside `text`.
 * Note: where `charCodeAt` is read past the end, it gives NaN; V8's optimised code for a function
 * handles that only after throwing itself away once (an "out of bounds" deoptimisation), so the
 * lexer's reads that may fall outside the text go through this check instead. -1, like NaN,
 * equals no code unit and is neither a letter, a digit nor white space here.
 */
export function codeAt(text: string, i: number): number {
  return i >= 0 && i < text.length ? text.charCodeAt(i) : -1;
}

/** True for `[A-Za-z0-9_]` (what `\w` matches). */
export function isAsciiWord(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/** Offset of the first character at or after `i` that is not white space or a comment. */
export function skipTrivia(text: string, i: number): number {
  // Note: char codes, not a regex per character: this runs once per token of every argument list.
  const n = text.length;
  for (;;) {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    if (codeAt(text, i) !== 47 /* / */) return i;
    const next = codeAt(text, i + 1);
    if (next === 47) {
      const nl = text.indexOf("\n", i);
      i = nl < 0 ? n : nl + 1;
    } else if (next === 42 /* * */) {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        const c = text.charCodeAt(i);
        if (c === 47 && codeAt(text, i + 1) === 42) (depth++, (i += 2));
        else if (c === 42 && codeAt(text, i + 1) === 47) (depth--, (i += 2));
        else i++;
      }
    } else {
      return i;
    }
  }
}

const CHAR = /'(?:\\(?:u\{[0-9a-fA-F_]{1,8}\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'/suy;
const LIFETIME = /'[\p{L}_][\p{L}\p{N}_]*/uy;
const NUMBER = /(?:0x[0-9a-fA-F_]+|0o[0-7_]+|0b[01_]+|[0-9][0-9_]*(?:\.(?![.\p{L}_])[0-9_]*)?(?:[eE][+-]?[0-9_]+)?)(?:[\p{L}_][\p{L}\p{N}_]*)?/uy;

/**
 * The token starting at `i` (trivia already skipped), or null at the end or on a `'` that starts
 * no literal.
 * Note: a lifetime reads at most 128 characters, a number 128 and an identifier 256 (the
 * lexer's windows); sticky regexes read in place, and the rare token that reaches its window
 * is read through the window.
 */
export function lexToken(text: string, i: number): Token | null {
  if (i >= text.length) return null;
  const code = text.charCodeAt(i);
  // Strings start with `"`, `b`, `c` or `r`.
  if (code === 34 || code === 98 || code === 99 || code === 114) {
    const str = lexString(text, i);
    if (str !== null) return { kind: "string", text: text.slice(i, str), start: i, end: str };
    // A byte literal, `b'x'`.
    const byte = code === 98 && codeAt(text, i + 1) === 39 ? charEnd(text, i + 1) : null;
    if (byte !== null) return { kind: "char", text: text.slice(i, byte), start: i, end: byte };
  }
  if (code === 39 /* ' */) {
    CHAR.lastIndex = i;
    const ch = CHAR.exec(text);
    if (ch) return { kind: "char", text: ch[0], start: i, end: i + ch[0].length };
    LIFETIME.lastIndex = i;
    let lt: RegExpExecArray | null = LIFETIME.exec(text);
    if (lt !== null && lt[0].length >= 128) lt = /^'[\p{L}_][\p{L}\p{N}_]*/u.exec(text.slice(i, i + 128));
    if (lt) return { kind: "lifetime", text: lt[0], start: i, end: i + lt[0].length };
    return null;
  }
  if (code < 128) {
    if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95) {
      if (code !== 114 || codeAt(text, i + 1) !== 35 /* r# */) {
        let j = i + 1;
        while (isAsciiWord(codeAt(text, j))) j++;
        if (!(codeAt(text, j) >= 128)) {
          const end = Math.min(j, i + 256);
          return { kind: "ident", text: text.slice(i, end), start: i, end };
        }
      }
      return lexIdent(text, i);
    }
    if (code >= 48 && code <= 57) {
      NUMBER.lastIndex = i;
      let num: RegExpExecArray | null = NUMBER.exec(text);
      if (num === null || num[0].length >= 120) num = /^(?:0x[0-9a-fA-F_]+|0o[0-7_]+|0b[01_]+|[0-9][0-9_]*(?:\.(?![.\p{L}_])[0-9_]*)?(?:[eE][+-]?[0-9_]+)?)(?:[\p{L}_][\p{L}\p{N}_]*)?/u.exec(text.slice(i, i + 128));
      const t = num?.[0] ?? text[i]!;
      return { kind: "number", text: t, start: i, end: i + t.length };
    }
    return lexPunct(text, i, code);
  }
  if (/[\p{L}_]/u.test(text[i]!)) return lexIdent(text, i);
  return { kind: "punct", text: text[i]!, start: i, end: i + 1 };
}

/** An identifier with a non-ASCII character or an `r#` prefix, read through its 256-character window. */
function lexIdent(text: string, i: number): Token {
  const id = /^(?:r#)?[\p{L}_][\p{L}\p{N}_]*/u.exec(text.slice(i, i + 256))!;
  return { kind: "ident", text: id[0], start: i, end: i + id[0].length };
}

/** Delimiters and punctuation (the longest operator that starts at `i`); any other character alone. */
function lexPunct(text: string, i: number, code: number): Token {
  let len = 1;
  const c1 = codeAt(text, i + 1);
  switch (code) {
    case 40: // (
    case 91: // [
    case 123: // {
      return { kind: "open", text: text[i]!, start: i, end: i + 1 };
    case 41: // )
    case 93: // ]
    case 125: // }
      return { kind: "close", text: text[i]!, start: i, end: i + 1 };
    case 60: // <  <<= <= <<
    case 62: // >  >>= >= >>
      if (c1 === code) len = codeAt(text, i + 2) === 61 ? 3 : 2;
      else if (c1 === 61) len = 2;
      break;
    case 46: // .  ... ..= ..
      if (c1 === 46) len = codeAt(text, i + 2) === 46 || codeAt(text, i + 2) === 61 ? 3 : 2;
      break;
    case 58: // ::
      if (c1 === 58) len = 2;
      break;
    case 45: // -> -=
      if (c1 === 62 || c1 === 61) len = 2;
      break;
    case 61: // => ==
      if (c1 === 62 || c1 === 61) len = 2;
      break;
    case 38: // && &=
    case 124: // || |=
      if (c1 === code || c1 === 61) len = 2;
      break;
    case 33: // !=
    case 43: // +=
    case 42: // *=
    case 47: // /=
    case 37: // %=
    case 94: // ^=
      if (c1 === 61) len = 2;
      break;
  }
  return { kind: "punct", text: len === 1 ? text[i]! : operator(text, i, code, c1, len), start: i, end: i + len };
}

/**
 * The text of the operator of `len` (2 or 3) characters at `i` (its first two `code` and `c1`), as one
 * shared string: `lexPunct` reads a few hundred thousand of them in a large tree, and a slice of
 * the text would be a new string each time.
 */
function operator(text: string, i: number, code: number, c1: number, len: number): string {
  switch (code) {
    case 60:
      return len === 3 ? "<<=" : c1 === 60 ? "<<" : "<=";
    case 62:
      return len === 3 ? ">>=" : c1 === 62 ? ">>" : ">=";
    case 46:
      return len === 2 ? ".." : text.charCodeAt(i + 2) === 46 ? "..." : "..=";
    case 58:
      return "::";
    case 45:
      return c1 === 62 ? "->" : "-=";
    case 61:
      return c1 === 62 ? "=>" : "==";
    case 38:
      return c1 === 38 ? "&&" : "&=";
    case 124:
      return c1 === 124 ? "||" : "|=";
    case 33:
      return "!=";
    case 43:
      return "+=";
    case 42:
      return "*=";
    case 47:
      return "/=";
    case 37:
      return "%=";
    default:
      return "^=";
  }
}

/** End offset of the char literal (`'x'`, `'\n'`, `'\u{…}'`) starting at `i`, or null (a lifetime, a stray quote). */
export function charEnd(text: string, i: number): number | null {
  CHAR.lastIndex = i;
  return CHAR.test(text) ? CHAR.lastIndex : null;
}

/** End offset of the string literal (any prefix: b, c, r, br, cr, r#…#) starting at `i`, or null. */
export function lexString(text: string, i: number): number | null {
  // The head `(?:b|c)?(r)?(#*)"`, at most 300 characters long.
  let j = i;
  let c = text.charCodeAt(j);
  if (c === 98 || c === 99) c = codeAt(text, ++j);
  const raw = c === 114;
  if (raw) c = codeAt(text, ++j);
  const hashStart = j;
  while (c === 35) c = codeAt(text, ++j);
  const hashes = j - hashStart;
  if (c !== 34 || (hashes > 0 && !raw) || j + 1 - i > 300) return null;
  j++;
  if (raw) {
    const close = `"${"#".repeat(hashes)}`;
    const end = text.indexOf(close, j);
    return end < 0 ? null : end + close.length;
  }
  const n = text.length;
  while (j < n) {
    const ch = text.charCodeAt(j);
    if (ch === 92 /* \\ */) j += 2;
    else if (ch === 34) return j + 1;
    else j++;
  }
  return null;
}

/**
 * The tokens between the delimiter at `open` and its match, outer delimiters excluded, with the
 * offset just past the closing one. Null when `open` is not a delimiter or it never closes.
 */
export function readDelimited(text: string, open: number): { tokens: Token[]; end: number } | null {
  const first = text[open];
  if (first === undefined || !(first in OPEN)) return null;
  const stack = [OPEN[first]!];
  const tokens: Token[] = [];
  let i = open + 1;
  for (;;) {
    i = skipTrivia(text, i);
    const tok = lexToken(text, i);
    if (tok === null) return null;
    i = tok.end;
    if (tok.kind === "open") stack.push(OPEN[tok.text]!);
    else if (tok.kind === "close") {
      if (stack.pop() !== tok.text) return null;
      if (stack.length === 0) return { tokens, end: i };
    }
    tokens.push(tok);
  }
}

/** Splits a token list at its top-level commas; a trailing comma adds no empty argument. */
export function splitArgs(tokens: readonly Token[]): Token[][] {
  const args: Token[][] = [];
  let current: Token[] = [];
  let depth = 0;
  for (const tok of tokens) {
    if (tok.kind === "open") depth++;
    else if (tok.kind === "close") depth--;
    if (depth === 0 && tok.kind === "punct" && tok.text === ",") {
      args.push(current);
      current = [];
    } else {
      current.push(tok);
    }
  }
  if (current.length > 0) args.push(current);
  return args;
}

/** Operators rustc prints with a space on each side when they stand between two operands. */
const BINARY = new Set(["==", "!=", "<=", ">=", "&&", "||", "+", "-", "*", "/", "%", "^", "|", "&", "<<", ">>", "<", ">", "=", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "<<=", ">>=", "=>", "->"]);
/** Operators that are unary where an operand is expected: `-x`, `!x`, `*x`, `&x`, `&&x`. */
const UNARY = new Set(["-", "!", "*", "&", "&&"]);
/** A token, or a delimited group of them (the tree a macro's arguments form). */
type Tree = Token | Group;
interface Group {
  readonly open: Token;
  readonly close: Token | null;
  readonly items: Tree[];
}
const isGroup = (t: Tree | undefined): t is Group => t !== undefined && "items" in t;

/** Nests a flat token list at its delimiters; an unclosed group runs to the end. */
function treeOf(tokens: readonly Token[]): Tree[] {
  const root: Tree[] = [];
  const stack: { open: Token; items: Tree[] }[] = [];
  let items = root;
  for (const tok of tokens) {
    if (tok.kind === "open") {
      const group = { open: tok, items: [] as Tree[] };
      stack.push(group);
      items = group.items;
    } else if (tok.kind === "close" && stack.length > 0) {
      const group = stack.pop()!;
      items = stack.at(-1)?.items ?? root;
      items.push({ open: group.open, close: tok, items: group.items });
    } else {
      items.push(tok);
    }
  }
  while (stack.length > 0) {
    const group = stack.pop()!;
    items = stack.at(-1)?.items ?? root;
    items.push({ open: group.open, close: null, items: group.items });
  }
  return root;
}

/** Output with one pending space at most, never right after an opening delimiter. */
class Out {
  text = "";
  /** The printed tokens, in order, without the spaces between them. */
  readonly pieces: string[] = [];
  private pending = false;
  /** Appends `piece`, after a space when one is pending or asked for. */
  put(piece: string, spaceBefore = false): void {
    if (piece === "") return;
    if ((this.pending || spaceBefore) && this.text !== "" && !/[([]$/.test(this.text)) this.text += " ";
    this.text += piece;
    this.pieces.push(piece);
    this.pending = false;
  }
  /** Appends what another printer printed, as it printed it. */
  append(inner: Out): void {
    if (inner.text === "") return;
    if (this.pending && this.text !== "" && !/[([]$/.test(this.text)) this.text += " ";
    this.text += inner.text;
    this.pieces.push(...inner.pieces);
    this.pending = false;
  }
  space(): void {
    this.pending = true;
  }
  /** Drops a pending space (before `,`, `;`, a closing delimiter). */
  tight(): void {
    this.pending = false;
  }
}

/**
 * The tokens of an expression joined the way rustc's pretty printer shows an `assert!`
 * condition: binary operators spaced, unary ones tight, `.`/`::`/calls/indexing/generic
 * arguments tight, `, ` and `; `, `|x| body` closures, `{ … }` blocks, a `,` after each match
 * arm that is not a block; the arguments of a macro call inside it are printed as rustc prints
 * token streams (a space only where the source had one and rustc's `space_between` allows it).
 * Best effort: rustc also breaks lines past 78 columns, which this never does; patterns built
 * from the tokens allow any white space between them, so only the displayed message depends on
 * this.
 */
export function respace(tokens: readonly Token[]): string {
  return respaced(tokens).text;
}

/**
 * Like `respace`, with the printed tokens apart: `pieces` holds what rustc prints in order (also
 * what it adds, like the `,` after a match arm), for patterns that allow any white space between.
 */
export function respaced(tokens: readonly Token[]): { text: string; pieces: string[] } {
  const out = new Out();
  printExpr(treeOf(tokens), out);
  return { text: out.text, pieces: out.pieces };
}

/** Prints a sequence in expression mode. */
function printExpr(items: readonly Tree[], out: Out): void {
  let operand = false; // the previous item ended an operand: what follows is postfix or binary
  let genericDepth = 0;
  let typeContext = false;
  let matchPending = false;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (isGroup(item)) {
      const macro = tokenAt(items, i - 1)?.text === "!" && tokenAt(items, i - 2)?.kind === "ident";
      if (macro) {
        printTokenTree(item, out);
      } else if (item.open.text === "{") {
        out.put("{", true);
        if (item.items.length > 0) out.space();
        printBraced(item.items, out, matchPending);
        out.put("}", item.items.length > 0);
        matchPending = false;
      } else {
        // A call or an index right after an operand; a parenthesised operand after a keyword gets its space.
        out.put(item.open.text, !operand && tokenAt(items, i - 1)?.kind === "ident");
        printExpr(item.items, out);
        out.tight();
        out.put(item.close?.text ?? "");
      }
      operand = true;
      typeContext = false;
      continue;
    }
    const t = item.text;
    if (genericDepth > 0) {
      if (t === "<") genericDepth++;
      else if (t === ">") genericDepth--;
      else if (t === ">>") genericDepth -= 2;
      else if (t === ">>=") genericDepth -= 2;
      out.put(t);
      if (t === ",") out.space();
      if (genericDepth <= 0) (genericDepth = 0), (operand = true);
      continue;
    }
    if (t === "<" && (tokenAt(items, i - 1)?.text === "::" || (typeContext && tokenAt(items, i - 1)?.kind === "ident"))) {
      out.put("<");
      genericDepth = 1;
      continue;
    }
    if (item.kind === "ident" || item.kind === "number" || item.kind === "string" || item.kind === "char" || item.kind === "lifetime") {
      const before = tokenAt(items, i - 1)?.text;
      const glued = before === "." || before === "::" || before === "$" || before === "'" || before === "#";
      out.put(t, (operand || tokenAt(items, i - 1)?.kind === "ident") && !glued);
      if (t === "as") typeContext = true;
      if (t === "match") matchPending = true;
      operand = !EXPRESSION_LEADERS.has(t) && t !== "as";
      continue;
    }
    // Punctuation.
    if (t === "." || t === "::" || t === "?" || t === "$" || t === "#" || t === ".." || t === "..=") {
      if (t === ".." || t === "..=") typeContext = false;
      out.put(t);
      operand = t === "?";
      continue;
    }
    if (t === "," || t === ";") {
      out.tight();
      out.put(t);
      out.space();
      operand = false;
      typeContext = false;
      continue;
    }
    if (t === ":") {
      out.put(":");
      out.space();
      operand = false;
      typeContext = true;
      continue;
    }
    if (t === "!" && operand && tokenAt(items, i - 1)?.kind === "ident" && isGroup(items[i + 1])) {
      out.put("!"); // a macro call's bang
      continue;
    }
    if (!operand && (t === "|" || t === "||")) {
      // A closure: `|params| body` or `|| body`.
      out.put(t, tokenAt(items, i - 1)?.kind === "ident");
      if (t === "|") {
        const end = items.findIndex((x, k) => k > i && !isGroup(x) && x.text === "|");
        const params = end < 0 ? items.slice(i + 1) : items.slice(i + 1, end);
        const inner = new Out();
        printExpr(params, inner);
        out.append(inner);
        out.put("|");
        i = end < 0 ? items.length : end;
      }
      out.space();
      operand = false;
      typeContext = false;
      continue;
    }
    if (!operand && UNARY.has(t)) {
      out.put(t, tokenAt(items, i - 1)?.kind === "ident");
      continue;
    }
    if (BINARY.has(t)) {
      out.put(t, true);
      out.space();
      operand = false;
      typeContext = t === "->";
      continue;
    }
    out.put(t, operand);
    operand = false;
  }
}

/** The inside of `{ … }` in expression mode; in a `match` block each arm not ending in a block gets a `,`. */
function printBraced(items: readonly Tree[], out: Out, isMatch: boolean): void {
  if (!isMatch) {
    printExpr(items, out);
    return;
  }
  const arms: Tree[][] = [[]];
  for (const item of items) {
    if (!isGroup(item) && item.text === ",") arms.push([]);
    else arms.at(-1)!.push(item);
  }
  for (const arm of arms) {
    if (arm.length === 0) continue;
    out.space();
    printExpr(arm, out);
    const last = arm.at(-1);
    const arrow = arm.findIndex((x) => !isGroup(x) && x.text === "=>");
    const blockBody = isGroup(last) && last.open.text === "{" && arrow === arm.length - 2;
    if (!blockBody) out.put(",");
  }
}

/** Prints a delimited group as rustc prints token streams (the arguments of a macro call). */
function printTokenTree(group: Group, out: Out): void {
  const brace = group.open.text === "{";
  const first = group.items[0];
  const last = group.items.at(-1);
  out.put(group.open.text);
  if (brace && first !== undefined && startOf(first) > group.open.end) out.space();
  group.items.forEach((item, k) => {
    const before = group.items[k - 1];
    const spaced = before !== undefined && startOf(item) > endOf(before) && tokenSpaceBetween(before, item);
    if (isGroup(item)) {
      if (spaced) out.space();
      printTokenTree(item, out);
    } else {
      out.put(item.text, spaced);
    }
  });
  if (brace && last !== undefined && group.close !== null && group.close.start > endOf(last)) out.put("}", true);
  else out.put(group.close?.text ?? "");
}

const startOf = (t: Tree): number => (isGroup(t) ? t.open.start : t.start);
const endOf = (t: Tree): number => (isGroup(t) ? (t.close?.end ?? (t.items.length > 0 ? endOf(t.items.at(-1)!) : t.open.end)) : t.end);
/** The token at `i`, or undefined when there is none or it is a group. */
const tokenAt = (items: readonly Tree[], i: number): Token | undefined => {
  const t = items[i];
  return t === undefined || isGroup(t) ? undefined : t;
};

/** rustc's `space_between` for two adjacent token trees that the source separated by white space. */
function tokenSpaceBetween(a: Tree, b: Tree): boolean {
  const punct = (t: Tree) => !isGroup(t) && t.kind === "punct";
  if (!isGroup(a) && a.text === "." && !punct(b)) return false;
  if (!isGroup(a) && a.text === "$" && !isGroup(b) && b.kind === "ident") return false;
  if (!punct(a) && !isGroup(b) && (b.text === "," || b.text === ";" || b.text === ".")) return false;
  if (!isGroup(a) && a.kind === "ident" && isGroup(b) && b.open.text === "(" && (!KEYWORDS.has(a.text) || a.text === "fn" || a.text === "Self" || a.text === "pub" || a.text.startsWith("r#"))) return false;
  if (!isGroup(a) && a.text === "#" && isGroup(b) && b.open.text === "[") return false;
  return true;
}

/**
 * Every token of `text` in order, comments and white space skipped. Never fails: a character
 * that starts no token (a `'` that starts no literal) is skipped, or with `atStray: "stop"` ends
 * the list; an unterminated comment ends the list, and the quote of an unterminated string is
 * read as punctuation.
 */
export function tokenize(text: string, atStray: "skip" | "stop" = "skip"): Token[] {
  const tokens: Token[] = [];
  let i = skipTrivia(text, 0);
  while (i < text.length) {
    const tok = lexToken(text, i);
    if (tok === null) {
      if (atStray === "stop") break;
      i = skipTrivia(text, i + 1);
      continue;
    }
    tokens.push(tok);
    i = skipTrivia(text, tok.end);
  }
  return tokens;
}

/** The index of each delimiter's partner (unclosed ones: the last token). */
export function matching(t: readonly Token[]): Int32Array {
  const pair = new Int32Array(t.length).fill(t.length - 1);
  const open: number[] = [];
  for (let i = 0; i < t.length; i++) {
    if (t[i]!.kind === "open") open.push(i);
    else if (t[i]!.kind === "close" && open.length > 0) {
      const o = open.pop()!;
      pair[o] = i;
      pair[i] = o;
    }
  }
  return pair;
}

/** True for a `str` literal (`"…"`, `r"…"`, `r#"…"#`): byte and C strings are not `&str` and never format strings. */
export function isStrLiteral(tok: Token | undefined): boolean {
  return tok !== undefined && tok.kind === "string" && (tok.text.startsWith('"') || tok.text.startsWith("r"));
}
