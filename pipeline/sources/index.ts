/**
 * The message sources: where the text a panic prints is written when the panic's own arguments
 * do not hold it. Each source yields sites (types.ts `Site`) with their runtime parts, so build
 * and match treat them as any other:
 *
 * | source   | site                             | kind            | read                                     |
 * |----------|----------------------------------|-----------------|------------------------------------------|
 * | binding  | the panic (`x.expect(msg)`)      | the panic's own | at extraction, in its file (bindings.ts) |
 * | constant | the panic (`panic!("{}", a::M)`) | the panic's own | over the tree, each run (constants.ts)   |
 * | wrapper  | a wrapper's call, at its literal | `wrapper-call`  | over the tree, each run (wrappers.ts)    |
 * | declared | a declared call, at its message  | `declared-call` | over the tree, each run (declared.ts)    |
 *
 * Note: the wrappers of a tree and the calls each file makes are noted at extraction and kept in
 *   the extraction cache with the file (file.ts); the pass over the tree (`MessageSources`) is
 *   made again each run from them, so a file is read for it only when it calls a wrapper or a
 *   declared call: then the calls' parentheses are lexed, and the items holding the first sites
 *   of their messages parsed for their facts.
 */
import { callersOf, forgetIndexedWords, siteFacts } from "../analyze/facts.js";
import { contextOfPath, isTestAttribute, type Rule } from "../rust/index.js";
import { lexedContext, rangesOf } from "../extract.js";
import { type Layout, layoutOf, type Spot } from "../layout.js";
import { composePattern, isDistinctive, shownText } from "../message.js";
import { type ParseTree, parseTree } from "../parse.js";
import { skipped } from "../rules/rule.js";
import type { Envelope, MessageSourceConfig } from "../schema-types.generated.js";
import { codeAt, isAsciiWord, type Token, tokenize } from "../tokens.js";
import { Lines, TreeView } from "../tree-view.js";
import type { FileSites, MessagePart, MessageSource, Site, SiteFacts, SiteKind } from "../types.js";
import { type ArgumentMessage, inSlots, joined, readMessageArgument } from "./argument.js";
import { type Call, callAt, enclosingCall } from "./calls.js";
import { ConstantIndex, filledIn } from "./constants.js";
import { declares, declaredSources, type DeclaredSource } from "./declared.js";
import { ownerOf } from "./headers.js";
import { WrapperIndex } from "./wrappers.js";

export { FileSources, callsOf, type SourceFacts, type SourcedMessage } from "./file.js";

/** The sources that read the whole tree: its wrappers, its constants and the config's declared calls. */
export class MessageSources {
  private readonly wrappers: WrapperIndex;
  private readonly declared: readonly DeclaredSource[];
  private readonly constants: ConstantIndex;
  /** The names of the constants the tree's sites read from other files (the last segment of each path). */
  private readonly constantsRead = new Set<string>();

  /** `files`: every file of the tree, with the wrappers and constants extraction noted in it, and the constants its sites read (no sites needed). */
  constructor(files: readonly Pick<FileSites, "path" | "wrappers" | "constants" | "constantsRead">[], configs: readonly MessageSourceConfig[] = []) {
    this.wrappers = new WrapperIndex(files);
    this.declared = declaredSources(configs);
    this.constants = new ConstantIndex(files);
    for (const f of files) for (const name of f.constantsRead ?? []) this.constantsRead.add(name);
  }

  /** True when a call of this key (`messageCalls`) may be a source's. */
  wants(key: string): boolean {
    return this.wrappers.wants(key) || this.declared.some((d) => declares(d.config.call, key));
  }

  /**
   * True when the sites of the tree may change with this file beyond its own sites: it defines a
   * wrapper, or calls a wrapper or a declared call. A file that does neither adds no source's site
   * and changes none elsewhere.
   */
  touches(file: Pick<FileSites, "calls" | "wrappers" | "constants">): boolean {
    return (file.wrappers?.length ?? 0) > 0 || (file.calls ?? []).some((key) => this.wants(key)) || (file.constants ?? []).some(([name]) => this.constantsRead.has(name));
  }

  /**
   * `files` with the sources' sites added to their own (in source order), the first of each
   * runtime message in its file with its facts (`known` gives them when a previous version
   * holds them: then the file is not parsed); `readTexts` reads the texts of the files that call
   * a source.
   */
  async withSites(given: readonly FileSites[], readTexts: (paths: readonly string[]) => Promise<readonly string[]>, known: KnownFacts = () => undefined, parse: ParseTree = parseTree): Promise<FileSites[]> {
    const files = this.constantsRead.size === 0 ? given : given.map((f) => this.withConstants(f));
    const callers = files.filter((f) => (f.calls ?? []).some((key) => this.wants(key)));
    if (callers.length === 0) return [...files];
    const texts = await readTexts(callers.map((f) => f.path));
    // Note: the files' parses run on the thread pool together, while the calls of the next files are read.
    const reads = callers.map((f, i) => this.read(f.path, texts[i]!, f.calls!));
    const found = new Map((await Promise.all(reads.map((read) => withFacts(read, known, parse)))).map((sites, i) => [callers[i]!.path, sites]));
    return files.map((f) => {
      const more = found.get(f.path);
      return more === undefined || more.length === 0 ? f : { ...f, sites: [...f.sites, ...more].sort((a, b) => a.line - b.line || a.column - b.column) };
    });
  }

  /**
   * `file` with each site that reads another file's constant given the message the constant
   * makes, when the tree tells one literal (`ConstantIndex`); other sites as they are. The
   * stand-ins are dropped either way.
   */
  private withConstants(file: FileSites): FileSites {
    if (!file.sites.some((s) => s.constantReads !== undefined)) return file;
    const uses = file.symbols?.uses ?? [];
    const sites = file.sites.map((site): Site => {
      if (site.constantReads === undefined) return site;
      const { constantReads: pending, ...rest } = site;
      const found = pending.reads.map((r) => this.constants.resolve(r.path, file.path, uses));
      if (found.some((f) => f === null)) return rest;
      const filled = filledIn(pending, found.map((f) => f!.value));
      if (filled === null) return rest;
      const first = found[0]!;
      return { ...rest, message: filled.message, runtime: filled.runtime, skip: null, place: null, source: { via: "constant", name: pending.reads[0]!.path, file: first.path, line: first.line } };
    });
    return { ...file, sites };
  }

  /**
   * The sources' sites in the file at `path` whose text is `text`, in source order; `keys`: the
   * calls extraction noted in it (`messageCalls`), whose names are looked for.
   * Note: the names are found with `indexOf` and laid out by the lexer pass (is it code, in which
   *   item); only each call's parentheses are read with the lexer, not the whole file.
   */
  sitesIn(path: string, text: string, keys: readonly string[]): Site[] {
    return [...this.read(path, text, keys).sites];
  }

  /** The sites `sitesIn` gives, with what their facts are read from: the text, the layout, and each site's callee. */
  private read(path: string, text: string, keys: readonly string[]): FileRead {
    const names = new Set(keys.filter((key) => this.wants(key)).map((key) => key.slice(Math.max(key.lastIndexOf(":"), key.lastIndexOf(".")) + 1)));
    const hits: { at: number; name: string; macro: boolean }[] = [];
    for (const name of names) {
      for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + name.length)) {
        if (!isAsciiWord(codeAt(text, i - 1)) && !isAsciiWord(codeAt(text, i + name.length))) hits.push({ at: i, name, macro: false });
      }
    }
    if (hits.length === 0) return { text, layout: null, sites: [], callees: [] };
    hits.sort((a, b) => a.at - b.at);
    const layout = layoutOf(text, hits, isTestAttribute);
    const lines = new Lines(text);
    const pathContext = contextOfPath(path);
    const sites: Site[] = [];
    const callees: Spot[] = [];
    const add = (site: Site | null, spot: Spot) => {
      if (site === null) return;
      sites.push(site);
      callees.push(spot);
    };
    for (const spot of layout.spots) {
      const call = spot.code && !spot.excluded ? callAt(text, spot.at, spot.name) : null;
      if (call === null || !this.wants(call.key)) continue;
      const at = { path, lines, spot, context: lexedContext(pathContext, layout, spot) };
      for (const d of this.declared) {
        if (!declares(d.config.call, call.key)) continue;
        add(callSite(at, call.args[d.config.argument ?? 0], "declared-call", (m) => joined([...d.before, ...m.parts, ...d.after]), { via: "declared", name: d.config.call, ...declaredFacts(text, call, spot, d.config) }), spot);
      }
      for (const fact of this.wrappers.resolve(call.key, call.args.length, path, text)) {
        add(callSite(at, call.args[fact.param], "wrapper-call", (m) => inSlots(fact.pieces, m.parts), { via: "wrapper", name: fact.name }), spot);
      }
    }
    return { text, layout, sites, callees };
  }
}

/** One file's sources' sites, and what their facts are read from. */
interface FileRead {
  readonly text: string;
  readonly layout: Layout | null;
  readonly sites: readonly Site[];
  /** The layout's view of each site's callee, by index. */
  readonly callees: readonly Spot[];
}

/** The facts of a source's site that a previous version holds, or undefined. */
export type KnownFacts = (site: Site) => SiteFacts | undefined;

/**
 * The facts of the sources' sites that `previous` (envelopes by id) holds as its records' own:
 * those of a record whose first occurrence is such a site (same place, kind and message) in a
 * file whose blob did not change (`unchanged`); the same text gives the same facts. Pure.
 */
export function previousFacts(previous: ReadonlyMap<string, Envelope>, unchanged: ReadonlySet<string>): KnownFacts {
  const byPlace = new Map<string, SiteFacts>();
  for (const e of previous.values()) {
    const o = e.occurrences[0]!;
    if (e.facts === undefined || o.source === undefined || o.source.via === "binding" || o.source.via === "constant" || !unchanged.has(o.filePath)) continue;
    const { crate: _c, module: _m, sameFunction: _s, ...facts } = e.facts;
    byPlace.set(`${o.filePath}\0${o.lineNumber}\0${o.kind}\0${e.record.errorMessage}`, facts);
  }
  return (site) => byPlace.get(`${site.path}\0${site.line}\0${site.kind}\0${site.message ?? ""}`);
}

/** What a source's site is to `siteFacts`: a call that checks nothing itself and is never debug-only. */
const CALL: Omit<Rule, "id" | "name"> = { syntax: "method", check: null, debugOnly: false, describe: () => skipped("dynamic-message") };

/**
 * The sites of `read` with facts on the first of each runtime message (the only one of the file
 * that can be its record's first): those `known` gives, or those read from the file's syntax
 * tree at the callee's name: the items around the call, its gates and path condition (the
 * message is made only where the call runs), the callers of its function in the file.
 */
async function withFacts(read: FileRead, known: KnownFacts, parse: ParseTree): Promise<Site[]> {
  const seen = new Set<string>();
  /** For each site, the facts it takes: known ones, null to read them, undefined for none. */
  const wanted = read.sites.map((s): SiteFacts | null | undefined => {
    if (s.runtime === null || seen.has(composePattern(s.runtime))) return undefined;
    seen.add(composePattern(s.runtime));
    return known(s) ?? null;
  });
  const layout = read.layout;
  if (layout === null || !wanted.includes(null)) return read.sites.map((site, k) => (wanted[k] == null ? site : { ...site, facts: wanted[k]! }));
  const lines = new Lines(read.text);
  // Note: as at extraction, only the items holding a site whose facts are read are parsed, with the headers around them.
  const items = new Set(read.callees.flatMap((spot, k) => (wanted[k] === null && spot.item !== null ? [spot.item] : [])));
  const view = new TreeView(await parse(read.text, rangesOf(layout, items, lines)), read.text, lines);
  const names = new Set(read.callees.flatMap((spot) => spot.functions.slice(-1)));
  let callers: Map<string, string[]> | undefined;
  const callersNamed = (name: string) => (callers ??= callersOf(read.text, layout, names)).get(name) ?? callersOf(read.text, layout, [name]).get(name)!;
  const sites = read.sites.map((site, k) => {
    const facts = wanted[k];
    if (facts !== null) return facts === undefined ? site : { ...site, facts };
    const spot = read.callees[k]!;
    const node = view.path(spot.at, spot.at + spot.name.length);
    return { ...site, facts: siteFacts(view.chain(node), { ...CALL, name: spot.name }, null, callersNamed) };
  });
  forgetIndexedWords();
  return sites;
}

/** Where a call stands: its file, its lines, the lexer's view of its callee and its context. */
interface CallPlace {
  readonly path: string;
  readonly lines: Lines;
  readonly spot: Spot;
  readonly context: Site["context"];
}

/**
 * The site of a source at a call's message argument (`arg`), or null when the argument is not a
 * message (`readMessageArgument`). A message without distinctive text of its own is counted
 * without a record, as a panic's would be.
 */
function callSite(at: CallPlace, arg: readonly Token[] | undefined, kind: SiteKind, around: (message: ArgumentMessage) => MessagePart[], source: MessageSource): Site | null {
  const message = arg === undefined ? null : readMessageArgument(arg);
  if (message === null) return null;
  const first = arg!.find((t) => t.text !== "&" && t.text !== "*")!;
  const own = isDistinctive(message.parts);
  const runtime = own ? around(message) : null;
  return {
    kind,
    path: at.path,
    line: at.lines.lineOf(first.start),
    column: at.lines.columnOf(first.start),
    inTokenTree: at.spot.inTokenTree,
    context: at.context,
    // Note: a wrapper's call is named by the text its wrapper prints around the literal; a declared call's literal is the reason its template shows.
    message: kind === "wrapper-call" && runtime !== null ? shownText(runtime) : message.message,
    runtime,
    skip: own ? null : "no-distinctive-text",
    facts: null,
    source,
  };
}

/**
 * What a declared call's occurrence says of it: the function it sits in (with its `impl`'s type,
 * `TensorCheck::narrow`), and the operation the registering call names with a literal.
 */
function declaredFacts(text: string, call: Call, spot: Spot, config: MessageSourceConfig): Pick<MessageSource, "function" | "operation"> {
  const name = spot.functions.at(-1);
  const parent = spot.functions.length === 1 && spot.item?.keyword === "fn" ? spot.item.parent : null;
  const owner = parent === null ? null : ownerOf(text, parent);
  const op = config.operation;
  const registering = op === undefined ? null : enclosingCall(text, call.start);
  const arg = registering !== null && registering.call.name === op!.call ? registering.call.args[op!.argument ?? 0] : undefined;
  const operation = arg?.length === 1 ? (arg[0]!.kind === "ident" ? letLiteral(text, arg[0]!.text, registering!.call.start) : readMessageArgument(arg)) : null;
  return { ...(name === undefined ? {} : { function: owner === null ? name : `${owner}::${name}` }), ...(operation === null ? {} : { operation: operation.message }) };
}

/**
 * The string literal the nearest `let name = "…";` before `before` binds, read as a message
 * argument, where no `fn` stands between that `let` and `before` (so it is the same function's,
 * as far as the text shows); null otherwise. `let ops = "GatherNd"; … check.register(ops, …)`.
 */
function letLiteral(text: string, name: string, before: number): ArgumentMessage | null {
  const head = text.slice(0, before);
  // Note: the nearest binding of the name, whatever its value; only a literal one gives the operation (`let op = node.op_type(); register(op, …)` gives none).
  const last = [...head.matchAll(new RegExp(`\\blet\\s+(?:mut\\s+)?${name}\\b`, "g"))].at(-1);
  if (last === undefined) return null;
  const after = head.slice(last.index!);
  const literal = new RegExp(`^let\\s+${name}\\s*(?::\\s*&\\s*(?:'static\\s+)?str\\s*)?=\\s*("(?:[^"\\\\]|\\\\.)*")\\s*;`).exec(after);
  // Note: and no `fn`, closure parameter or `for` of the name between it and the call.
  if (literal === null || new RegExp(`\\bfn\\s|\\|\\s*${name}\\s*[|,:]|\\bfor\\s+${name}\\b`).test(after.slice(literal[0].length))) return null;
  return readMessageArgument(tokenize(literal[1]!));
}
