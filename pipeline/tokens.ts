/**
 * A small Rust lexer for the arguments of one macro call or method call.
 *
 * Note: tree-sitter decides WHERE a site is (code, not a comment or a string; which item; inside
 * which macro). The arguments are read from the text with this lexer because tree-sitter gives a
 * macro's arguments as a flat token tree, and inside ERROR nodes not even that; one lexer reads
 * `panic!(…)` the same way in a function body, a `quote!` block or a broken file.
 */

export type TokenKind = "ident" | "lifetime" | "string" | "char" | "number" | "punct" | "open" | "close";

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** Offsets into the file text (UTF-16 code units, as tree-sitter's node bindings count). */
  readonly start: number;
  readonly end: number;
}

const PUNCT = ["<<=", ">>=", "...", "..=", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "<<", ">>", ".."];
const OPEN: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/** Offset of the first character at or after `i` that is not white space or a comment. */
export function skipTrivia(text: string, i: number): number {
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text.startsWith("//", i)) {
      const nl = text.indexOf("\n", i);
      i = nl < 0 ? text.length : nl + 1;
    } else if (text.startsWith("/*", i)) {
      let depth = 1;
      i += 2;
      while (i < text.length && depth > 0) {
        if (text.startsWith("/*", i)) (depth++, (i += 2));
        else if (text.startsWith("*/", i)) (depth--, (i += 2));
        else i++;
      }
    } else {
      return i;
    }
  }
}

/** The token starting at `i` (trivia already skipped), or null at the end or on a stray quote. */
export function lexToken(text: string, i: number): Token | null {
  const c = text[i];
  if (c === undefined) return null;
  const str = lexString(text, i);
  if (str !== null) return { kind: "string", text: text.slice(i, str), start: i, end: str };
  if (c === "'") {
    const ch = /^'(?:\\(?:u\{[0-9a-fA-F_]{1,8}\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'/su.exec(text.slice(i, i + 16));
    if (ch) return { kind: "char", text: ch[0], start: i, end: i + ch[0].length };
    const lt = /^'[\p{L}_][\p{L}\p{N}_]*/u.exec(text.slice(i, i + 128));
    if (lt) return { kind: "lifetime", text: lt[0], start: i, end: i + lt[0].length };
    return null;
  }
  if (/[\p{L}_]/u.test(c) || (c === "r" && text[i + 1] === "#")) {
    const id = /^(?:r#)?[\p{L}_][\p{L}\p{N}_]*/u.exec(text.slice(i, i + 256));
    if (id) return { kind: "ident", text: id[0], start: i, end: i + id[0].length };
  }
  if (/[0-9]/.test(c)) {
    const num = /^(?:0x[0-9a-fA-F_]+|0o[0-7_]+|0b[01_]+|[0-9][0-9_]*(?:\.(?![.\p{L}_])[0-9_]*)?(?:[eE][+-]?[0-9_]+)?)(?:[\p{L}_][\p{L}\p{N}_]*)?/u.exec(text.slice(i, i + 128));
    const t = num?.[0] ?? c;
    return { kind: "number", text: t, start: i, end: i + t.length };
  }
  if (c in OPEN) return { kind: "open", text: c, start: i, end: i + 1 };
  if (c === ")" || c === "]" || c === "}") return { kind: "close", text: c, start: i, end: i + 1 };
  const op = PUNCT.find((p) => text.startsWith(p, i)) ?? c;
  return { kind: "punct", text: op, start: i, end: i + op.length };
}

/** End offset of the string literal (any prefix: b, c, r, br, cr, r#…#) starting at `i`, or null. */
function lexString(text: string, i: number): number | null {
  const head = /^(?:b|c)?(r)?(#*)"/.exec(text.slice(i, i + 300));
  if (!head || (head[2] !== "" && !head[1])) return null;
  let j = i + head[0].length;
  if (head[1]) {
    const close = `"${head[2]}`;
    const end = text.indexOf(close, j);
    return end < 0 ? null : end + close.length;
  }
  while (j < text.length) {
    const ch = text[j];
    if (ch === "\\") j += 2;
    else if (ch === '"') return j + 1;
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

const BINARY = new Set(["==", "!=", "<=", ">=", "&&", "||", "+", "-", "*", "/", "%", "^", "|", "&", "<<", ">>", "=", "+=", "-=", "*=", "/=", "%=", "<", ">", "=>", "as"]);

/**
 * The tokens of an expression joined the way rustc's pretty printer spaces them: binary operators
 * spaced, `.`/`::`/calls/indexing tight, a space after commas. Best effort: patterns built from it
 * allow any white space between tokens, so only the displayed message depends on it.
 */
export function respace(tokens: readonly Token[]): string {
  let out = "";
  let prev: Token | undefined;
  for (const tok of tokens) {
    if (prev !== undefined) out += spaceBetween(prev, tok, out) ? " " : "";
    out += tok.text;
    prev = tok;
  }
  return out;
}

function spaceBetween(prev: Token, tok: Token, before: string): boolean {
  const operand = (t: Token) => t.kind === "ident" || t.kind === "number" || t.kind === "string" || t.kind === "char" || t.kind === "lifetime" || t.kind === "close";
  if (tok.kind === "close") return tok.text === "}";
  if (prev.kind === "open") return prev.text === "{";
  if (tok.text === "," || tok.text === ";" || tok.text === "?" || tok.text === "." || tok.text === "::" || prev.text === "." || prev.text === "::") return false;
  if (prev.text === "," || prev.text === ";") return true;
  if (tok.kind === "open") return tok.text === "{" || !(operand(prev) || prev.text === "!");
  if (tok.text === "!") return !operand(prev);
  if (BINARY.has(tok.text) && tok.kind === "punct") {
    // A binary operator follows an operand; otherwise it is unary (`-x`, `!x`, `&x`, `*x`).
    return operand(prev);
  }
  if (prev.kind === "punct" && BINARY.has(prev.text)) {
    // After a binary operator there is a space; after a unary one there is none.
    return before.slice(0, before.length - prev.text.length).endsWith(" ");
  }
  if (prev.text === "!" || prev.text === "#" || prev.text === "$" || prev.text === "'") return false;
  if (prev.text === "&" || prev.text === "*") return false;
  return operand(prev) && (operand(tok) || tok.kind === "ident");
}
