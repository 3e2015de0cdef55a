/** The Rust fixtures, and the two ways the pipeline parses and lexes them (the addon's and the plain ones). */
import { readdirSync } from "node:fs";
import path from "node:path";
import { type LexerPass, nativeLexer } from "../../pipeline/layout.js";
import { plainLayout } from "../../pipeline/layout-plain.js";
import { type Addon, loadAddon } from "../../pipeline/native.js";
import { nativeParser, type TreeParser } from "../../pipeline/parse.js";
import { bindingParser } from "../../pipeline/parse-binding.js";
import { fixture } from "./git.js";

/** Every `.rs` file under fixtures/, as absolute paths, sorted. */
export function rustFixtures(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".rs")) out.push(full);
    }
  };
  walk(fixture("."));
  return out.sort();
}

/** The addon, whatever ERROR_CATALOG_NATIVE says, or why it does not load here. */
export const native: { readonly addon: Addon | null; readonly problem: string } = (() => {
  try {
    return { addon: loadAddon(), problem: "" };
  } catch (error) {
    return { addon: null, problem: `no addon loads here: ${(error as Error).message.split("\n")[0]}` };
  }
})();

/** For `it`'s options: skips a test that needs the addon where none loads, saying why. */
export const needsAddon = { skip: native.addon === null ? native.problem : false };

/** The parsers by name: the addon's (where it loads) and the binding's. */
export function parsers(): { name: string; parser: TreeParser }[] {
  return [...(native.addon === null ? [] : [{ name: "native", parser: nativeParser(native.addon) }]), { name: "plain", parser: bindingParser() }];
}

/** The lexer passes by name: the addon's (where it loads) and the plain one. */
export function lexers(): { name: string; pass: LexerPass }[] {
  return [...(native.addon === null ? [] : [{ name: "native", pass: nativeLexer(native.addon) }]), { name: "plain", pass: plainLayout }];
}
