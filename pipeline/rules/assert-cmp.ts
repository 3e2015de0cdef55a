/**
 * `assert_eq!`/`assert_ne!` and their debug forms: std prints
 * ``assertion `left == right` failed: <message>`` then `  left: …` and ` right: …` lines.
 * Without a message nothing in that text belongs to the site: counted, not catalogued.
 */
import type { Token } from "../tokens.js";
import type { MessagePart, SiteKind } from "../types.js";
import { formatted, skipped, type Rule, type RuntimeMessage } from "./rule.js";

const TAIL: readonly MessagePart[] = [{ lit: "\n  left: " }, { wild: true }, { lit: "\n right: " }, { wild: true }];

function rule(id: SiteKind, op: "==" | "!="): Rule {
  const describe = (args: readonly (readonly Token[])[]): RuntimeMessage =>
    args.length <= 2 ? skipped("no-message") : formatted(args.slice(2), `assertion \`left ${op} right\` failed: `, TAIL);
  return { id, syntax: "macro", name: id.replaceAll("-", "_"), check: "operands", debugOnly: id.startsWith("debug-"), describe };
}

export const assertEq = rule("assert-eq", "==");
export const assertNe = rule("assert-ne", "!=");
export const debugAssertEq = rule("debug-assert-eq", "==");
export const debugAssertNe = rule("debug-assert-ne", "!=");
