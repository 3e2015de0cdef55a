/**
 * From a message as written in Rust source to the regex that matches what the user sees:
 * decode the string literal, split the `format!` string into text and arguments, turn that
 * into literal text and holes, and compose a linear-time JavaScript pattern from those.
 * Everything here is pure: no I/O, no clock, no global state.
 */

import type { MessagePart } from "./types.js";

/**
 * One piece of a parsed `format!` string: literal text (with `{{`/`}}` already reduced to one
 * brace), or an argument written verbatim (`{x:?}`) with its name: `""` for an implicit
 * positional argument (`{}`, `{:?}`), the decimal index for an explicit one (`{0}`), or the
 * identifier for a named or captured one (`{x}`).
 */
export type FormatPiece =
  | { readonly text: string }
  | { readonly arg: string; readonly name: string };

// ---------------------------------------------------------------------------------------------
// String literals
// ---------------------------------------------------------------------------------------------

type LiteralKind = "str" | "byte" | "c";

/** The most `#`s rustc allows around a raw string. */
const MAX_RAW_HASHES = 255;

/**
 * Decodes one Rust string-literal token, given exactly as written with its prefix and quotes:
 * `"…"`, `r"…"`, `r#"…"#` (any number of `#` up to rustc's 255), `b"…"`, `br"…"`, `c"…"`, `cr"…"`.
 * Returns the value, or null when the text is not one well-formed literal (unknown escape,
 * unterminated, trailing suffix, bare CR, non-ASCII in a byte string, NUL in a C string, …).
 * Never throws.
 *
 * Escapes: `\n \r \t \\ \0 \' \"`, `\xHH` (at most `\x7F` outside byte and C strings),
 * `\u{H…}` (1–6 hex digits, `_` allowed after the first; not in byte strings), and `\` before a
 * newline, which skips the newline and every following space, tab, `\n` and `\r`.
 * Raw strings take no escapes.
 *
 * Note: CRLF is read as `\n` and a bare CR is an error, as rustc normalises the source file
 *   before lexing and then rejects any CR left inside a literal.
 * Note: byte and C strings decode each byte to the char of the same number (`b"\xFF"` gives
 *   `"\u00FF"`), and other chars to themselves; they rarely carry panic messages, so this is
 *   only meant to be faithful for ASCII.
 */
export function decodeStringLiteral(source: string): string | null {
  const text = source.replace(/\r\n/g, "\n");
  if (text.includes("\r")) return null;

  let i = 0;
  let kind: LiteralKind = "str";
  if (text[i] === "b") {
    kind = "byte";
    i++;
  } else if (text[i] === "c") {
    kind = "c";
    i++;
  }
  const raw = text[i] === "r";
  if (raw) i++;

  const body = raw ? rawBody(text, i) : quotedBody(text, i);
  if (body === null) return null;
  if (raw) return charsAllowed(body, kind) ? body : null;
  return unescape(body, kind);
}

/** The text between the delimiters of a raw string starting at `start` (after the `r`). */
function rawBody(text: string, start: number): string | null {
  let hashes = 0;
  while (text[start + hashes] === "#") hashes++;
  if (hashes > MAX_RAW_HASHES || text[start + hashes] !== '"') return null;
  const terminator = '"' + "#".repeat(hashes);
  const open = start + hashes + 1;
  const close = text.length - terminator.length;
  // The first terminator ends the token: any other place means text after the literal.
  if (close < open || text.indexOf(terminator, open) !== close) return null;
  return text.slice(open, close);
}

/** The text between the quotes of a non-raw string starting at `start`, escapes still in. */
function quotedBody(text: string, start: number): string | null {
  if (text[start] !== '"' || text.length < start + 2 || !text.endsWith('"')) return null;
  return text.slice(start + 1, -1);
}

/** Whether every char written literally is allowed in a literal of this kind. */
function charsAllowed(body: string, kind: LiteralKind): boolean {
  if (kind === "byte") return !/[^\x00-\x7F]/.test(body);
  if (kind === "c") return !body.includes("\0");
  return true;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  n: "\n",
  r: "\r",
  t: "\t",
  "\\": "\\",
  "0": "\0",
  "'": "'",
  '"': '"',
};

/** Decodes the escapes of a non-raw body; null on any escape rustc rejects or a stray `"`. */
function unescape(body: string, kind: LiteralKind): string | null {
  if (!charsAllowed(body, kind)) return null;
  let out = "";
  let i = 0;
  while (i < body.length) {
    const c = body[i]!;
    if (c === '"') return null; // an unescaped quote would have ended the literal
    if (c !== "\\") {
      out += c;
      i++;
      continue;
    }
    const e = body[i + 1];
    if (e === undefined) return null;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      if (kind === "c" && simple === "\0") return null;
      out += simple;
      i += 2;
    } else if (e === "\n") {
      i += 2;
      while (i < body.length && " \t\n\r".includes(body[i]!)) i++;
    } else if (e === "x") {
      const hex = body.slice(i + 2, i + 4);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return null;
      const value = parseInt(hex, 16);
      if (kind === "str" && value > 0x7f) return null;
      if (kind === "c" && value === 0) return null;
      out += String.fromCharCode(value);
      i += 4;
    } else if (e === "u") {
      if (kind === "byte") return null;
      const m = /^\{([0-9a-fA-F][0-9a-fA-F_]*)\}/.exec(body.slice(i + 2));
      if (m === null) return null;
      const digits = m[1]!.replace(/_/g, "");
      if (digits.length > 6) return null;
      const value = parseInt(digits, 16);
      if (value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return null;
      if (kind === "c" && value === 0) return null;
      out += String.fromCodePoint(value);
      i += 2 + m[0].length;
    } else {
      return null;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Format strings
// ---------------------------------------------------------------------------------------------

/** rustc parses format-string integers (indices, widths, precisions) as `u16`. */
const MAX_FORMAT_INTEGER = 0xffff;

const ID_START = /^[\p{XID_Start}_]$/u;
const ID_CONTINUE = /^\p{XID_Continue}$/u;
const WHITE_SPACE = /^\p{White_Space}$/u;
const isAlign = (c: string | undefined): boolean => c === "<" || c === "^" || c === ">";

/**
 * Splits a Rust `format!` string (the literal's decoded value) into text and argument pieces,
 * following rustc's `rustc_parse_format` grammar: `{{`/`}}` are literal braces, and an argument
 * is `{[position][:[[fill]align][sign]['#']['0'][width]['.' precision][type]][ws]}`.
 * Returns the pieces with adjacent text merged and no empty text, or null when rustc would
 * reject the string (an unmatched `{` or `}`, a malformed spec, `_` or a raw identifier as a
 * name, an integer over 65535). Never throws.
 *
 * Note: whether the type is a real formatting trait (`?`, `x`, `e`, …) and whether the
 *   arguments exist is checked by rustc after parsing, not here: this only accepts what parses.
 * Note: the fill can be any char, braces included: `{:}>5}` is one argument, as in rustc.
 */
export function parseFormatString(fmt: string): FormatPiece[] | null {
  const cs = Array.from(fmt); // by code point, as rustc walks chars
  const pieces: FormatPiece[] = [];
  let text = "";
  let i = 0;
  while (i < cs.length) {
    const c = cs[i]!;
    if ((c === "{" || c === "}") && cs[i + 1] === c) {
      text += c;
      i += 2;
    } else if (c === "}") {
      return null;
    } else if (c === "{") {
      const arg = parseArgument(cs, i + 1);
      if (arg === null) return null;
      if (text !== "") pieces.push({ text });
      text = "";
      pieces.push({ arg: cs.slice(i, arg.end).join(""), name: arg.name });
      i = arg.end;
    } else {
      text += c;
      i++;
    }
  }
  if (text !== "") pieces.push({ text });
  return pieces;
}

/**
 * Parses one argument whose `{` is just before `start`; returns its name and the index after
 * its `}`, or null when it is malformed.
 */
function parseArgument(cs: readonly string[], start: number): { name: string; end: number } | null {
  let j = start;

  /** Decimal digits at `j`: undefined when none, null when out of range. */
  const integer = (): number | undefined | null => {
    const from = j;
    while (j < cs.length && /^[0-9]$/.test(cs[j]!)) j++;
    if (j === from) return undefined;
    const value = Number(cs.slice(from, j).join(""));
    return value > MAX_FORMAT_INTEGER ? null : value;
  };
  /** An identifier at `j` ("" when none); `_` alone is reported by rustc even when unused. */
  const word = (): string | null => {
    if (cs[j] === undefined || !ID_START.test(cs[j]!)) return "";
    const from = j++;
    while (j < cs.length && ID_CONTINUE.test(cs[j]!)) j++;
    const w = cs.slice(from, j).join("");
    return w === "_" ? null : w;
  };
  /** A width or precision: `N`, `N$`, `name$`, or nothing. False when malformed. */
  const count = (): boolean => {
    const n = integer();
    if (n === null) return false;
    if (n !== undefined) {
      if (cs[j] === "$") j++;
      return true;
    }
    const save = j;
    const w = word();
    if (w === null) return false;
    if (w !== "" && cs[j] === "$") j++;
    else j = save;
    return true;
  };

  let name = "";
  const position = integer();
  if (position === null) return null;
  if (position !== undefined) {
    name = String(position);
  } else {
    const w = word();
    if (w === null) return null;
    name = w;
  }

  if (cs[j] === ":") {
    j++;
    if (cs[j] !== undefined && isAlign(cs[j + 1])) j++; // fill
    if (isAlign(cs[j])) j++;
    if (cs[j] === "+" || cs[j] === "-") j++;
    if (cs[j] === "#") j++;
    let haveWidth = false;
    if (cs[j] === "0") {
      j++;
      // `0$` is width-from-argument-0, not the zero flag (rustc resolves it this way too).
      if (cs[j] === "$") {
        j++;
        haveWidth = true;
      }
    }
    if (!haveWidth && !count()) return null;
    if (cs[j] === ".") {
      j++;
      if (cs[j] === "*") j++;
      else if (!count()) return null;
    }
    if (cs[j] === "x" || cs[j] === "X") {
      j++;
      if (cs[j] === "?") j++;
    } else if (cs[j] === "?") {
      j++;
    } else if (word() === null) {
      return null;
    }
  }

  while (j < cs.length && WHITE_SPACE.test(cs[j]!)) j++;
  if (cs[j] !== "}") return null;
  return { name, end: j + 1 };
}

// ---------------------------------------------------------------------------------------------
// Runtime parts and patterns
// ---------------------------------------------------------------------------------------------

/**
 * Turns format pieces into what the user sees: text becomes literal text, each argument a hole.
 * Returns parts with adjacent literals merged, empty literals dropped and adjacent holes
 * collapsed into one. Never mutates its input.
 */
export function runtimeParts(pieces: readonly FormatPiece[]): MessagePart[] {
  return normalizeParts(pieces.map((p): MessagePart => ("text" in p ? { lit: p.text } : { wild: true })));
}

/** Merges adjacent literals, drops empty ones and collapses adjacent holes. */
function normalizeParts(parts: readonly MessagePart[]): MessagePart[] {
  const out: MessagePart[] = [];
  for (const part of parts) {
    const last = out[out.length - 1];
    if ("lit" in part) {
      if (part.lit === "") continue;
      if (last !== undefined && "lit" in last) out[out.length - 1] = { lit: last.lit + part.lit };
      else out.push({ lit: part.lit });
    } else if ("gap" in part || "eol" in part) {
      out.push(part);
    } else if (last === undefined || !("wild" in last)) {
      out.push({ wild: true });
    }
  }
  return out;
}

/**
 * Escapes literal text for a JavaScript regex. Returns source that means the same with and
 * without the `u` flag and inside a `/…/` literal: only syntax characters and `/` get a
 * backslash; `\n \t \r` are written as such, other control characters as `\xHH`, and line or
 * paragraph separators and lone surrogates as `\uHHHH`. Everything else is left as is.
 */
function escapeLiteral(text: string): string {
  return text.replace(ESCAPED, (ch) => {
    const code = ch.charCodeAt(0);
    if (ch === "\n") return "\\n";
    if (ch === "\t") return "\\t";
    if (ch === "\r") return "\\r";
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return "\\x" + hex(code, 2);
    if (code === 0x2028 || code === 0x2029 || (code >= 0xd800 && code <= 0xdfff)) return "\\u" + hex(code, 4);
    return "\\" + ch;
  });
}

/**
 * What `escapeLiteral` writes otherwise: regex syntax, control characters, line and paragraph
 * separators and lone surrogates (a surrogate pair is one character, kept as it is).
 */
const ESCAPED = /[\\^$.|?*+()[\]{}/\x00-\x1f\x7f-\x9f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const hex = (code: number, width: number): string => code.toString(16).toUpperCase().padStart(width, "0");

/**
 * Composes the JavaScript regex source that matches a runtime message, to be used unanchored
 * and without flags (`new RegExp(p).test(userText)`); it means the same with the `u` flag.
 * A hole matches any text, newlines included. Returns `""` (matches anything) when there is no
 * literal text, the escaped literal alone when there is one literal, and otherwise
 * `^(?=([\s\S]*?L1))\1(?=([\s\S]*?L2))\2…`: each literal is found at its earliest occurrence
 * after the previous one and never reconsidered. Never mutates its input.
 *
 * Note: committing to the earliest occurrence is exact, because only holes and literals follow:
 *   whatever matches after a later occurrence also matches after the earliest one. A lookahead
 *   is atomic in JavaScript, and the backreference then consumes exactly what it captured, so a
 *   failed search never re-scans alternatives.
 * Note: the first literal is reached the same way from `^` instead of being left to the
 *   unanchored search: with `L1(?=…)` the engine retries from every later occurrence of L1
 *   and each retry re-scans to the end, which is quadratic (measured: 0.6 s on 100 KB, with
 *   two-char literals). The `^…` form fails once, in one linear pass. It means the same as
 *   an unanchored search, since the leading `[\s\S]*?` allows any text before.
 * Note: a leading and a trailing hole are dropped: the search is unanchored at both ends, and
 *   a trailing `[\s\S]*` would only make `test()` walk to the end of the input for nothing.
 * Note: an end part becomes `(?![^\r\n])` after the literal before it: a line break or the end
 *   of the text must follow, so `assertion failed: x > 0` does not match `… x > 0 && y`.
 * Note: the groups are numbered, so a pattern is meant to be used on its own, not spliced
 *   into a larger regex. The literal goes inside its lookahead, so no digit ever follows a
 *   backreference (`\1` then `0` would read as `\10`).
 */
export function composePattern(parts: readonly MessagePart[]): string {
  // Each run of text between holes becomes one unit: its literals escaped, its gaps `\s*`.
  const units: string[] = [];
  let unit = "";
  let hasText = false;
  const close = () => {
    if (hasText) units.push(unit);
    unit = "";
    hasText = false;
  };
  for (const part of parts) {
    if ("wild" in part) close();
    else if ("gap" in part) unit += unit.endsWith("\\s*") ? "" : "\\s*";
    else if ("eol" in part) unit += hasText ? "(?![^\\r\\n])" : "";
    else if (part.lit !== "") (unit += escapeLiteral(part.lit)), (hasText = true);
  }
  close();
  if (units.length === 0) return "";
  if (units.length === 1) return units[0]!;
  return "^" + units.map((u, k) => `(?=([\\s\\S]*?${u}))\\${k + 1}`).join("");
}

/**
 * Returns how specific a message is: the number of literal characters (code points) in its
 * parts, used to rank the records that match one text, most specific first.
 */
export function patternSpecificity(parts: readonly MessagePart[]): number {
  let n = 0;
  for (const p of parts) if ("lit" in p) n += Array.from(p.lit).length;
  return n;
}

/**
 * Whether a message's literal text carries something of its own: true when its literals hold
 * at least 3 ASCII letters in total. So `{}`, `{}: {}`, `{:?}` and `[{}] ({})` are not
 * distinctive, `bad {x}` is. Never looks at the holes.
 *
 * Note: only ASCII letters count, so a message written wholly in another script is not
 *   distinctive; punctuation and digits alone would match far too many texts to catalogue.
 */
export function isDistinctive(parts: readonly MessagePart[]): boolean {
  let letters = 0;
  for (const p of parts) {
    if (!("lit" in p)) continue;
    for (let i = 0; i < p.lit.length; i++) {
      // Note: `| 32` maps A–Z onto a–z and nothing else onto them.
      const c = p.lit.charCodeAt(i) | 32;
      if (c >= 97 && c <= 122 && ++letters >= 3) return true;
    }
  }
  return false;
}

/** The most characters the message part of a slug may have. */
const MAX_SLUG_TEXT = 60;

/**
 * Makes a record's slug: the message in kebab case (ASCII letters lowercased, ASCII letters
 * and digits kept, every other run of characters one `-`, no `-` at either end), cut after a
 * whole word to at most 60 characters (a first word longer than 60 is cut at 60), then `-` and
 * the first 6 characters of `id`. A message with no ASCII letter or digit gives those 6
 * characters alone. `Autodiff should not wrap an autodiff tensor.` with id `38c5ff15ce6533cc`
 * gives `autodiff-should-not-wrap-an-autodiff-tensor-38c5ff`.
 *
 * Note: only ASCII A–Z are lowercased, so the slug never depends on Unicode case tables.
 */
export function slugify(message: string, id: string): string {
  const words = message
    .replace(/[A-Z]/g, (c) => c.toLowerCase())
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
  let text = "";
  for (const w of words) {
    const next = text === "" ? w : `${text}-${w}`;
    if (next.length > MAX_SLUG_TEXT) {
      if (text === "") text = w.slice(0, MAX_SLUG_TEXT);
      break;
    }
    text = next;
  }
  const suffix = id.slice(0, 6);
  return text === "" ? suffix : `${text}-${suffix}`;
}
