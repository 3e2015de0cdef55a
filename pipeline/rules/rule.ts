/**
 * What every panic-kind rule is: a stable id, the names it answers to, and one pure function
 * from the call's arguments to the message the user sees. One rule per file in this folder.
 */
import { isStrLiteral, type Token } from "../tokens.js";
import type { MessagePart, SiteKind, SiteSkip } from "../types.js";
import { decodeStringLiteral, isDistinctive, parseFormatString, runtimeParts } from "../message.js";

/** What a rule says of one site. */
export interface RuntimeMessage {
  /** The message as written in the source, or null. */
  readonly message: string | null;
  /** The runtime text as literal parts and holes; null when the site gets no record. */
  readonly runtime: readonly MessagePart[] | null;
  readonly skip: SiteSkip | null;
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
  /** The runtime message for the call's top-level arguments (split at commas). Pure. */
  readonly describe: (args: readonly (readonly Token[])[]) => RuntimeMessage;
}

/** A site without a record of its own, for the given reason. */
export function skipped(skip: SiteSkip, message: string | null = null): RuntimeMessage {
  return { message, runtime: null, skip };
}

/** A format string and its arguments, as `format_args!` takes them. */
export interface FormatCall {
  /** The decoded format string as written. */
  readonly format: string;
  /** Its literal text and holes. */
  readonly parts: readonly MessagePart[];
}

/**
 * Reads `args` as `format_args!` does: the first must be one string literal; the rest fill its
 * holes. Returns null when the first argument is not a string literal (a dynamic message).
 * Note: a `{}` whose argument is itself a string literal is inlined, as the user sees its text.
 */
export function readFormat(args: readonly (readonly Token[])[]): FormatCall | null {
  const first = args[0];
  if (first === undefined || first.length !== 1 || !isStrLiteral(first[0])) return null;
  const format = decodeStringLiteral(first[0]!.text);
  if (format === null) return null;
  const pieces = parseFormatString(format);
  if (pieces === null) return null;
  const positional = args.slice(1).filter((a) => !(a.length >= 2 && a[0]!.kind === "ident" && a[1]!.text === "="));
  let next = 0;
  const inlined = pieces.map((piece) => {
    if (!("arg" in piece)) return piece;
    const index = piece.name === "" ? next++ : /^\d+$/.test(piece.name) ? Number(piece.name) : -1;
    const arg = index >= 0 ? positional[index] : undefined;
    const plain = piece.arg === "{}" || /^\{\d*\}$/.test(piece.arg);
    if (plain && arg !== undefined && arg.length === 1 && isStrLiteral(arg[0])) {
      const value = decodeStringLiteral(arg[0]!.text);
      if (value !== null) return { text: value };
    }
    return piece;
  });
  return { format, parts: runtimeParts(inlined) };
}

/** The runtime message of a format call wrapped in fixed text, or the reason it has none. */
export function formatted(args: readonly (readonly Token[])[], prefix: string, suffix: readonly MessagePart[] = []): RuntimeMessage {
  if (args.length === 0) return skipped("no-message");
  const call = readFormat(args);
  if (call === null) return skipped("dynamic-message");
  if (!isDistinctive(call.parts)) return skipped("no-distinctive-text", call.format);
  const parts: MessagePart[] = prefix === "" ? [...call.parts] : [{ lit: prefix }, ...call.parts];
  return { message: call.format, runtime: [...parts, ...suffix], skip: null };
}
