/**
 * Returned errors: the texts an error value carries to its user (through `?` up to `main`, a log
 * line, `e.to_string()`, or the panic of an `unwrap()` on it), read where the code writes them:
 * - `error-attribute`: `#[error("…")]` of thiserror's derive on an enum variant or a struct;
 * - `display-impl`: `write!`, `writeln!`, `f.write_str` and `f.write_fmt` in the `fmt` of an
 *   `impl Display for <error type>`, per arm of its `match self`;
 * - `err-return`, `ok-or`, `map-err`: `Err(<text>)`, `.ok_or(<text>)`, `.ok_or_else(|| <text>)`
 *   and `.map_err(|e| <text>)`, where `<text>` is a string made in place (a literal, `"…".into()`,
 *   `.to_string()`, `String::from("…")`, `format!(…)`), bare or as the field of a variant or
 *   struct (`E::Parse(format!(…))`, `E::Io { reason: format!(…) }`).
 * Pure: a file's text and the lexer's view of each candidate (layout.ts) in, sites out; the
 * syntax tree only adds facts, in extract.ts, as for a panic.
 *
 * What a record says: `errorType` `error`; `errorClass` the variant or type the text belongs to
 * (`DataError::TypeMismatch`, `Self::…` read as the impl's type; a struct's name), or null for a
 * bare string (a `String`, `&str` or a boxed error made from one has no type of its own: its Debug
 * form is the quoted text); the pattern is the error's Display text. Where the text is only part
 * of what the error displays (a field of a variant, one of several writes of an arm) it has holes
 * at both ends.
 */
import { type Hit, type Item, ownerAt, type Spot } from "../layout.js";
import { decodeStringLiteral, isDistinctive, normalizeParts } from "../message.js";
import { readFormat } from "../rules/rule.js";
import { isAsciiWord, isSpace, isStrLiteral, readDelimited, skipTrivia, splitArgs, tokenize, type Token } from "../tokens.js";
import type { Lines } from "../tree-view.js";
import type { MessagePart, PlaceText, Site, SiteContext, SiteKind, SiteSkip } from "../types.js";

/** The site kinds of returned errors; every other kind is a panic's. */
export const RETURNED_KINDS: ReadonlySet<SiteKind> = new Set<SiteKind>(["error-attribute", "display-impl", "err-return", "ok-or", "map-err"]);

/** The record's `errorType` for a site of this kind: `error` for a returned error, `panic` for the rest. */
export function errorTypeOf(kind: SiteKind): "panic" | "error" {
  return RETURNED_KINDS.has(kind) ? "error" : "panic";
}

/**
 * Where the candidates are, as regex source with four groups, in order: `error` of `#[error(`,
 * `Err` of `Err(`, the methods `.ok_or(`, `.ok_or_else(`, `.map_err(`, `.write_str(`,
 * `.write_fmt(`, and the macros `write!`, `writeln!`. `returnedHits` finds what it matches.
 */
export const RETURNED_CANDIDATE = String.raw`#\s*\[\s*(error)\s*\(|\b(Err)\s*\(|\.\s*(ok_or_else|ok_or|map_err|write_str|write_fmt)\s*\(|\b(writeln|write)\s*!`;

const NAMES: ReadonlySet<string> = new Set(["error", "Err", "ok_or", "ok_or_else", "map_err", "write_str", "write_fmt", "writeln", "write"]);

/** True when a candidate of this name is a returned error's (`returnedHit`), not a panic's. */
export function isReturnedName(name: string): boolean {
  return NAMES.has(name);
}

/**
 * The candidates `RETURNED_CANDIDATE` matches in `text` (each at its name), in order. Pure.
 * Note: found with `indexOf` on each name's first letters, then checked around it: scanning
 *   every file with the regex joined to the panics' cost about as much again as the panics'
 *   alone. No two of its matches overlap, nor one of them a panic's, so the two scans' hits
 *   merged in order are what one scan of both finds (a test compares them).
 */
export function returnedHits(text: string): Hit[] {
  const hits: Hit[] = [];
  for (const [needle, read] of SCANS) {
    for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) {
      const hit = read(text, i);
      if (hit !== null) hits.push(hit);
    }
  }
  return hits.sort((a, b) => a.at - b.at);
}

/** For each name's first letters, what stands at an offset where they are found: a candidate, or null. */
const SCANS: readonly (readonly [string, (text: string, i: number) => Hit | null])[] = [
  ["Err", (text, i) => (wordStartsAt(text, i) && punctAfter(text, i + 3, 40) ? { at: i, name: "Err", macro: false } : null)],
  ["error", (text, i) => (punctAfter(text, i + 5, 40) && punctBefore(text, i, 91) && punctBefore(text, skipBack(text, i) - 1, 35) ? { at: i, name: "error", macro: false } : null)],
  ["ok_or", (text, i) => method(text, i, ["ok_or_else", "ok_or"])],
  ["map_err", (text, i) => method(text, i, ["map_err"])],
  ["write", (text, i) => method(text, i, ["write_str", "write_fmt"]) ?? writeMacro(text, i)],
];

/** `.name(` (white space between) with one of `names` (in the regex's order) at `i`. */
function method(text: string, i: number, names: readonly string[]): Hit | null {
  if (!punctBefore(text, i, 46)) return null;
  const name = names.find((n) => text.startsWith(n, i) && punctAfter(text, i + n.length, 40));
  return name === undefined ? null : { at: i, name, macro: false };
}

/** `writeln!` or `write!` (white space before the `!`) starting a word at `i`. */
function writeMacro(text: string, i: number): Hit | null {
  if (!wordStartsAt(text, i)) return null;
  const name = ["writeln", "write"].find((n) => text.startsWith(n, i) && punctAfter(text, i + n.length, 33));
  return name === undefined ? null : { at: i, name, macro: true };
}

/** `\b` before a word character at `i`. */
function wordStartsAt(text: string, i: number): boolean {
  return i === 0 || !isAsciiWord(text.charCodeAt(i - 1));
}

/** The character `c` at the first offset from `i` on that is not white space (`\s*c`). */
function punctAfter(text: string, i: number, c: number): boolean {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return text.charCodeAt(i) === c;
}

/** The offset just past the last character before `i` that is not white space. */
function skipBack(text: string, i: number): number {
  while (i > 0 && isSpace(text.charCodeAt(i - 1))) i--;
  return i;
}

/** The character `c` right before `i`, white space between (`c\s*`). */
function punctBefore(text: string, i: number, c: number): boolean {
  const j = skipBack(text, i);
  return j > 0 && text.charCodeAt(j - 1) === c;
}

/**
 * A check before the lexer reads a candidate: false when it cannot be a site, so that a file
 * whose candidates are none of them is not laid out for them. `display` says whether the file
 * names `Display` at all (asked once per file).
 * - A write is a site only in a file that names `Display` (in `impl Display for …`).
 * - `Err(`, `.ok_or(`, `.ok_or_else(`, `.map_err(` are sites only when their parentheses hold a
 *   text made in place, so a `"` or the word `format` before they close (comments and char
 *   literals skipped; a text never closes them early, as its `"` says yes first).
 * - `#[error(` always may be one.
 */
export function mayBeSite(text: string, hit: Hit, display: () => boolean): boolean {
  if (hit.name === "error") return true;
  if (hit.name.startsWith("write")) return display();
  let depth = 0;
  for (let j = text.indexOf("(", hit.at + hit.name.length); j >= 0 && j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 34 /* " */) return true;
    if (c === 40 /* ( */) depth++;
    else if (c === 41 /* ) */ && --depth === 0) return false;
    else if (c === 102 /* f */ && text.startsWith("format", j)) return true;
    else if (c === 47 /* / */ && (text[j + 1] === "/" || text[j + 1] === "*")) {
      const end = text[j + 1] === "/" ? text.indexOf("\n", j) : text.indexOf("*/", j + 2) + 1;
      if (end <= 0) return true;
      j = end;
    } else if (c === 39 /* ' */ && (text[j + 2] === "'" || text[j + 1] === "\\")) {
      const end = text.indexOf("'", j + 2);
      if (end < 0) return true;
      j = end;
    }
  }
  return true;
}

/** What one candidate gives: its site, or null when it is none (a comment, a pattern, an error made elsewhere). */
export type ReadReturned = (spot: Spot, context: SiteContext) => Site | null;

/**
 * The reader of one file's candidates. It keeps what several candidates of the file share (an
 * item's tokens, the types the file implements `Error` for), so make one per file.
 */
export function returnedReader(path: string, text: string, lines: Lines): ReadReturned {
  const file = new FileView(text);
  return (spot, context) => {
    if (!spot.code) return null;
    const found = spot.name === "error" ? errorAttribute(file, spot) : spot.excluded ? null : spot.name.startsWith("write") ? displayWrite(file, spot) : returnedValue(file, spot);
    if (found === null) return null;
    return {
      kind: found.kind,
      path,
      line: lines.lineOf(spot.at),
      column: lines.columnOf(spot.at),
      inTokenTree: spot.inTokenTree,
      context,
      message: found.message,
      runtime: found.runtime,
      skip: found.skip,
      // Note: a text without letters of its own (`write!(f, "{}", e)`) has its place's record.
      place: found.place,
      owner: ownerAt(text, spot),
      facts: null,
      errorClass: found.errorClass,
    };
  };
}

/** What a candidate says before it is placed. */
interface Found {
  readonly kind: SiteKind;
  readonly message: string | null;
  readonly runtime: readonly MessagePart[] | null;
  readonly skip: SiteSkip | null;
  /** For a text without letters of its own: what it displays, for its place's record. */
  readonly place: PlaceText | null;
  readonly errorClass: string | null;
}

/** A text made in place: as written, its runtime parts, and the variant or struct it is a field of. */
interface Text {
  readonly message: string;
  readonly parts: readonly MessagePart[];
  /** True when the text is all the error displays; false when it is a field of `wrapper`. */
  readonly whole: boolean;
  readonly wrapper: string | null;
}

const WILD: MessagePart = { wild: true };

/** The site of a text, or the reason it has no record: a text needs 3 letters of its own. */
function found(kind: SiteKind, text: Text | "dynamic", errorClass: string | null): Found {
  if (text === "dynamic") return { kind, message: null, runtime: null, skip: "dynamic-message", place: { message: "", runtime: [WILD] }, errorClass };
  const hole = (p: MessagePart | undefined) => p !== undefined && "wild" in p;
  const runtime: MessagePart[] = text.whole ? [...text.parts] : [...(hole(text.parts[0]) ? [] : [WILD]), ...text.parts, ...(hole(text.parts.at(-1)) ? [] : [WILD])];
  if (!isDistinctive(text.parts)) return { kind, message: text.message, runtime: null, skip: "no-distinctive-text", place: { message: text.message, runtime }, errorClass };
  return { kind, message: text.message, runtime, skip: null, place: null, errorClass };
}

// ---------------------------------------------------------------------------------------------
// What a file's candidates share
// ---------------------------------------------------------------------------------------------

/** An `impl` block's header: the trait (as written, white space removed) and the type's name. */
interface ImplHeader {
  readonly trait: string | null;
  /** The last segment of the type's path, without generic arguments (`Wrapper` of `a::Wrapper<T>`). */
  readonly type: string;
}

/** One file's text and what its candidates read of it more than once: items' tokens, impl headers, the types it implements `Error` for. */
class FileView {
  private errorImpls: ReadonlySet<string> | undefined;
  private readonly tokens = new Map<Item, readonly Token[]>();
  private readonly headers = new Map<Item, readonly Token[]>();
  private readonly impls = new Map<Item, ImplHeader | null>();

  constructor(readonly text: string) {}

  /** The tokens of an item, offsets into the file's text. */
  tokensOf(item: Item): readonly Token[] {
    let tokens = this.tokens.get(item);
    if (tokens === undefined) {
      const start = item.start;
      tokens = tokenize(this.text.slice(start, item.end)).map((t) => ({ ...t, start: t.start + start, end: t.end + start }));
      this.tokens.set(item, tokens);
    }
    return tokens;
  }

  /** The tokens of an item up to its body's first item (all of them when it has no body of items). */
  headerOf(item: Item): readonly Token[] {
    if (item.body === null) return this.tokensOf(item);
    let tokens = this.headers.get(item);
    if (tokens === undefined) {
      const start = item.start;
      tokens = tokenize(this.text.slice(start, item.body.preludeEnd)).map((t) => ({ ...t, start: t.start + start, end: t.end + start }));
      this.headers.set(item, tokens);
    }
    return tokens;
  }

  /** The header of an `impl` item, null for any other item. */
  implOf(item: Item): ImplHeader | null {
    if (!this.impls.has(item)) this.impls.set(item, item.keyword === "impl" ? readImplHeader(this.headerOf(item)) : null);
    return this.impls.get(item)!;
  }

  /** The type of the `impl` block that holds `item` (itself or an item of its body), or null. */
  implTypeOf(item: Item | null): string | null {
    for (let a = item; a !== null; a = a.parent) if (a.keyword === "impl") return this.implOf(a)?.type ?? null;
    return null;
  }

  /**
   * True when a type of this name is an error type: its name ends in `Error`, or the file
   * implements `std::error::Error` (`core::error::Error`, `Error`) for it.
   * Note: only the file itself is read (extraction is per file); an error type named otherwise
   *   whose `Error` impl stands in another file is not seen.
   */
  isErrorType(name: string): boolean {
    if (name.endsWith("Error")) return true;
    this.errorImpls ??= new Set([...this.text.matchAll(ERROR_IMPL)].map((m) => m[1]!));
    return this.errorImpls.has(name);
  }
}

/** `impl<…> Error for Name`, with `std::error::`, `core::error::` or `error::` before `Error`. */
const ERROR_IMPL = /\bimpl\s*(?:<[^{};]*?>\s*)?(?:::\s*)?(?:(?:std|core)\s*::\s*)?(?:error\s*::\s*)?Error\s+for\s+(?:[A-Za-z_]\w*\s*::\s*)*([A-Za-z_]\w*)/g;

/** The paths `Display` is named by in an `impl` header. */
const DISPLAY_PATHS: ReadonlySet<string> = new Set(["Display", "fmt::Display", "std::fmt::Display", "core::fmt::Display", "alloc::fmt::Display", "::std::fmt::Display", "::core::fmt::Display"]);

/** Reads `impl<…> Trait for Type<…> where … {` from an impl item's tokens (attributes first). */
function readImplHeader(tokens: readonly Token[]): ImplHeader | null {
  let k = tokens.findIndex((t) => t.kind === "ident" && t.text === "impl");
  if (k < 0) return null;
  k++;
  if (tokens[k]?.text === "<") k = skipAngles(tokens, k);
  const path: Token[] = [];
  let trait: string | null = null;
  for (; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.text === "{" || (t.kind === "ident" && t.text === "where")) break;
    if (t.kind === "ident" && t.text === "for" && trait === null) {
      trait = path.map((p) => p.text).join("");
      path.length = 0;
      continue;
    }
    if (t.text === "<") {
      k = skipAngles(tokens, k) - 1;
      continue;
    }
    path.push(t);
  }
  const name = path.filter((t) => t.kind === "ident").at(-1)?.text;
  return name === undefined ? null : { trait, type: name };
}

/** The index after the generic brackets that open at `k` (`<`), nested ones and `>>` counted. */
function skipAngles(tokens: readonly Token[], k: number): number {
  let depth = 0;
  for (; k < tokens.length; k++) {
    const t = tokens[k]!.text;
    if (t === "<") depth++;
    else if (t === "<<") depth += 2;
    else if (t === ">") depth--;
    else if (t === ">>") depth -= 2;
    else if (t === "{" || t === ";") return k;
    if (depth <= 0) return k + 1;
  }
  return k;
}

// ---------------------------------------------------------------------------------------------
// #[error("…")]
// ---------------------------------------------------------------------------------------------

/**
 * `#[error(…)]` on a variant of an enum, or on a struct, that derives `Error`: the format string
 * and its arguments, as thiserror hands them to `write!` (`{0}` and `{field}` name the fields).
 * `#[error(transparent)]` displays its source's text: a site without text of its own.
 */
function errorAttribute(file: FileView, spot: Spot): Found | null {
  const text = file.text;
  const item = spot.item;
  if (item === null || (item.keyword !== "enum" && item.keyword !== "struct")) return null;
  const open = skipTrivia(text, spot.at + spot.name.length);
  const call = readDelimited(text, open);
  if (call === null) return null;
  const close = skipTrivia(text, call.end);
  if (text[close] !== "]") return null;
  const own = typeOf(file.tokensOf(item), item.keyword);
  if (own === null || !derivesError(file.tokensOf(item), own.at)) return null;
  // What the attribute stands on: past other attributes (and doc comments), a variant or the type.
  let i = skipTrivia(text, close + 1);
  while (text[i] === "#") {
    const attr = readDelimited(text, skipTrivia(text, i + 1));
    if (attr === null) return null;
    i = skipTrivia(text, attr.end);
  }
  // Note: an attribute before the type's keyword is the type's (a struct's); one inside the body is a variant's.
  const onType = i <= own.at;
  const word = /^[A-Za-z_]\w*/.exec(text.slice(i, i + 256))?.[0];
  if (word === undefined || (!onType && item.keyword !== "enum")) return null;
  const errorClass = onType ? own.name : `${own.name}::${word}`;
  const args = splitArgs(call.tokens);
  const format = readFormat(args);
  if (format === null) return found("error-attribute", "dynamic", errorClass);
  return found("error-attribute", { message: format.format, parts: format.parts, whole: true, wrapper: null }, errorClass);
}

/** The name of an `enum` or `struct` item and where its keyword stands. */
function typeOf(tokens: readonly Token[], keyword: string): { name: string; at: number } | null {
  for (let k = 0; k + 1 < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.kind === "punct" && t.text === "#") {
      // An attribute: its `[ … ]` group is skipped whole.
      k = closeOf(tokens, k + 1);
      continue;
    }
    if (t.kind === "ident" && t.text === keyword && tokens[k + 1]!.kind === "ident") return { name: tokens[k + 1]!.text, at: t.start };
  }
  return null;
}

/** True when an outer attribute before `end` derives `Error` (`#[derive(Debug, thiserror::Error)]`). */
function derivesError(tokens: readonly Token[], end: number): boolean {
  for (let k = 0; k + 3 < tokens.length && tokens[k]!.start < end; k++) {
    if (tokens[k]!.text !== "#" || tokens[k + 1]!.text !== "[" || tokens[k + 2]!.text !== "derive") continue;
    const last = closeOf(tokens, k + 1);
    for (let j = k + 3; j < last; j++) if (tokens[j]!.text === "Error" && (tokens[j + 1]?.text === "," || tokens[j + 1]?.text === ")")) return true;
  }
  return false;
}

/** The index of the token that closes the group opening at `k` (the last index when it never closes). */
function closeOf(tokens: readonly Token[], k: number): number {
  let depth = 0;
  for (; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.kind === "open") depth++;
    else if (t.kind === "close" && --depth === 0) return k;
  }
  return tokens.length - 1;
}

// ---------------------------------------------------------------------------------------------
// impl Display for <error type>
// ---------------------------------------------------------------------------------------------

/** The methods and macros that write to a formatter, besides the candidates: a write of theirs makes an arm's text a part. */
const OTHER_WRITES: ReadonlySet<string> = new Set(["fmt", "pad", "write_char", "debug_struct", "debug_tuple", "debug_list", "debug_map", "debug_set", "pad_integral"]);

/**
 * A write in the `fmt` of `impl Display for <error type>`: its text, and the variant of the
 * `match self` arm it is written in (the type itself outside such a match, or in an arm that
 * catches every other variant; null in an arm of several variants).
 */
function displayWrite(file: FileView, spot: Spot): Found | null {
  const fn = spot.item;
  const impl = fn?.parent ?? null;
  if (fn === null || fn.keyword !== "fn" || impl === null || spot.functions[0] !== "fmt") return null;
  const header = file.implOf(impl);
  if (header === null || header.trait === null || !DISPLAY_PATHS.has(header.trait) || !file.isErrorType(header.type)) return null;
  const text = file.text;
  const written = writeOf(text, spot);
  if (written === null) return null;
  const tokens = file.tokensOf(fn);
  const arm = armOf(tokens, spot.at);
  const errorClass = arm === null ? header.type : classOfArm(tokens, arm, header.type);
  const body = arm ?? bodyOf(tokens);
  const writes = tokens.slice(body.from, body.to).filter((_, j, ts) => isWrite(ts, j)).length;
  if (writes > 1) {
    // The writes of one straight run make one text: the write that first has text of its own stands for it.
    const composed = composedWrites(text, tokens, body);
    if (composed !== null) return composed.first === spot.at ? found("display-impl", { message: composed.message, parts: composed.parts, whole: true, wrapper: null }, errorClass) : null;
  }
  // Note: beside other writes, a write with no text of its own (a separator `", "`, a `"{}"`, a name) is a piece of the text they make, not an error's text.
  if (writes > 1 && (written === "dynamic" || !isDistinctive(written.parts))) return null;
  if (written === "dynamic") return found("display-impl", "dynamic", errorClass);
  return found("display-impl", { ...written, whole: writes === 1 }, errorClass);
}

/**
 * The text the writes of a `fmt` body (or of a `match self` arm's value) give together, when they
 * run one after another: each `write!`, `writeln!`, `f.write_str` and `f.write_fmt` of the body's
 * own level gives its text, and what else uses the formatter (`Debug::fmt(x, f)`, a write in a
 * loop or a branch) a hole. `first`: the offset of the first write with text of its own. Null when
 * a `return` may cut the run short, or when no write of the body's level has text of its own.
 */
function composedWrites(text: string, tokens: readonly Token[], body: Span): { message: string; parts: MessagePart[]; first: number } | null {
  let { from, to } = body;
  // Note: an arm's value written as a block: its writes are those of the block's level.
  if (tokens[from]?.text === "{" && closeOf(tokens, from) === to - 1) (from += 1), (to -= 1);
  const formatter = formatterOf(tokens, from, to);
  if (formatter === null) return null;
  const parts: MessagePart[] = [];
  let message = "";
  let first = -1;
  const hole = () => {
    if (parts.at(-1) === undefined || !("wild" in parts.at(-1)!)) (parts.push(WILD), (message += "{}"));
  };
  let depth = 0;
  for (let k = from; k < to; k++) {
    const t = tokens[k]!;
    if (t.text === "return") return null;
    if (t.kind === "open") depth++;
    else if (t.kind === "close") depth--;
    if (t.kind !== "ident") continue;
    const macro = (t.text === "write" || t.text === "writeln") && tokens[k + 1]?.text === "!" && tokens[k + 3]?.text === formatter;
    const method = (t.text === "write_str" || t.text === "write_fmt") && tokens[k - 1]?.text === "." && tokens[k - 2]?.text === formatter && tokens[k + 1]?.text === "(";
    if (depth === 0 && (macro || method)) {
      const written = writeOf(text, { at: t.start, name: t.text, macro });
      if (written === null || written === "dynamic") hole();
      else {
        if (first < 0 && isDistinctive(written.parts)) first = t.start;
        parts.push(...written.parts);
        message += written.message + (t.text === "writeln" ? "\n" : "");
      }
      k = closeOf(tokens, macro ? k + 2 : k + 1);
    } else if (t.text === formatter && !(depth === 0 && tokens[k + 1]?.text === "." && (tokens[k + 2]?.text === "write_str" || tokens[k + 2]?.text === "write_fmt"))) hole();
  }
  return first < 0 ? null : { message, parts: normalizeParts(parts), first };
}

/** The formatter a body writes to: the first argument of its first `write!` or `writeln!`, or the receiver of its first `.write_str(` or `.write_fmt(`. */
function formatterOf(tokens: readonly Token[], from: number, to: number): string | null {
  for (let k = from; k < to; k++) {
    const t = tokens[k]!;
    if ((t.text === "write" || t.text === "writeln") && tokens[k + 1]?.text === "!" && tokens[k + 3]?.kind === "ident" && tokens[k + 4]?.text === ",") return tokens[k + 3]!.text;
    if ((t.text === "write_str" || t.text === "write_fmt") && tokens[k - 1]?.text === "." && tokens[k - 2]?.kind === "ident" && tokens[k - 3]?.text !== ".") return tokens[k - 2]!.text;
  }
  return null;
}

/** True when the token at `j` starts a write to a formatter (a candidate's, or another way of writing). */
function isWrite(tokens: readonly Token[], j: number): boolean {
  const t = tokens[j]!;
  if (t.kind !== "ident") return false;
  const next = tokens[j + 1]?.text;
  if ((t.text === "write" || t.text === "writeln") && next === "!") return true;
  return next === "(" && tokens[j - 1]?.text === "." && (t.text === "write_str" || t.text === "write_fmt" || OTHER_WRITES.has(t.text));
}

/** The text one write gives: `write!(f, …)`, `writeln!(f, …)` (a line feed after), `f.write_str("…")`, `f.write_fmt(format_args!(…))`. */
function writeOf(text: string, spot: Hit): Omit<Text, "whole"> | "dynamic" | null {
  let i = skipTrivia(text, spot.at + spot.name.length);
  if (spot.macro) {
    if (text[i] !== "!") return null;
    i = skipTrivia(text, i + 1);
  }
  const call = readDelimited(text, i);
  if (call === null) return null;
  const args = splitArgs(call.tokens);
  if (spot.name === "write_str") {
    const value = args.length === 1 ? textValue(args[0]!) : null;
    return value === null ? "dynamic" : value;
  }
  if (spot.name === "write_fmt") {
    const inner = args.length === 1 ? macroArgs(args[0]!, "format_args") : null;
    const format = inner === null ? null : readFormat(inner);
    return format === null ? "dynamic" : { message: format.format, parts: format.parts, wrapper: null };
  }
  if (args.length < 2) return spot.name === "writeln" ? { message: "", parts: [{ lit: "\n" }], wrapper: null } : null;
  const format = readFormat(args.slice(1));
  if (format === null) return "dynamic";
  return { message: format.format, parts: spot.name === "writeln" ? withLineFeed(format.parts) : format.parts, wrapper: null };
}

/** `parts` and the line feed `writeln!` writes after them, joined to a last literal. */
function withLineFeed(parts: readonly MessagePart[]): MessagePart[] {
  const last = parts.at(-1);
  return last !== undefined && "lit" in last ? [...parts.slice(0, -1), { lit: `${last.lit}\n` }] : [...parts, { lit: "\n" }];
}

/** A span of token indices, `to` excluded. */
interface Span {
  readonly from: number;
  readonly to: number;
}

/** An arm of a `match`: its pattern's tokens and its value's. */
interface Arm {
  readonly pattern: Span;
  readonly from: number;
  readonly to: number;
}

/** The body of a function item: the tokens inside its outermost `{ … }` after the signature. */
function bodyOf(tokens: readonly Token[]): Span {
  let depth = 0;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.text === "#" && tokens[k + 1]?.text === "[") {
      k = closeOf(tokens, k + 1);
      continue;
    }
    if (t.text === "{" && depth === 0) return { from: k + 1, to: closeOf(tokens, k) };
    if (t.kind === "open") depth++;
    else if (t.kind === "close") depth--;
  }
  return { from: tokens.length, to: tokens.length };
}

/**
 * The arm of the body's `match self` (`*self`, `&self`) whose value holds offset `at`, or null
 * when no such match holds it.
 */
function armOf(tokens: readonly Token[], at: number): Arm | null {
  const body = bodyOf(tokens);
  for (let k = body.from; k < body.to; k++) {
    if (tokens[k]!.text !== "match") continue;
    let open = k + 1;
    while (open < body.to && tokens[open]!.text !== "{") open++;
    const scrutinee = tokens.slice(k + 1, open).filter((t) => t.text !== "&" && t.text !== "*");
    if (scrutinee.length !== 1 || scrutinee[0]!.text !== "self") continue;
    const close = closeOf(tokens, open);
    for (const arm of armsOf(tokens, open + 1, close)) if (tokens[arm.from]!.start <= at && at < endOf(tokens, arm)) return arm;
    return null;
  }
  return null;
}

function endOf(tokens: readonly Token[], arm: Arm): number {
  return arm.to < tokens.length ? tokens[arm.to]!.start : Number.MAX_SAFE_INTEGER;
}

/** The arms between `from` and `to`: a pattern up to `=>`, then a block (a comma may follow) or an expression up to a comma. */
function armsOf(tokens: readonly Token[], from: number, to: number): Arm[] {
  const arms: Arm[] = [];
  let k = from;
  while (k < to) {
    // Note: an arm's attributes (`#[cfg(…)]`) are not its pattern.
    while (tokens[k]?.text === "#" && tokens[k + 1]?.text === "[") k = closeOf(tokens, k + 1) + 1;
    const start = k;
    let depth = 0;
    while (k < to && !(depth === 0 && tokens[k]!.text === "=>")) {
      if (tokens[k]!.kind === "open") depth++;
      else if (tokens[k]!.kind === "close") depth--;
      k++;
    }
    if (k >= to) break;
    const pattern = { from: start, to: k };
    k++;
    const valueStart = k;
    if (tokens[k]?.text === "{") {
      k = closeOf(tokens, k) + 1;
      arms.push({ pattern, from: valueStart, to: k });
      if (tokens[k]?.text === ",") k++;
      continue;
    }
    depth = 0;
    while (k < to && !(depth === 0 && tokens[k]!.text === ",")) {
      if (tokens[k]!.kind === "open") depth++;
      else if (tokens[k]!.kind === "close") depth--;
      k++;
    }
    arms.push({ pattern, from: valueStart, to: k });
    k++;
  }
  return arms;
}

/**
 * The variant an arm's pattern names, as `Type::Variant` (`Self::A`, `Type::A`, `A` after a
 * `use Type::*`, each with fields or not); the type when the pattern catches any value; null
 * when its alternatives name more than one variant.
 */
function classOfArm(tokens: readonly Token[], arm: Arm, type: string): string | null {
  const classes = new Set<string>();
  let alternative: Token[] = [];
  const take = () => {
    const path: string[] = [];
    for (let j = 0; j < alternative.length; j++) {
      const t = alternative[j]!;
      if (t.kind === "ident" && (path.length === 0 || alternative[j - 1]!.text === "::")) path.push(t.text);
      else if (t.text !== "::" || path.length === 0) break;
    }
    alternative = [];
    const last = path.at(-1);
    if (last === undefined || !/^[A-Z]/.test(last)) classes.add(type);
    else classes.add(path.length === 1 || path[path.length - 2] === "Self" ? `${type}::${last}` : `${path[path.length - 2]}::${last}`);
  };
  let depth = 0;
  for (let j = arm.pattern.from; j < arm.pattern.to; j++) {
    const t = tokens[j]!;
    if (t.kind === "open") depth++;
    else if (t.kind === "close") depth--;
    if (depth === 0 && t.kind === "ident" && t.text === "if") break;
    if (depth === 0 && t.text === "|") take();
    else alternative.push(t);
  }
  take();
  return classes.size === 1 ? [...classes][0]! : null;
}

// ---------------------------------------------------------------------------------------------
// Err(…), .ok_or(…), .ok_or_else(|| …), .map_err(|e| …)
// ---------------------------------------------------------------------------------------------

const VALUE_KINDS: Readonly<Record<string, SiteKind>> = { Err: "err-return", ok_or: "ok-or", ok_or_else: "ok-or", map_err: "map-err" };

/**
 * An error value made in place: `Err(<text>)` (also `Result::Err`), `.ok_or(<text>)`, and the
 * closures of `.ok_or_else` and `.map_err` whose value is a text (a block's last expression).
 * Anything else (`Err(e)`, `.map_err(Error::Io)`, a pattern `Err(_) =>`) is no site.
 */
function returnedValue(file: FileView, spot: Spot): Found | null {
  const text = file.text;
  const kind = VALUE_KINDS[spot.name]!;
  if (spot.name === "Err" && !plainErr(text, spot)) return null;
  const call = readDelimited(text, skipTrivia(text, spot.at + spot.name.length));
  if (call === null) return null;
  const args = splitArgs(call.tokens);
  if (args.length !== 1) return null;
  const arg = args[0]!;
  const value = spot.name === "ok_or_else" || spot.name === "map_err" ? closureValue(arg) : arg;
  if (value === null) return null;
  // Note: a bare literal may be a pattern (`Err("x") =>`, `if let Err("x") = r`); a text made by a call never is.
  if (value.length === 1 && spot.name === "Err" && isPattern(text, call.end)) return null;
  const made = textValue(value);
  if (made === null) return null;
  const wrapper = made.wrapper === null ? null : made.wrapper.startsWith("Self::") ? selfPath(file, spot, made.wrapper) : made.wrapper;
  return found(kind, made, wrapper);
}

/** `Err` itself, or std's path to it (`Result::Err`, `std::result::Result::Err`): no field, no other path. */
function plainErr(text: string, spot: Spot): boolean {
  const before = text[spot.before];
  if (before === "." || before === "$") return false;
  if (before !== ":") return true;
  return /(?:^|[^\w:])(?:(?:::)?(?:std|core)\s*::\s*result\s*::\s*)?Result\s*::\s*$/.test(text.slice(Math.max(0, spot.at - 64), spot.at));
}

/** True when what follows a call ending at `end` makes it a pattern: `=>`, `|`, `=` (not `==`), `if`. */
function isPattern(text: string, end: number): boolean {
  const i = skipTrivia(text, end);
  return /^(?:=>|=(?!=)|\|(?!\|)|if\b)/.test(text.slice(i, i + 3));
}

/** `Self::Variant` as `Type::Variant`, the type being the enclosing `impl`'s; as written outside one. */
function selfPath(file: FileView, spot: Spot, path: string): string {
  const type = file.implTypeOf(spot.item);
  return type === null ? path : `${type}${path.slice("Self".length)}`;
}

/** The value of a closure (`|e| v`, `move || v`, `|_| { …; v }`: a block's last expression), or null when `tokens` is no closure. */
function closureValue(tokens: readonly Token[]): readonly Token[] | null {
  let k = tokens[0]?.text === "move" ? 1 : 0;
  if (tokens[k]?.text === "||") k++;
  else if (tokens[k]?.text === "|") {
    k++;
    let depth = 0;
    while (k < tokens.length && !(depth === 0 && tokens[k]!.text === "|")) {
      if (tokens[k]!.kind === "open") depth++;
      else if (tokens[k]!.kind === "close") depth--;
      k++;
    }
    k++;
  } else return null;
  let body: readonly Token[] = tokens.slice(k);
  if (body[0]?.text === "{" && closeOf(body, 0) === body.length - 1) body = lastExpression(body.slice(1, -1));
  return body.length === 0 ? null : body;
}

/** The expression after a block's last top-level `;` (the block's value), or nothing when the block ends in `;`. */
function lastExpression(tokens: readonly Token[]): readonly Token[] {
  let depth = 0;
  let after = 0;
  tokens.forEach((t, k) => {
    if (t.kind === "open") depth++;
    else if (t.kind === "close") depth--;
    else if (depth === 0 && t.text === ";") after = k + 1;
  });
  return tokens.slice(after);
}

/** Methods that turn a string into another string type, or into an error (`From`): they keep the text. */
const CONVERSIONS: ReadonlySet<string> = new Set(["into", "to_string", "to_owned", "into_boxed_str"]);

/** Constructors that are no error type (`Some("x")`, `Ok(…)`): what they wrap is not an error's text. */
const NOT_ERRORS: ReadonlySet<string> = new Set(["Some", "Ok", "Err", "Box", "Cow", "Arc", "Rc"]);

/**
 * The text an expression makes in place: a string literal (its braces are text), `format!(…)`,
 * `String::from(…)` of one, any of them with `.into()`, `.to_string()`, … after it, or one of
 * them as a field of a variant or tuple struct (`E::V(…)`) or a struct literal (`E::V { f: … }`),
 * which then names the error's class. Null for anything else.
 */
export function textValue(tokens: readonly Token[]): Text | null {
  let ts = tokens;
  while (ts[0]?.text === "&") ts = ts.slice(1);
  while (ts.length >= 4 && ts.at(-1)!.text === ")" && ts.at(-2)!.text === "(" && CONVERSIONS.has(ts.at(-3)!.text) && ts.at(-4)!.text === ".") ts = ts.slice(0, -4);
  if (ts.length === 1 && isStrLiteral(ts[0])) {
    const value = decodeStringLiteral(ts[0]!.text);
    return value === null ? null : { message: value, parts: [{ lit: value }], whole: true, wrapper: null };
  }
  const format = macroArgs(ts, "format");
  if (format !== null) {
    const call = readFormat(format);
    return call === null ? null : { message: call.format, parts: call.parts, whole: true, wrapper: null };
  }
  // A path, then `(…)` or `{…}` that ends the expression.
  let k = ts[0]?.text === "::" ? 1 : 0;
  const path: string[] = [];
  while (ts[k]?.kind === "ident") {
    path.push(ts[k]!.text);
    if (ts[k + 1]?.text !== "::") break;
    k += 2;
  }
  k++;
  const open = ts[k];
  if (path.length === 0 || open?.kind !== "open" || open.text === "[" || closeOf(ts, k) !== ts.length - 1) return null;
  const inside = splitArgs(ts.slice(k + 1, -1));
  const last = path.at(-1)!;
  if (path.join("::") === "String::from" || path.join("::") === "std::string::String::from") return inside.length === 1 ? textValue(inside[0]!) : null;
  if (!/^[A-Z]/.test(last) || NOT_ERRORS.has(last)) return null;
  const fields = open.text === "(" ? inside : inside.flatMap((f) => (f.length >= 3 && f[0]!.kind === "ident" && f[1]!.text === ":" ? [f.slice(2)] : []));
  const texts = fields.map(textValue).filter((t): t is Text => t !== null);
  if (texts.length !== 1) return null;
  // Note: the outermost constructor is the error's class (`Err(A::B(C::D(…)))` is an `A::B`).
  const wrapper = path.length === 1 ? last : `${path[path.length - 2]}::${last}`;
  return { ...texts[0]!, whole: false, wrapper };
}

/** The arguments of `name!(…)` (also `std::name!`, `alloc::name!`) when that call is all of `tokens`, else null. */
function macroArgs(tokens: readonly Token[], name: string): Token[][] | null {
  let k = 0;
  if (tokens[k]?.text === "::") k++;
  if ((tokens[k]?.text === "std" || tokens[k]?.text === "alloc" || tokens[k]?.text === "core") && tokens[k + 1]?.text === "::") k += 2;
  if (tokens[k]?.text !== name || tokens[k + 1]?.text !== "!" || tokens[k + 2]?.kind !== "open") return null;
  if (closeOf(tokens, k + 2) !== tokens.length - 1) return null;
  return splitArgs(tokens.slice(k + 3, -1));
}
