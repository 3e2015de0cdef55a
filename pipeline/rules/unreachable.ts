/**
 * `unreachable!`, `todo!`, `unimplemented!`: std puts its own words before the message
 * (`internal error: entered unreachable code: m`); without a message only those words remain,
 * which say nothing of the site, so such sites are counted, not catalogued by their text.
 */
import { formatted, frameWords, type Rule } from "./rule.js";
import type { SiteKind } from "../types.js";

function prefixed(id: SiteKind, words: string): Rule {
  const frame = { prefix: `${words}: `, suffix: [], bare: { message: words, runtime: [{ lit: words }] } };
  return { id, syntax: "macro", name: id, check: null, debugOnly: false, words: frameWords(frame), describe: (args) => formatted(args, frame) };
}

export const unreachable = prefixed("unreachable", "internal error: entered unreachable code");
export const todo = prefixed("todo", "not yet implemented");
export const unimplemented = prefixed("unimplemented", "not implemented");
