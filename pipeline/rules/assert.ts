/**
 * `assert!(cond)` and `debug_assert!(cond)`: without a message the user sees
 * `assertion failed: <cond>` as rustc pretty-prints it; with one, only the formatted message.
 */
import { respaced, type Token } from "../tokens.js";
import type { MessagePart, SiteKind } from "../types.js";
import { formatted, skipped, type Rule, type RuntimeMessage } from "./rule.js";

const WORDS = "assertion failed: ";

function describe(args: readonly (readonly Token[])[]): RuntimeMessage {
  const cond = args[0];
  if (cond === undefined || cond.length === 0) return skipped("no-message");
  if (args.length > 1) return formatted(args.slice(1));
  const printed = respaced(cond);
  const message = `${WORDS}${printed.text}`;
  // Note: rustc re-spaces the condition (and adds a `,` after match arms); the pattern takes the
  //   tokens it prints and lets any white space stand between them.
  // Note: in a `macro_rules!` body a metavariable (`$cond`, `$x`) is replaced by the caller's
  //   tokens before rustc prints them, so it is a hole.
  const condition: MessagePart[] = [];
  const pieces = printed.pieces;
  pieces.forEach((piece, i) => {
    if (piece === "$" && /^[\p{L}_]/u.test(pieces[i + 1] ?? "")) return void condition.push({ wild: true });
    if (pieces[i - 1] === "$" && /^[\p{L}_]/u.test(piece)) return;
    if (i > 0 && !("wild" in (condition.at(-1) ?? {}))) condition.push({ gap: true });
    condition.push({ lit: piece });
  });
  const runtime: MessagePart[] = [{ lit: WORDS }, ...condition];
  // Note: the condition is the site's own text, so it needs 3 characters outside holes:
  //   `assert!(2 == d)` is catalogued, `assert!($cond)` or `assert!(ok)` is not.
  const own = condition.reduce((n, p) => n + ("lit" in p ? Array.from(p.lit).length : 0), 0);
  if (own < 3) return skipped("no-distinctive-text", message, { message, runtime });
  return { message, runtime, skip: null };
}

function rule(id: SiteKind): Rule {
  return { id, syntax: "macro", name: id.replace("-", "_"), check: "condition", debugOnly: id.startsWith("debug-"), words: [WORDS], describe };
}

export const assert = rule("assert");
export const debugAssert = rule("debug-assert");
