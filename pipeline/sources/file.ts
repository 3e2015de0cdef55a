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
import { isConstantName } from "../analyze/rust.js";
import { type ConstantRead, type ConstantReads, constantPath, fileConstants, slotOf } from "./constants.js";
import { messageCalls } from "./calls.js";
import { ownerOf, type Signature, signatureOf } from "./headers.js";
import { wrappersOf } from "./wrappers.js";

/** A rule's answer for a site, with where its message comes from when a source gave it, and the constants of other files it reads. */
export type SourcedMessage = RuntimeMessage & { readonly source?: MessageSource; readonly constantReads?: ConstantReads };

/** What the sources note of a file, kept with its sites (`FileSites`). */
export type SourceFacts = Pick<FileSites, "calls" | "wrappers" | "constants" | "constantsRead">;

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
    // Note: a message with text of its own reads a name through only where the name fills a hole (`panic!("{MSG}: {e}")`).
    if ((described.runtime !== null && !described.runtime.some((p) => "wild" in p)) || described.skip === "no-message") return described;
    const macro = rule.syntax === "macro";
    const read = namesRead(args, macro);
    const names = [...read].filter((name) => this.bindings.mayBind(name));
    const constants = [...read].filter(isConstantName);
    const params = names.length > 0 || constants.length > 0 ? (this.signatureAround(at)?.params ?? []) : [];
    let replaced = args;
    const used: { name: string; value: string; at: number }[] = [];
    for (const name of names) {
      const bound = this.bindings.literalAt(name, at, params);
      const next = bound === null ? null : substituted(replaced, name, bound.value, macro);
      if (next === null) continue;
      replaced = next;
      used.push({ name, ...bound! });
    }
    const bound: SourcedMessage | null = used.length === 0 ? null : withBinding(rule.describe(replaced), used, this.lines.lineOf(used[0]!.at));
    const elsewhere = constantsRead(replaced, constants.filter((name) => !used.some((u) => u.name === name) && !params.includes(name)), macro, rule);
    const own = bound ?? described;
    return elsewhere === null ? own : { ...own, constantReads: elsewhere };
  }

  /**
   * The wrappers the file defines: functions around a site (`found[k]`, the site of the layout's
   * spot k, null when none) whose message reads one of their parameters; and the constants of
   * other files its sites read. (Its calls and string constants need no layout: `callsOf`, in
   * the token pass, token-pass.ts.)
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
    const read = new Set(found.flatMap((site) => (site?.constantReads?.reads ?? []).map((r) => r.path.slice(r.path.lastIndexOf(":") + 1))));
    return { ...(wrappers.length > 0 ? { wrappers } : {}), ...(read.size > 0 ? { constantsRead: [...read].sort() } : {}) };
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

/** What the sources note of a file's text alone (the token pass reads it for every file): its calls and its string constants. */
export function callsOf(text: string): SourceFacts {
  const calls = messageCalls(text);
  const constants = fileConstants(text);
  return { ...(calls.length > 0 ? { calls } : {}), ...(constants.length > 0 ? { constants } : {}) };
}

/** The rule's answer through the `let`s and `const`s of the file (`used`, the first at `line`), or null when they make no text. */
function withBinding(through: RuntimeMessage, used: readonly { name: string; value: string }[], line: number): SourcedMessage | null {
  if (through.runtime === null) return null;
  const first = used[0]!;
  return { ...through, message: readMessage(through.message, used.map((u) => u.value)), source: { via: "binding", name: first.name, line } };
}

/**
 * The message of a site whose arguments read `values` (literals, or constants' stand-ins): the
 * format string when it captures them all (`"{MSG}: nothing to read"` written with MSG's text),
 * else one value's text alone (`panic!("{}", MSG)`), else the format string as written.
 */
function readMessage(format: string | null, values: readonly string[]): string {
  if (format !== null && values.every((v) => format.includes(v))) return format;
  return values.length === 1 ? values[0]! : (format ?? "");
}

/**
 * The message `args` make with a stand-in for each constant of another file they read: a path
 * to one (`crate::util::error::NAME`) or a constant's name the file does not bind (`names`);
 * null when they read none, or the message has no text even so.
 */
function constantsRead(args: readonly (readonly Token[])[], names: readonly string[], macro: boolean, rule: Rule): ConstantReads | null {
  const reads: ConstantRead[] = [];
  let replaced = args.map((arg, k) => {
    const path = constantPath(arg);
    if (path === null) return arg;
    // Note: the path's tokens become one name, then a literal like any other name read.
    const name = `CONSTANT_PATH_${k}`;
    reads.push({ path: path.path, slot: name });
    return [...arg.slice(0, path.from), { kind: "ident", text: name, start: arg[path.from]!.start, end: arg.at(-1)!.end } as Token];
  });
  for (const name of names) reads.push({ path: name, slot: name });
  if (reads.length === 0) return null;
  const slotted = reads.map((r, k) => ({ ...r, slot: slotOf(k) }));
  for (const [k, r] of reads.entries()) replaced = substituted(replaced, r.slot, slotted[k]!.slot, macro) ?? replaced;
  const through = rule.describe(replaced);
  if (through.runtime === null) return null;
  return { reads: slotted, message: readMessage(through.message, slotted.map((r) => r.slot)), runtime: through.runtime };
}
