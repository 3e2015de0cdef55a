/**
 * `unreachable!`, `todo!`, `unimplemented!`: std puts its own words before the message
 * (`internal error: entered unreachable code: m`); without a message only those words remain,
 * which say nothing of the site, so such sites are counted, not catalogued.
 */
import { formatted, type Rule } from "./rule.js";
import type { SiteKind } from "../types.js";

function prefixed(id: SiteKind, words: string): Rule {
  return { id, syntax: "macro", name: id, check: null, debugOnly: false, describe: (args) => formatted(args, `${words}: `) };
}

export const unreachable = prefixed("unreachable", "internal error: entered unreachable code");
export const todo = prefixed("todo", "not yet implemented");
export const unimplemented = prefixed("unimplemented", "not implemented");
