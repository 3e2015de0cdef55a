/**
 * What every panic-kind rule is: a stable id, the names it answers to, and one pure function
 * from the call's arguments to the message the user sees. One rule per file in this folder.
 */
import { isStrLiteral, respaced, type Token } from "../tokens.js";
import type { MessagePart, PlaceText, SiteKind, SiteSkip } from "../types.js";

export type { PlaceText } from "../types.js";
import { decodeStringLiteral, isDistinctive, parseFormatString, runtimeParts } from "../message.js";

/** What a rule says of one site. */
export interface RuntimeMessage {
  /** The message as written in the source, or null. */
  readonly message: string | null;
  /** The whole runtime text as literal parts and holes; null when the site gets no record of its own text. */
  readonly runtime: readonly MessagePart[] | null;
  readonly skip: SiteSkip | null;
  /**
   * Set with `skip` when the site prints a text that is not its own (`explicit panic`, std's
   * words around a message of a few letters, `{}` filled at run time): that text, for a record
   * keyed by the place the site stands instead of by its text. Absent or null otherwise.
   */
  readonly place?: PlaceText | null;
}

export interface Rule {
  readonly id: SiteKind;
  /** `macro`: `name!(…)`; `method`: `.name(…)`. */
  readonly syntax: "macro" | "method";
  readonly name: string;
  /**
   * What a site's facts name as the check that fails when it panics: the asserted condition
   * (`assert!(cond)`), the two compared operands (`assert_eq!(left, right)`), the receiver whose
   * value is not the one expected (`x.expect(…)`); null when it panics unconditionally.
   */
  readonly check: "condition" | "operands" | "receiver" | null;
  /** True when it is compiled only with debug assertions on (`debug_assert!` and its kin). */
  readonly debugOnly: boolean;
  /** The text std prints around the site's own (`not yet implemented: `), never the site's; absent when none. */
  readonly words?: readonly string[];
  /** The runtime message for the call's top-level arguments (split at commas). Pure. */
  readonly describe: (args: readonly (readonly Token[])[]) => RuntimeMessage;
}

/** A site without a record of its own, for the given reason (and what it prints, when known). */
export function skipped(skip: SiteSkip, message: string | null = null, place: PlaceText | null = null): RuntimeMessage {
  return { message, runtime: null, skip, place };
}

/** A format string and its arguments, as `format_args!` takes them. */
export interface FormatCall {
  /** The decoded format string as written. */
  readonly format: string;
  /** Its literal text and holes. */
  readonly parts: readonly MessagePart[];
}

/** `{}`, `{0}` or `{name}`: an argument printed with Display and no width, precision or flags. */
const PLAIN_ARG = /^\{[\p{XID_Continue}]*\}$/u;

/**
 * Reads `args` as `format_args!` does: the first must be one string literal; the rest fill its
 * holes. Returns null when the first argument is not a string literal (a dynamic message).
 * Note: a `{}`, `{0}` or `{name}` whose argument is itself a string literal is inlined, as the
 *   user sees its text; with a width, precision or `?` it stays a hole (padding, quotes).
 */
export function readFormat(args: readonly (readonly Token[])[]): FormatCall | null {
  const first = args[0];
  if (first === undefined || first.length !== 1 || !isStrLiteral(first[0])) return null;
  const format = decodeStringLiteral(first[0]!.text);
  if (format === null) return null;
  const pieces = parseFormatString(format);
  if (pieces === null) return null;
  const isNamed = (a: readonly Token[]) => a.length >= 2 && a[0]!.kind === "ident" && a[1]!.text === "=";
  const positional = args.slice(1).filter((a) => !isNamed(a));
  const named = new Map(args.slice(1).filter(isNamed).map((a) => [a[0]!.text, a.slice(2)]));
  let next = 0;
  const inlined = pieces.map((piece) => {
    if (!("arg" in piece)) return piece;
    const index = piece.name === "" ? next++ : /^\d+$/.test(piece.name) ? Number(piece.name) : -1;
    const arg = index >= 0 ? positional[index] : named.get(piece.name);
    if (PLAIN_ARG.test(piece.arg) && arg !== undefined && arg.length === 1 && isStrLiteral(arg[0])) {
      const value = decodeStringLiteral(arg[0]!.text);
      if (value !== null) return { text: value };
    }
    return piece;
  });
  return { format, parts: runtimeParts(inlined) };
}

/** The fixed text std prints around a message, and what it prints when there is none. */
export interface Frame {
  /** Before the message (`not yet implemented: `). */
  readonly prefix: string;
  /** After it (the `left:`/`right:` lines of `assert_eq!`). */
  readonly suffix: readonly MessagePart[];
  /** The whole text without a message (`explicit panic`), or null when the call needs one. */
  readonly bare: PlaceText | null;
}

/** The text of a frame that is std's: its prefix, its text without a message and the literals after the message. */
export function frameWords(frame: Frame): string[] {
  const words = [frame.prefix, frame.bare?.message ?? "", ...frame.suffix.flatMap((p) => ("lit" in p ? [p.lit] : []))];
  return [...new Set(words.filter((w) => w !== ""))];
}

/** The frame of a message printed as it is. */
export const PLAIN: Frame = { prefix: "", suffix: [], bare: null };

/** The runtime message of a format call in its frame, or the reason it has none (and what it prints). */
export function formatted(args: readonly (readonly Token[])[], frame: Frame = PLAIN): RuntimeMessage {
  const framed = (parts: readonly MessagePart[]): MessagePart[] => [{ lit: frame.prefix }, ...parts, ...frame.suffix];
  if (args.length === 0) return skipped("no-message", null, frame.bare);
  const call = readFormat(args);
  // Note: a message that is a value (`panic!(msg)` in Rust 2018, `panic!($($msg)*)` in a macro's body) is shown as a hole named for what is written, as a format string's `{msg}` is: its name is not its text.
  if (call === null) return skipped("dynamic-message", null, { message: `{${written(args[0]!).replace(/^[&*\s]+/, "")}}`, runtime: framed([{ wild: true }]) });
  if (!isDistinctive(call.parts)) return skipped("no-distinctive-text", call.format, { message: call.format, runtime: framed(call.parts) });
  return { message: call.format, runtime: framed(call.parts), skip: null };
}

/** An argument as rustc would print it: the message of a site whose text is only known at run time. */
export function written(arg: readonly Token[]): string {
  return respaced(arg).text;
}
