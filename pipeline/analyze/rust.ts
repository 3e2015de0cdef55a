/**
 * Small facts about Rust snippets taken verbatim from the source (conditions, patterns), read
 * with the project's lexer: which names an expression reads, which a pattern binds, whether an
 * expression needs parentheses, what a match pattern's head path is. Pure.
 */
import { KEYWORDS, LITERAL_KEYWORDS, PATH_KEYWORDS } from "../rust/index.js";
import { tokenize, type Token } from "../tokens.js";

/** Every token of `src` (comments skipped); stops at the first character the lexer cannot read. */
export function lex(src: string): Token[] {
  return tokenize(src, "stop");
}

/** Words that name no value and that no pattern binds: the keywords (`self` aside where said) and `_`. */
function notAName(word: string): boolean {
  return KEYWORDS.has(word) || word === "_";
}

/**
 * The lowercase names an expression reads as values: not a field or method (`.x`), not a path
 * segment (`a::x`, `x::a`), not a macro (`x!`) or function called by name (`x(`), not a keyword.
 * `self` counts as a name.
 */
export function readNames(expr: string): string[] {
  const toks = lex(expr);
  const out = new Set<string>();
  toks.forEach((t, i) => {
    if (t.kind !== "ident" || (notAName(t.text) && t.text !== "self")) return;
    if (!/^[a-z_]/.test(t.text) || t.text === "_") return;
    const prev = toks[i - 1]?.text;
    const next = toks[i + 1]?.text;
    if (prev === "." || prev === "::" || next === "::" || next === "!" || next === "(") return;
    // Note: `name: value` inside a struct literal names a field, not a variable.
    if (next === ":" && toks[i - 1] !== undefined && (prev === "{" || prev === ",")) return;
    out.add(t.text);
  });
  return [...out];
}

/** The capitalised names an expression or type mentions as the first segment of a path (`Self`, `B`, `T`). */
export function typeNames(src: string): string[] {
  const toks = lex(src);
  const out = new Set<string>();
  toks.forEach((t, i) => {
    if ((t.kind === "ident" && /^[A-Z]/.test(t.text) && toks[i - 1]?.text !== "::" && toks[i - 1]?.text !== ".") || t.kind === "lifetime") out.add(t.text);
  });
  return [...out];
}

/**
 * The names a pattern binds: lowercase identifiers that are not path segments, constructors
 * (`x(`, `x {`), or field names (`field: pat`), nor `ref`/`mut`/`_`.
 */
export function boundNames(pattern: string): string[] {
  const toks = lex(pattern);
  const out = new Set<string>();
  toks.forEach((t, i) => {
    if (t.kind !== "ident" || notAName(t.text) || !/^[a-z_]/.test(t.text)) return;
    const prev = toks[i - 1]?.text;
    const next = toks[i + 1]?.text;
    if (prev === "::" || prev === "." || next === "::" || next === "(" || next === "{" || next === "!" || next === ":") return;
    out.add(t.text);
  });
  return [...out];
}

/** The type parameters and lifetimes declared by generics as written (`<'a, B: Backend, const N: usize>`). */
export function genericNames(generics: string | null): string[] {
  if (generics === null) return [];
  const toks = lex(generics);
  const out: string[] = [];
  let depth = 0;
  toks.forEach((t, i) => {
    if (t.text === "<") depth++;
    else if (t.text === ">") depth--;
    const prev = toks[i - 1]?.text;
    if (depth === 1 && (prev === "<" || prev === "," || prev === "const") && (t.kind === "ident" || t.kind === "lifetime") && t.text !== "const") out.push(t.text);
  });
  return out;
}

const TIGHT = new Set([".", "::", "&", "*", "!", "?"]);

/**
 * True when `expr` can stand as an operand without parentheses: a path, call, field, index,
 * literal or macro call with at most leading `&`, `*`, `!`; nothing binary at its top level.
 */
export function isAtom(expr: string): boolean {
  const toks = lex(expr);
  if (toks.length === 0) return false;
  let depth = 0;
  let leading = true;
  for (const t of toks) {
    if (t.kind === "open") depth++;
    else if (t.kind === "close") depth--;
    else if (depth === 0) {
      if (t.kind === "punct" && !TIGHT.has(t.text)) return false;
      if (t.kind === "punct" && (t.text === "&" || t.text === "*" || t.text === "!") && !leading) return false;
      if (t.kind === "ident" && notAName(t.text) && !PATH_KEYWORDS.has(t.text) && !LITERAL_KEYWORDS.has(t.text)) return false;
    }
    leading = t.kind === "punct" && depth === 0 && (t.text === "&" || t.text === "*" || t.text === "!");
  }
  return true;
}

/** `expr` as an operand: parenthesised unless it is an atom. */
export function operand(expr: string): string {
  return isAtom(expr) ? expr.trim() : `(${expr.trim()})`;
}

/**
 * The head paths of a match pattern (one per `|` alternative): `A::B` for `A::B(x)`, `A::B { .. }`
 * or `A::B`, a literal's text; null when an alternative matches more than its head says (a
 * binding, `_`, a range, a slice, a tuple, a reference): then arms may overlap.
 */
export function headPaths(pattern: string): string[] | null {
  const toks = lex(pattern);
  const heads: string[] = [];
  let start = 0;
  let depth = 0;
  const alternatives: Token[][] = [];
  toks.forEach((t, i) => {
    if (t.kind === "open") depth++;
    else if (t.kind === "close") depth--;
    else if (depth === 0 && t.text === "|") {
      alternatives.push(toks.slice(start, i));
      start = i + 1;
    }
  });
  alternatives.push(toks.slice(start));
  for (const alt of alternatives) {
    const first = alt[0];
    if (first === undefined) return null;
    if (alt.length === 1 && (first.kind === "number" || first.kind === "string" || first.kind === "char")) {
      heads.push(first.text);
      continue;
    }
    let i = 0;
    const path: string[] = [];
    while (alt[i]?.kind === "ident" || alt[i]?.text === "::") path.push(alt[i++]!.text);
    const last = path.at(-1);
    if (path.length === 0 || last === "::" || last === undefined || !/^[A-Z]/.test(last) || (alt[i] !== undefined && alt[i]!.kind !== "open")) return null;
    heads.push(path.join(""));
  }
  return heads;
}

/** A Rust string literal holding `value`. */
export function rustString(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t")}"`;
}
