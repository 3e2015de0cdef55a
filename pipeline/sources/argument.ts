/**
 * A message passed as an argument, as the sources read it: what a string literal or `format!`
 * argument makes the user see, a name in a panic's arguments replaced by a literal, and runtime
 * parts put together around another message. Pure.
 */
import { rustString } from "../analyze/rust.js";
import { decodeStringLiteral, parseFormatString } from "../message.js";
import { readFormat } from "../rules/rule.js";
import { isStrLiteral, splitArgs, type Token } from "../tokens.js";
import type { MessagePart } from "../types.js";

/** A message argument: the message as written and what the user sees of it. */
export interface ArgumentMessage {
  /** The literal's value, or the format string as written (placeholders verbatim). */
  readonly message: string;
  readonly parts: readonly MessagePart[];
}

/** Methods that turn a `&str` into a `String` (or leave it one) without changing its text. */
const KEEPS_TEXT = new Set(["to_string", "to_owned", "into", "as_str", "as_ref"]);

/**
 * The message an argument carries: a string literal (its text as it is, braces included), a
 * `format!(…)` (its format, placeholders as holes), either after `&` or `&*`, followed by
 * `.to_string()`, `.to_owned()`, `.into()`, `.as_str()` or `.as_ref()`, or inside
 * `String::from(…)`. Null for anything else (a name, a call, a concatenation).
 */
export function readMessageArgument(tokens: readonly Token[]): ArgumentMessage | null {
  let i = 0;
  while (tokens[i]?.text === "&" || tokens[i]?.text === "*") i++;
  let end = tokens.length;
  // Conversions after it: `.name()` pairs at the end.
  while (end - i >= 4 && tokens[end - 4]!.text === "." && KEEPS_TEXT.has(tokens[end - 3]!.text) && tokens[end - 2]!.text === "(" && tokens[end - 1]!.text === ")") end -= 4;
  const inner = tokens.slice(i, end);
  if (inner.length === 1 && isStrLiteral(inner[0])) {
    const message = decodeStringLiteral(inner[0]!.text);
    return message === null ? null : { message, parts: message === "" ? [] : [{ lit: message }] };
  }
  const head = inner.slice(0, 4).map((t) => t.text).join("");
  if ((head.startsWith("format!(") && inner[2]?.kind === "open") || head === "String::from(") {
    const open = head.startsWith("format") ? 2 : 3;
    if (inner.at(-1)?.text !== ")" || !closesAtEnd(inner, open)) return null;
    const args = splitArgs(inner.slice(open + 1, -1));
    if (open === 3) return args.length === 1 ? readMessageArgument(args[0]!) : null;
    const call = readFormat(args);
    return call === null ? null : { message: call.format, parts: call.parts };
  }
  return null;
}

/** True when the group opened at token `open` closes at the last token. */
function closesAtEnd(tokens: readonly Token[], open: number): boolean {
  let depth = 0;
  for (let k = open; k < tokens.length; k++) {
    const kind = tokens[k]!.kind;
    if (kind === "open") depth++;
    else if (kind === "close" && --depth === 0) return k === tokens.length - 1;
  }
  return false;
}

/**
 * Parts joined: adjacent literal texts made one, empty ones dropped, a hole next to a hole
 * dropped; other parts kept as they are. Never mutates its input.
 */
export function joined(parts: readonly MessagePart[]): MessagePart[] {
  const out: MessagePart[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if ("lit" in part) {
      if (part.lit === "") continue;
      if (last !== undefined && "lit" in last) out[out.length - 1] = { lit: last.lit + part.lit };
      else out.push(part);
    } else if (!("wild" in part && last !== undefined && "wild" in last)) out.push(part);
  }
  return out;
}

/**
 * A message's parts put where the slots of `pieces` are: `pieces[0]`, the message, `pieces[1]`,
 * …, the message, `pieces[n]` (n slots), joined.
 */
export function inSlots(pieces: readonly (readonly MessagePart[])[], message: readonly MessagePart[]): MessagePart[] {
  return joined(pieces.flatMap((piece, k) => (k === 0 ? [...piece] : [...message, ...piece])));
}

/**
 * `parts` cut at every `slot` in their literal texts: the pieces between the slots (one more
 * than there are slots), each joined. Other parts are kept where they stand.
 */
export function cutAtSlots(parts: readonly MessagePart[], slot: string): MessagePart[][] {
  const pieces: MessagePart[][] = [[]];
  for (const part of parts) {
    if (!("lit" in part)) {
      pieces.at(-1)!.push(part);
      continue;
    }
    part.lit.split(slot).forEach((text, k) => {
      if (k > 0) pieces.push([]);
      pieces.at(-1)!.push({ lit: text });
    });
  }
  return pieces.map(joined);
}

/**
 * The call's arguments with `name` read as a string literal of `value` wherever the message is
 * made of it: an argument that is the name (after `&` or `&*`, before `.as_str()` and the like,
 * or the value of a named argument `x = name`), and a plain `{name}` captured by a format string
 * (`macro`: any argument's leading string literal, as a panic macro's format string; otherwise,
 * as for `.expect`, only inside `format!(…)`). Null when the name is read in none of these ways.
 */
export function substituted(args: readonly (readonly Token[])[], name: string, value: string, macro: boolean): Token[][] | null {
  let changed = false;
  const literal = (at: Token): Token => ({ kind: "string", text: rustString(value), start: at.start, end: at.end });
  const out = args.map((arg) => {
    const tokens = [...arg];
    const bare = bareName(tokens);
    if (bare !== null && bare.name.text === name) {
      changed = true;
      return bare.named ? [tokens[0]!, tokens[1]!, literal(bare.name)] : [literal(bare.name)];
    }
    for (let k = 0; k < tokens.length; k++) {
      const t = tokens[k]!;
      if (!isFormatString(tokens, k, macro)) continue;
      const captured = withCapture(t, name, value);
      if (captured !== null) {
        tokens[k] = captured;
        changed = true;
      }
    }
    return tokens;
  });
  return changed ? out : null;
}

/**
 * The name an argument is, when it is one alone: after `&` or `&*`, before `.as_str()`,
 * `.as_ref()`, `.to_string()`, `.to_owned()` or `.into()`, or as a named argument's value
 * (`x = name`, `named`); null otherwise.
 */
function bareName(arg: readonly Token[]): { readonly name: Token; readonly named: boolean } | null {
  const named = arg.length >= 3 && arg[0]!.kind === "ident" && arg[1]!.text === "=";
  let i = named ? 2 : 0;
  while (arg[i]?.text === "&" || arg[i]?.text === "*") i++;
  const name = arg[i];
  if (name?.kind !== "ident") return null;
  for (i++; i < arg.length; i += 4) {
    if (arg[i]!.text !== "." || !KEEPS_TEXT.has(arg[i + 1]?.text ?? "") || arg[i + 2]?.text !== "(" || arg[i + 3]?.text !== ")") return null;
  }
  return { name, named };
}

/**
 * True when token `k` of an argument is a format string: a string literal that leads the
 * argument of a panic macro (`macro`), or that opens a `format!(…)` inside it.
 */
function isFormatString(arg: readonly Token[], k: number, macro: boolean): boolean {
  if (!isStrLiteral(arg[k])) return false;
  return macro ? k === 0 : arg[k - 1]?.text === "(" && arg[k - 2]?.text === "!" && arg[k - 3]?.text === "format";
}

/** The format-string token `t` with each plain `{name}` written as `value`'s text, or null when it has none. */
function withCapture(t: Token, name: string, value: string): Token | null {
  const format = decodeStringLiteral(t.text);
  const pieces = format === null ? null : parseFormatString(format);
  if (pieces === null || !pieces.some((p) => "arg" in p && p.arg === `{${name}}`)) return null;
  const escape = (s: string) => s.replace(/[{}]/g, "$&$&");
  const text = pieces.map((p) => ("text" in p ? escape(p.text) : p.arg === `{${name}}` ? escape(value) : p.arg)).join("");
  return { kind: "string", text: rustString(text), start: t.start, end: t.end };
}

/**
 * The names a call's arguments may read a message from, where `substituted` replaces them: an
 * argument that is a name alone (`bareName`), and the names captured by format strings (`{name}`).
 */
export function namesRead(args: readonly (readonly Token[])[], macro: boolean): Set<string> {
  const names = new Set<string>();
  for (const arg of args) {
    const bare = bareName(arg);
    if (bare !== null) names.add(bare.name.text);
    arg.forEach((t, k) => {
      if (!t.text.includes("{") || !isFormatString(arg, k, macro)) return;
      const format = decodeStringLiteral(t.text);
      for (const piece of (format === null ? null : parseFormatString(format)) ?? []) if ("arg" in piece && piece.arg === `{${piece.name}}` && piece.name !== "" && !/^\d/.test(piece.name)) names.add(piece.name);
    });
  }
  return names;
}
