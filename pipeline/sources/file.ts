/**
 * What the message sources read of one file while it is extracted: the `let`/`const` literals
 * its panics read (the site's message, at the site), the wrappers it defines and the calls it
 * makes with a message argument (kept with the file's sites, for the whole tree's pass of
 * index.ts). Pure: one file's text and layout in, plain data out.
 */
import { itemAt, type Item, type Layout } from "../layout.js";
import type { Rule, RuntimeMessage } from "../rules/rule.js";
import type { Token } from "../tokens.js";
import type { Lines } from "../tree-view.js";
import type { FileSites, MessageSource, Site, WrapperFact } from "../types.js";
import { namesRead, substituted } from "./argument.js";
import { FileBindings } from "./bindings.js";
import { ownerOf, type Signature, signatureOf } from "./headers.js";
import { wrappersOf } from "./wrappers.js";

/** A rule's answer for a site, with where its message comes from when a source gave it. */
export type SourcedMessage = RuntimeMessage & { readonly source?: MessageSource };

/** What the sources note of a file's layout, kept with its sites (`FileSites`). */
export type SourceFacts = Pick<FileSites, "wrappers">;

/** The sources' reading of one file being extracted (`startFile` makes one per file). */
export class FileSources {
  private readonly bindings: FileBindings;
  /** The rule and arguments of each site read, by the offset of its name. */
  private readonly read = new Map<number, { readonly rule: Rule; readonly args: readonly (readonly Token[])[] }>();
  private readonly signatures = new Map<Item, Signature | null>();

  /** `catalogued`: whether test code is catalogued (`includeTestCode`): else only library code's wrappers are noted. */
  constructor(
    private readonly text: string,
    private readonly layout: Layout,
    private readonly lines: Lines,
    private readonly catalogued: (context: Site["context"]) => boolean,
  ) {
    this.bindings = new FileBindings(text, layout);
  }

  /**
   * The runtime message of the site whose name is at `at`: the rule's, or, when the rule finds
   * no text of the site's own (`.expect(msg)`, `panic!("{}", MSG)`, `panic!("{MSG}")`), the one
   * its arguments make with the literals of the `let`s and `const`s they name (`bindings.ts`).
   */
  describe(rule: Rule, args: readonly (readonly Token[])[], at: number): SourcedMessage {
    this.read.set(at, { rule, args });
    const described = rule.describe(args);
    if (described.runtime !== null || described.skip === "no-message") return described;
    const macro = rule.syntax === "macro";
    const names = [...namesRead(args, macro)].filter((name) => this.bindings.mayBind(name));
    if (names.length === 0) return described;
    const params = this.signatureAround(at)?.params ?? [];
    let replaced = args;
    const used: { name: string; value: string; at: number }[] = [];
    for (const name of names) {
      const bound = this.bindings.literalAt(name, at, params);
      const next = bound === null ? null : substituted(replaced, name, bound.value, macro);
      if (next === null) continue;
      replaced = next;
      used.push({ name, ...bound! });
    }
    if (used.length === 0) return described;
    const through = rule.describe(replaced);
    if (through.runtime === null) return described;
    const first = used[0]!;
    return { ...through, message: used.length === 1 ? first.value : through.message, source: { via: "binding", name: first.name, line: this.lines.lineOf(first.at) } };
  }

  /**
   * The wrappers the file defines: functions around a site (`found[k]`, the site of the layout's
   * spot k, null when none) whose message reads one of their parameters. (The calls it makes with
   * a message argument need no layout: the token pass reads them, token-pass.ts.)
   */
  facts(found: readonly (Site | null)[]): SourceFacts {
    const wrappers: WrapperFact[] = [];
    this.layout.spots.forEach((spot, k) => {
      const item = spot.item;
      if (spot.functions.length !== 1 || item?.keyword !== "fn") return;
      const site = found[k];
      if (site == null || site.skip === "no-message" || !this.catalogued(site.context)) return;
      if (site.runtime !== null && !site.runtime.some((p) => "wild" in p)) return;
      const read = this.read.get(spot.at);
      if (read === undefined) return;
      // Note: most functions take no text: their header, read once, spares reading the site's arguments.
      const signature = this.signatureOf(item);
      if (signature === null || signature.name !== spot.functions[0] || !signature.texts.includes(true)) return;
      const names = namesRead(read.args, read.rule.syntax === "macro");
      if (names.size === 0) return;
      const owner = item.parent === null ? null : ownerOf(this.text, item.parent);
      wrappers.push(...wrappersOf(signature, owner, read.rule, read.args, site.line, names));
    });
    return wrappers.length > 0 ? { wrappers } : {};
  }

  /** The signature of the function item around offset `at`, or null. */
  private signatureAround(at: number): Signature | null {
    const item = itemAt(this.layout.items, at);
    return item?.keyword === "fn" ? this.signatureOf(item) : null;
  }

  private signatureOf(item: Item): Signature | null {
    if (!this.signatures.has(item)) this.signatures.set(item, signatureOf(this.text, item));
    return this.signatures.get(item)!;
  }
}
