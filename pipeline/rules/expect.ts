/**
 * `.expect(msg)` and `.expect_err(msg)`: the user sees `msg`, and for a `Result` also
 * `: <Debug of the other value>`. Patterns are unanchored, so `msg` matches both forms.
 * The message may be a literal, or `&format!(…)` / `format!(…).as_str()`, read as its format.
 */
import type { Token } from "../tokens.js";
import { formatted, skipped, type Rule, type RuntimeMessage } from "./rule.js";
import { isStrLiteral, splitArgs } from "../tokens.js";
import { decodeStringLiteral, isDistinctive } from "../message.js";

function describe(args: readonly (readonly Token[])[]): RuntimeMessage {
  const arg = args[0];
  if (arg === undefined || args.length !== 1) return skipped(arg === undefined ? "no-message" : "dynamic-message");
  if (arg.length === 1 && isStrLiteral(arg[0])) return literal(arg[0]!.text);
  const inner = formatArgs(arg);
  return inner === null ? skipped("dynamic-message") : formatted(inner, "");
}

/** `.expect` takes a `&str`, not a format string: its braces are text. */
function literal(source: string): RuntimeMessage {
  const message = decodeStringLiteral(source);
  if (message === null) return skipped("dynamic-message");
  const runtime = [{ lit: message }];
  return isDistinctive(runtime) ? { message, runtime, skip: null } : skipped("no-distinctive-text", message);
}

/** The arguments of a `format!` that makes up the whole expression (after `&`, `&*`). */
function formatArgs(tokens: readonly Token[]): Token[][] | null {
  let i = 0;
  while (tokens[i]?.text === "&" || tokens[i]?.text === "*") i++;
  if (tokens[i]?.text !== "format" || tokens[i + 1]?.text !== "!" || tokens[i + 2]?.kind !== "open") return null;
  let depth = 0;
  for (let j = i + 2; j < tokens.length; j++) {
    const t = tokens[j]!;
    if (t.kind === "open") depth++;
    else if (t.kind === "close" && --depth === 0) {
      const rest = tokens.slice(j + 1).map((x) => x.text).join("");
      if (rest !== "" && rest !== ".as_str()" && rest !== ".as_ref()" && rest !== ".to_string()") return null;
      return splitArgs(tokens.slice(i + 3, j));
    }
  }
  return null;
}

export const expect: Rule = { id: "expect", syntax: "method", name: "expect", check: "receiver", debugOnly: false, describe };
export const expectErr: Rule = { id: "expect-err", syntax: "method", name: "expect_err", check: "receiver", debugOnly: false, describe };
