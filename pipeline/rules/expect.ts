/**
 * `.expect(msg)` and `.expect_err(msg)`: the user sees `msg`, then, for a `Result`,
 * `: <Debug of the other value>`. `Option::expect` prints `msg` alone and the receiver's type is
 * not known here, so after `.expect` that suffix is optional; `Option` has no `expect_err`.
 * The message may be a literal, or `&format!(…)` / `format!(…).as_str()`, read as its format.
 */
import type { Token } from "../tokens.js";
import { formatted, skipped, written, type Frame, type Rule, type RuntimeMessage } from "./rule.js";
import { isStrLiteral, splitArgs } from "../tokens.js";
import { decodeStringLiteral, isDistinctive } from "../message.js";
import type { MessagePart } from "../types.js";

const DEBUG_SUFFIX: readonly MessagePart[] = [{ lit: ": " }, { wild: true }];

function rule(id: "expect" | "expect-err", suffix: readonly MessagePart[]): Rule {
  const frame: Frame = { prefix: "", suffix, bare: null };
  const describe = (args: readonly (readonly Token[])[]): RuntimeMessage => {
    const arg = args[0];
    if (arg === undefined) return skipped("no-message");
    // Note: a message held in a value (`.expect(msg)`) is shown as a hole named for what is written, as a format string's `{msg}` is: the name is not the text.
    const dynamic = () => skipped("dynamic-message", null, { message: `{${written(arg).replace(/^[&*\s]+/, "")}}`, runtime: [{ wild: true }, ...suffix] });
    if (args.length !== 1) return dynamic();
    if (arg.length === 1 && isStrLiteral(arg[0])) return literal(arg[0]!.text, suffix) ?? dynamic();
    const inner = formatArgs(arg);
    return inner === null ? dynamic() : formatted(inner, frame);
  };
  return { id, syntax: "method", name: id.replace("-", "_"), check: "receiver", debugOnly: false, describe };
}

/** `.expect` takes a `&str`, not a format string: its braces are text. Null when the literal does not decode. */
function literal(source: string, suffix: readonly MessagePart[]): RuntimeMessage | null {
  const message = decodeStringLiteral(source);
  if (message === null) return null;
  const runtime = [{ lit: message }, ...suffix];
  return isDistinctive([{ lit: message }]) ? { message, runtime, skip: null } : skipped("no-distinctive-text", message, { message, runtime });
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

export const expect = rule("expect", [{ optional: DEBUG_SUFFIX }]);
export const expectErr = rule("expect-err", DEBUG_SUFFIX);
