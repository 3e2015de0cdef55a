/**
 * `assert_eq!`/`assert_ne!` and their debug forms: std prints
 * ``assertion `left == right` failed: <message>`` then `  left: <Debug>` and ` right: <Debug>`
 * lines; without a message, ``assertion `left == right` failed`` and the same lines. That text
 * does not belong to the site: counted, not catalogued by its text.
 */
import type { Token } from "../tokens.js";
import type { MessagePart, SiteKind } from "../types.js";
import { formatted, frameWords, type Rule, type RuntimeMessage } from "./rule.js";

const VALUES: readonly MessagePart[] = [{ lit: "\n  left: " }, { wild: true }, { lit: "\n right: " }, { wild: true }];

function rule(id: SiteKind, op: "==" | "!="): Rule {
  const words = `assertion \`left ${op} right\` failed`;
  const frame = { prefix: `${words}: `, suffix: VALUES, bare: { message: words, runtime: [{ lit: words }, ...VALUES] } };
  const describe = (args: readonly (readonly Token[])[]): RuntimeMessage => formatted(args.slice(2), frame);
  return { id, syntax: "macro", name: id.replaceAll("-", "_"), check: "operands", debugOnly: id.startsWith("debug-"), words: frameWords(frame), describe };
}

export const assertEq = rule("assert-eq", "==");
export const assertNe = rule("assert-ne", "!=");
export const debugAssertEq = rule("debug-assert-eq", "==");
export const debugAssertNe = rule("debug-assert-ne", "!=");
