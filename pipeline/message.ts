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
 * Returns normalized parts (`normalizeParts`). Never mutates its input.
 */
export function runtimeParts(pieces: readonly FormatPiece[]): MessagePart[] {
  return normalizeParts(pieces.map((p): MessagePart => ("text" in p ? { lit: p.text } : { wild: true })));
}

/**
 * The one spelling of a runtime message's parts, which the pattern and the record id are made
 * from: adjacent literals merged, empty literals dropped, adjacent holes collapsed, a gap beside a
 * hole or another gap dropped, an optional group after a hole (which already allows it) dropped.
 * An optional group that is not last, or holds more than literal text, gaps and a final hole,
 * becomes a hole: a hole matches whatever it would print, and keeps the pattern linear.
 * Never mutates its input.
 */
export function normalizeParts(parts: readonly MessagePart[]): MessagePart[] {
  const kept = parts.filter((p) => !("lit" in p) || p.lit !== "");
  const out: MessagePart[] = [];
  const hole = () => {
    if (out.at(-1) !== undefined && "gap" in out.at(-1)!) out.pop();
    if (out.at(-1) === undefined || !("wild" in out.at(-1)!)) out.push({ wild: true });
  };
  kept.forEach((part, i) => {
    const last = out.at(-1);
    if ("lit" in part) {
      if (last !== undefined && "lit" in last) out[out.length - 1] = { lit: last.lit + part.lit };
      else out.push({ lit: part.lit });
    } else if ("wild" in part) {
      hole();
    } else if ("gap" in part) {
      if (last === undefined || !("wild" in last || "gap" in last)) out.push({ gap: true });
    } else {
      const inner = normalizeParts(part.optional);
      if (inner.length === 0) return;
      if (i !== kept.length - 1 || !isSimpleTail(inner)) return hole();
      if (last === undefined || !("wild" in last)) out.push({ optional: inner });
    }
  });
  return out;
}

/** Normalized parts an optional group may hold: literal text and gaps, then at most one hole. */
function isSimpleTail(parts: readonly MessagePart[]): boolean {
  return parts.length > 0 && "lit" in parts[0]! && parts.every((p, i) => "lit" in p || "gap" in p || ("wild" in p && i === parts.length - 1));
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

/** A hole: any text, newlines included; lazy where the text after it must end the message. */
const HOLE = "[\\s\\S]*";
const LAZY_HOLE = "[\\s\\S]*?";
/** A gap: any white space, or none. */
const GAP = "\\s*";

/** Literal text and gaps (and a final hole), as regex source. */
function runSource(parts: readonly MessagePart[]): string {
  return parts.map((p) => ("lit" in p ? escapeLiteral(p.lit) : "gap" in p ? GAP : HOLE)).join("");
}

/**
 * Composes the JavaScript regex source that matches the whole of a runtime message, to be used
 * anchored at both ends and without flags: `new RegExp('^(?:' + p + ')$').test(message)`; it
 * means the same with the `u` flag. A hole matches any text, newlines included; a gap any white
 * space. Parts without holes give the escaped text alone (`Tensor rank must be at least one\.`).
 * Otherwise, with `L1 … Ln` the runs of text between holes: a run that starts the message is
 * written as is, every run after a hole but the last as `(?=([\s\S]*?Lk))\k`, found at its
 * earliest occurrence and never reconsidered; the last run, when it ends the message, as
 * `[\s\S]*?Ln` before the anchor (and the optional group, `(?:: [\s\S]*)?`, after it); a final
 * hole as `[\s\S]*`. No literal at all gives `[\s\S]*`, and no part at all `""` (the empty message).
 * Never mutates its input.
 *
 * Note: committing to the earliest occurrence is exact, because a hole follows each such run:
 *   whatever matches after a later occurrence also matches after the earliest one. A lookahead
 *   is atomic in JavaScript, and the backreference then consumes exactly what it captured, so a
 *   failed search never re-scans alternatives. Only the last run is searched with backtracking,
 *   once, from where the run before it ended: its candidates are tried in one pass, each
 *   checked against the end (or the optional group, which either follows or not): time grows
 *   with the text times the run's length, never with a power of the text.
 * Note: a first run with gaps (an `assert!` condition) is made atomic too, `(?=(L1))\1`, so that
 *   a failure later never tries its white space another way.
 * Note: without the anchors a pattern with holes would be retried from every position (slow on
 *   a long text that fails); it is meant to be anchored, as `matchPanic` uses it.
 * Note: the groups are numbered, so a pattern is meant to be used on its own (the `(?:…)` of the
 *   anchoring adds none). The literal goes inside its lookahead, so no digit ever follows a
 *   backreference (`\1` then `0` would read as `\10`).
 */
export function composePattern(parts: readonly MessagePart[]): string {
  const norm = normalizeParts(parts);
  const end = norm.at(-1);
  const tail = end !== undefined && "optional" in end ? `(?:${runSource(end.optional)})?` : "";
  const body = tail === "" ? norm : norm.slice(0, -1);
  const runs: { source: string; gapped: boolean }[] = [];
  let leading = false;
  let trailing = false;
  let run: { source: string; gapped: boolean } | null = null;
  for (const part of body) {
    if ("wild" in part) {
      if (run !== null) runs.push(run);
      else if (runs.length === 0) leading = true;
      run = null;
      trailing = true;
      continue;
    }
    trailing = false;
    run ??= { source: "", gapped: false };
    run.source += runSource([part]);
    if ("gap" in part) run.gapped = true;
  }
  if (run !== null) runs.push(run);
  // Note: an empty message (`panic!("")`) is matched by an empty group: a pattern is never empty.
  if (runs.length === 0) return (leading ? HOLE : "") + tail || EMPTY;
  let out = "";
  let group = 0;
  runs.forEach((r, k) => {
    const afterHole = k > 0 || leading;
    const last = k === runs.length - 1 && !trailing;
    if (!afterHole) out += last || !r.gapped ? r.source : `(?=(${r.source}))\\${++group}`;
    else if (last) out += LAZY_HOLE + r.source;
    else out += `(?=(${LAZY_HOLE}${r.source}))\\${++group}`;
  });
  return out + (trailing ? HOLE : "") + tail;
}

/** The pattern of an empty message. */
const EMPTY = "(?:)";

/** The regex that tests a whole message against a record's pattern (`composePattern`). */
export function anchored(pattern: string, flags = ""): RegExp {
  return new RegExp(`^(?:${pattern})$`, flags);
}

/**
 * Reads back the parts of a pattern that `composePattern` wrote: literal text, holes, gaps and a
 * final optional group, normalized. Returns null for any other regex (an older dataset's
 * pattern, a hand-written one). Pure; never throws.
 */
export function patternParts(pattern: string): MessagePart[] | null {
  if (pattern === EMPTY) return [];
  const top: MessagePart[] = [];
  let parts = top;
  let inRun = false;
  let i = 0;
  const at = (s: string) => pattern.startsWith(s, i);
  while (i < pattern.length) {
    if (at("(?=(" + LAZY_HOLE) && !inRun && parts === top) {
      parts.push({ wild: true });
      (inRun = true), (i += 4 + LAZY_HOLE.length);
    } else if (at("(?=(") && !inRun && parts === top) {
      (inRun = true), (i += 4);
    } else if (inRun && /^\)\)\\[1-9][0-9]*/.test(pattern.slice(i, i + 12))) {
      inRun = false;
      i += /^\)\)\\[0-9]+/.exec(pattern.slice(i, i + 12))![0].length;
    } else if (at(LAZY_HOLE)) {
      parts.push({ wild: true }), (i += LAZY_HOLE.length);
    } else if (at(HOLE)) {
      parts.push({ wild: true }), (i += HOLE.length);
    } else if (at(GAP)) {
      parts.push({ gap: true }), (i += GAP.length);
    } else if (at("(?:") && !inRun && parts === top) {
      (parts = []), (i += 3);
    } else if (at(")?") && parts !== top && i + 2 === pattern.length) {
      top.push({ optional: parts });
      (parts = top), (i += 2);
    } else {
      const lit = literalAt(pattern, i);
      if (lit === null) return null;
      parts.push({ lit: lit.text });
      i = lit.end;
    }
  }
  return inRun || parts !== top ? null : normalizeParts(top);
}

/** The literal character (as `escapeLiteral` writes it) at `i`, or null when it is regex syntax. */
function literalAt(pattern: string, i: number): { text: string; end: number } | null {
  const c = pattern[i]!;
  if (c !== "\\") return "^$.|?*+()[]{}/".includes(c) ? null : { text: c, end: i + 1 };
  const e = pattern[i + 1] ?? "";
  if (e !== "" && "\\^$.|?*+()[]{}/".includes(e)) return { text: e, end: i + 2 };
  const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r" };
  if (simple[e] !== undefined) return { text: simple[e]!, end: i + 2 };
  const code = e === "x" ? /^[0-9A-F]{2}$/.exec(pattern.slice(i + 2, i + 4)) : e === "u" ? /^[0-9A-F]{4}$/.exec(pattern.slice(i + 2, i + 6)) : null;
  return code === null ? null : { text: String.fromCharCode(parseInt(code[0], 16)), end: i + 2 + code[0].length };
}

/**
 * What identifies a runtime message, however a regex spells it: its normalized parts as JSON,
 * literal text as a string, a hole as `0`, a gap as `1`, an optional group as an array of its
 * own. Two lists of parts give the same key exactly when they normalize to the same parts, and
 * so the same pattern. `["internal error: entered unreachable code: State ",0," cannot follow"]`.
 */
export function messageKey(parts: readonly MessagePart[]): string {
  const known = keys.get(parts);
  if (known !== undefined) return known;
  const encode = (ps: readonly MessagePart[]): unknown[] => ps.map((p) => ("lit" in p ? p.lit : "wild" in p ? 0 : "gap" in p ? 1 : encode(p.optional)));
  const key = JSON.stringify(encode(normalizeParts(parts)));
  keys.set(parts, key);
  return key;
}

/**
 * The keys of the parts lists asked for so far.
 * Note: a site's parts are asked for its key by every stage that groups or counts it (several
 *   times a site); parts are never mutated, so the list itself keys its answer.
 */
const keys = new WeakMap<readonly MessagePart[], string>();

/**
 * Returns how specific a message is: the number of literal characters (code points) in its
 * parts, an optional group's included, used to rank the records that match one text, most
 * specific first.
 */
export function patternSpecificity(parts: readonly MessagePart[]): number {
  let n = 0;
  for (const p of parts) n += "lit" in p ? Array.from(p.lit).length : "optional" in p ? patternSpecificity(p.optional) : 0;
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

/**
 * The text of runtime parts as a reader sees a format string: literals as they are, each hole
 * `{}`, each gap `…`; an optional tail (`expect`'s `: <Debug>`) left out. So a wrapper's call
 * `check(x, "mask")` whose wrapper panics with `"attention: {name} must be 4D, got {}D"` reads
 * `attention: mask must be 4D, got {}D`.
 */
export function shownText(parts: readonly MessagePart[]): string {
  return parts.map((p) => ("lit" in p ? p.lit : "wild" in p ? "{}" : "gap" in p ? "…" : "")).join("");
}

/**
 * A format string's text with each argument as `…` (`unsupported dtype {:?}` → `unsupported
 * dtype …`), `{{`/`}}` as the braces they print: a fixed text that says the message without its
 * values. A string rustc would not parse is given back as it is.
 */
export function withoutValues(fmt: string): string {
  const pieces = parseFormatString(fmt);
  return pieces === null ? fmt : pieces.map((p) => ("text" in p ? p.text : "…")).join("");
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
