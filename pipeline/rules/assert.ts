/**
 * `assert!(cond)` and `debug_assert!(cond)`: without a message the user sees
 * `assertion failed: <cond>` as rustc pretty-prints it; with one, only the formatted message.
 */
import { respace, type Token } from "../tokens.js";
import type { MessagePart, SiteKind } from "../types.js";
import { formatted, skipped, type Rule, type RuntimeMessage } from "./rule.js";

function describe(args: readonly (readonly Token[])[]): RuntimeMessage {
  const cond = args[0];
  if (cond === undefined || cond.length === 0) return skipped("no-message");
  if (args.length > 1) return formatted(args.slice(1), "");
  const message = `assertion failed: ${respace(cond)}`;
  // Note: rustc re-spaces the condition; the pattern lets any white space stand between tokens.
  const runtime: MessagePart[] = [{ lit: "assertion failed: " }];
  cond.forEach((tok, i) => {
    if (i > 0) runtime.push({ gap: true });
    runtime.push({ lit: tok.text });
  });
  return { message, runtime, skip: null };
}

function rule(id: SiteKind): Rule {
  return { id, syntax: "macro", name: id.replace("-", "_"), describe };
}

export const assert = rule("assert");
export const debugAssert = rule("debug-assert");
