/**
 * Stage 3, extract: the panic sites of one Rust file. Pure: text in, sites out.
 *
 * Note: candidates are found by a text scan and each is looked up in the syntax tree
 * (`descendantForIndex`) instead of running a whole-tree query: the scan is cheap, files without
 * candidate text are never parsed, and a macro's name inside another macro's token tree (which
 * tree-sitter leaves as flat tokens) is found the same way as a real invocation.
 * Note: only part of a file is parsed. A lexer pass (layout.ts) lays out its items; tree-sitter
 * reads the items of the sites that take facts (a record's first site in the file), and the
 * lexer's view answers for every other candidate (test code, never catalogued; a site without a
 * record of its own; a later site of a record), with the same checks (`lexSite` mirrors
 * `readSite`), and for the callers a site's facts name (`callersOf`).
 */
import { callersOf, forgetIndexedWords, siteFacts } from "./analyze/facts.js";
import { recordKey } from "./build.js";
import { chain, type Hit, type Item, type Layout, layoutOf, ownerAt, type Spot } from "./layout.js";
import { contextOfPath, isTestAttribute, MACRO_RULES, METHOD_RULES, type Rule, STD_PATHS } from "./rust/index.js";
import { isReturnedName, mayBeSite, returnedHits, returnedReader } from "./sources/returned.js";
import { isSpace, readDelimited, skipTrivia, splitArgs, type Token } from "./tokens.js";
import { type FlatTree, type ParseTree, parseTree, type Range } from "./parse.js";
import { parseNow } from "./parse-binding.js";
import { Lines, namedChildSpans, TreeView, type ViewNode } from "./tree-view.js";
import { FileSources, type SourcedMessage } from "./sources/file.js";
import { tokenFacts, type TreeSites, withTokenFacts } from "./token-pass.js";
import type { FileSites, Site, SiteContext, SiteFacts } from "./types.js";

/** What extraction hands the lexer pass (`layoutOf`) to tell test attributes: the table's one predicate. */
export { isTestAttribute } from "./rust/index.js";
/** The test-only module declarations of a file, read in the token pass (token-pass.ts). */
export { declaredTestModules, mayDeclareTestModule, testModuleNames } from "./token-pass.js";

/** Bumped whenever extraction can give other sites for the same text (it keys the cache). */
export const EXTRACTOR_VERSION = 62;

const MACRO_NAMES = [...MACRO_RULES.keys()].sort((a, b) => b.length - a.length);
const CANDIDATE = new RegExp(`\\b(${MACRO_NAMES.join("|")})\\s*!|\\.\\s*(${[...METHOD_RULES.keys()].join("|")})\\s*\\(`, "dg");

/** Nodes whose text is never code. */
const NOT_CODE = new Set(["line_comment", "block_comment", "doc_comment", "string_literal", "raw_string_literal", "string_content", "char_literal", "escape_sequence"]);

/** Where the text scan finds candidates (of panics, and of returned errors: sources/returned.ts), in order: a text without any needs no parse. */
export function candidateHits(text: string): Hit[] {
  const panics: Hit[] = [];
  CANDIDATE.lastIndex = 0;
  for (let m = CANDIDATE.exec(text); m !== null; m = CANDIDATE.exec(text)) {
    const macro = m[1] !== undefined;
    panics.push({ at: m.indices![macro ? 1 : 2]![0], name: (macro ? m[1] : m[2])!, macro });
  }
  let display: boolean | undefined;
  const namesDisplay = () => (display ??= text.includes("Display"));
  const returned = returnedHits(text).filter((hit) => mayBeSite(text, hit, namesDisplay));
  if (returned.length === 0) return panics;
  // Note: the two lists are each in order, and never share an offset.
  const hits: Hit[] = [];
  let r = 0;
  for (const hit of panics) {
    while (r < returned.length && returned[r]!.at < hit.at) hits.push(returned[r++]!);
    hits.push(hit);
  }
  return hits.concat(returned.slice(r));
}

/** What extraction reads with tree-sitter. */
export interface ExtractOptions {
  /**
   * False (the default): only the items holding a library site that takes facts (the file's first
   * of its runtime message) are parsed; other sites (test, bench and example code, counted but
   * never catalogued; sites without a record of their own or lending it no facts) and the callers
   * of a site's function are read by the lexer. True: every item is parsed.
   */
  readonly includeTestCode: boolean;
}

/** The default: only what a library site needs is parsed. */
export const LIBRARY_ONLY: ExtractOptions = { includeTestCode: false };

/**
 * A file being extracted: its parse, when it needs one, runs on the thread pool meanwhile.
 * `finish` takes the tree the parse gave (null when there is none) and gives the file's sites;
 * `read` gives them without the token pass (`tokenFacts`), for a caller that runs it elsewhere.
 */
export interface Extraction {
  readonly tree: Promise<FlatTree> | null;
  finish(tree: FlatTree | null): FileSites;
  read(tree: FlatTree | null): TreeSites;
}

/**
 * The sites of one file, in source order. Parses only the parts of the file that need it (see
 * `ExtractOptions`). Never throws on bad Rust: sites inside ERROR nodes are still read.
 */
export async function extractFile(file: { readonly path: string; readonly blob: string; readonly text: string }, options: ExtractOptions = LIBRARY_ONLY, parse: ParseTree = parseTree): Promise<FileSites> {
  const extraction = startFile(file, options, parse);
  return extraction.finish(extraction.tree === null ? null : await extraction.tree);
}

/**
 * Lays out one file and starts the parse of what needs it; `finish` reads the sites. What lies
 * between (lexing other files) overlaps the parse. `hits`: the text's candidates, when the caller
 * has scanned it already.
 */
export function startFile(file: { readonly path: string; readonly blob: string; readonly text: string }, options: ExtractOptions = LIBRARY_ONLY, parse: ParseTree = parseTree, hits: readonly Hit[] = candidateHits(file.text)): Extraction {
  const text = file.text;
  if (hits.length === 0) return { tree: null, finish: () => extractUnparsed(file), read: () => unparsedSites(file) };
  const pathContext = contextOfPath(file.path);
  const layout = layoutOf(text, hits, isTestAttribute);
  const lines = new Lines(text);
  const contextOf = (spot: Spot): SiteContext => lexedContext(pathContext, layout, spot);
  const sources = new FileSources(text, layout, lines, (context) => options.includeTestCode || context === "library");
  const describe = sources.describe.bind(sources);
  // Note: by default tree-sitter reads only the items of the sites that take facts; the lexer's
  //   sites (`lexSite` mirrors `readSite`) stand for all others. Returned errors are always read
  //   by the lexer (sources/returned.ts); the tree adds their facts.
  const readReturned = returnedReader(file.path, text, lines);
  const lexed = layout.spots.map((spot) => (isReturnedName(spot.name) ? readReturned(spot, contextOf(spot)) : options.includeTestCode ? null : lexSite(file.path, text, lines, ruleOf(spot), spot, contextOf(spot), describe)));
  const takesFacts = oncePerMessage(options);
  const treeSpots = options.includeTestCode
    ? null
    : new Set(
        layout.spots.filter((_, k) => {
          const site = lexed[k];
          const key = site == null ? null : factsKey(site);
          return key !== null && takesFacts(key, site!.context);
        }),
      );
  const tree = treeSpots === null ? parse(text) : treeSpots.size > 0 ? parse(text, rangesOf(layout, new Set([...treeSpots].flatMap((spot) => spot.item ?? [])), lines)) : null;
  const read = (parsed: FlatTree | null): TreeSites => {
    const view = parsed === null ? null : new TreeView(parsed, text, lines);
    const treeContext = view === null ? pathContext : fileContextOf(view, pathContext);
    const callers = callersIn(text, layout, treeSpots);
    const needsFacts = oncePerMessage(options);
    // Note: one entry per spot (null where it is no site), as the message sources read them.
    const found = layout.spots.map((spot, k) => {
      const toTree = treeSpots === null || treeSpots.has(spot);
      return isReturnedName(spot.name) ? returnedWithFacts(lexed[k]!, view, toTree, needsFacts, spot, callers) : toTree ? readSite(file.path, view!, ruleOf(spot), spot, treeContext, needsFacts, callers, describe) : lexed[k]!;
    });
    const sites = found.filter((site) => site !== null);
    forgetIndexedWords();
    return { path: file.path, blob: file.blob, sites, parseErrors: view?.hasError ?? false, parsed: view !== null, ...sources.facts(found) };
  };
  return { tree, read, finish: (parsed) => withTokenFacts(read(parsed), tokenFacts(text)) };
}

function ruleOf(spot: Spot): Rule {
  return (spot.macro ? MACRO_RULES : METHOD_RULES).get(spot.name)!;
}

/**
 * The context of a spot as the lexer sees it: its path's (`pathContext`), or test code when an
 * inner attribute makes the whole file so or an item around it is test code.
 */
export function lexedContext(pathContext: SiteContext, layout: Layout, spot: Spot): SiteContext {
  if (pathContext !== "library") return pathContext;
  return layout.innerTest || chain(spot.item).some((item) => item.test) ? "test" : pathContext;
}

/**
 * The callers of each function name in the file (`callersOf`): read together for the functions
 * around the candidates outside test items that may take facts (`takes`, null: every one), whose
 * facts are asked for; any other name alone.
 */
function callersIn(text: string, layout: Layout, takes: ReadonlySet<Spot> | null): (name: string) => readonly string[] {
  let known: Map<string, readonly string[]> | undefined;
  const names = () => new Set(layout.spots.flatMap((s) => (s.code && !s.excluded && s.functions.length > 0 && (takes === null || takes.has(s)) && !chain(s.item).some((item) => item.test) ? [s.functions.at(-1)!] : [])));
  return (name) => {
    known ??= callersOf(text, layout, names());
    return known.get(name) ?? known.set(name, callersOf(text, layout, [name]).get(name)!).get(name)!;
  };
}

/** What a file without candidate text yields: no sites, no parse, what its token pass reads (`tokenFacts`). */
export function extractUnparsed(file: { readonly path: string; readonly blob: string; readonly text: string }): FileSites {
  return withTokenFacts(unparsedSites(file), tokenFacts(file.text));
}

/** A file without candidate text, without its token pass: no sites, no parse. */
export function unparsedSites(file: { readonly path: string; readonly blob: string }): TreeSites {
  return { path: file.path, blob: file.blob, sites: [], parseErrors: false, parsed: false };
}

/**
 * The ranges tree-sitter reads: what precedes the first item (inner attributes), each item to
 * parse, and around the items to parse in a body, the body's item up to its first item and its
 * closing brace; adjacent ranges joined.
 */
export function rangesOf(layout: Layout, parse: ReadonlySet<Item>, lines: Lines): Range[] {
  const spans: [number, number][] = [];
  const add = (start: number, end: number) => {
    if (end <= start) return;
    const last = spans.at(-1);
    if (last !== undefined && last[1] === start) last[1] = end;
    else spans.push([start, end]);
  };
  /** Adds the ranges of `items`, in order. */
  const visit = (items: readonly Item[]) => {
    for (const item of items) {
      if (parse.has(item)) {
        add(item.start, item.end);
        continue;
      }
      const body = item.body;
      if (body === null || !hasParsed(body.items, parse)) continue;
      add(item.start, body.preludeEnd);
      visit(body.items);
      add(body.close, item.end);
    }
  };
  add(0, layout.preludeEnd);
  visit(layout.items);
  return spans.map(([start, end]) => ({ startIndex: start, endIndex: end, startPosition: lines.pointOf(start), endPosition: lines.pointOf(end) }));
}

/** True when one of `items`, or of the items in their bodies, is to be parsed. */
function hasParsed(items: readonly Item[], parse: ReadonlySet<Item>): boolean {
  return items.some((item) => parse.has(item) || (item.body !== null && hasParsed(item.body.items, parse)));
}

/**
 * The context of a parsed file's sites before their items are read: its path's, or test code
 * when an inner attribute at its top makes it so (`#![cfg(test)]`; the text check spares reading
 * the root's children when no such attribute can be there).
 */
function fileContextOf(view: TreeView, pathContext: SiteContext): SiteContext {
  if (pathContext !== "library") return pathContext;
  const innerTest = mayHaveInnerTestAttribute(view) && namedChildSpans(view.root).some((c) => c.type === "inner_attribute_item" && isTestAttribute(view.text.slice(c.start, c.end), true));
  return innerTest ? "test" : pathContext;
}

/**
 * False when no inner attribute that `isTestAttribute` accepts can be in the file: such an
 * attribute starts with `#!` and `[`, white space between, and holds one of `TEST_WORDS`; in a
 * tree with errors the `!` may be a MISSING node, so there only `#` and `[` are sure.
 */
function mayHaveInnerTestAttribute(view: TreeView): boolean {
  if (!view.testAttributeBetween(0, view.text.length)) return false;
  return view.hasError || view.attributeStarts.some((i) => {
    INNER_AT.lastIndex = i;
    return INNER_AT.test(view.text);
  });
}

const INNER_AT = /#\s*!/y;

/** Whether a site of this record (`recordKey`) and context gets facts (asked once per site, in source order). */
type NeedsFacts = (key: string, context: SiteContext) => boolean;

/**
 * Which sites of a file get facts: the first of each record in a catalogued context.
 * Note: only a record's first site lends it facts, and a later site of the file of the same
 *   record is never its first: the facts of those are not gathered.
 */
/**
 * The key a site takes facts under: its record's (`recordKey`); for a site whose message reads
 * another file's constant, one of its own: the tree pass gives it that constant's text, and with
 * it another record, so it neither takes the place's facts from the sites left there nor waits for them.
 */
function factsKey(site: Site): string | null {
  const key = recordKey(site);
  return key === null || site.constantReads === undefined ? key : `${key}\0${site.line}:${site.column}`;
}

function oncePerMessage(options: ExtractOptions): NeedsFacts {
  const seen = new Set<string>();
  return (key, context) => {
    if (!options.includeTestCode && context !== "library") return false;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}

/**
 * A returned error's site (as the lexer read it) with the facts the syntax tree proves of it,
 * when its item was parsed for them (`toTree`) and it takes facts; as it is otherwise.
 */
function returnedWithFacts(site: Site | null, view: TreeView | null, toTree: boolean, needsFacts: NeedsFacts, spot: Spot, callers: (name: string) => readonly string[]): Site | null {
  const key = site === null ? null : factsKey(site);
  if (site === null || key === null || view === null || !toTree || !needsFacts(key, site.context)) return site;
  const node = view.path(spot.at, spot.at + spot.name.length);
  if (node.start !== spot.at || node.text !== spot.name) return site;
  return { ...site, facts: factsWithItems(view, view.chain(node), { name: spot.name, check: null, debugOnly: false }, null, callers) };
}

/**
 * The site's facts (`siteFacts`) and, for a site in the body of an item-level `name! { … }`
 * (`cfg_rt! { fn f() { match … { _ => panic!() } } }`), the facts read with that body parsed as
 * items (`asItems`: the items, function and path condition inside it, the invocations read so
 * counted in `depth`); whether they apply is for the workspace's item macros to say
 * (workspace/place.ts), as another macro may make anything of its tokens.
 * Note: the body is parsed again alone (tree-sitter's included ranges keep offsets and lines),
 *   on the calling thread: such sites are few, and each body is parsed once per file.
 */
function factsWithItems(view: TreeView, chain: readonly ViewNode[], rule: Pick<Rule, "name" | "check" | "debugOnly">, args: readonly (readonly Token[])[] | null, callers: (name: string) => readonly string[]): SiteFacts {
  const facts = siteFacts(chain, rule, args, callers);
  const body = itemMacroBody(chain);
  if (body === null || facts.macro === null) return facts;
  const site = chain[0]!;
  const inner = view.memo(`items@${body.start}`, () => bodyAsItems(view, body));
  if (inner === null) return facts;
  const node = inner.path(site.start, site.end);
  // Note: a method's name in tokens is an `identifier`; parsed, a `field_identifier`.
  if (node.start !== site.start || node.end !== site.end || (node.type !== site.type && !(site.type === "identifier" && node.type === "field_identifier"))) return facts;
  const innerChain = inner.chain(node);
  if (innerChain.some((n) => n.type === "ERROR")) return facts;
  const within = factsWithItems(inner, innerChain, rule, args, callers);
  const read = within.asItems ?? { depth: 0, facts: within };
  const outerGates = rule.debugOnly ? facts.gates.filter((g) => g !== "debug_assertions") : facts.gates;
  const merged: SiteFacts = { ...read.facts, items: [...facts.items, ...read.facts.items], gates: [...new Set([...outerGates, ...read.facts.gates])], macroPath: facts.macroPath ?? [{ name: facts.macro, attribute: null }] };
  return { ...facts, asItems: { depth: 1 + read.depth, facts: merged } };
}

/** The view of a macro's body parsed alone as items; null when the binding that parses it cannot load (then the site keeps the facts of its tokens). */
function bodyAsItems(view: TreeView, body: ViewNode): TreeView | null {
  const range = { startIndex: body.start + 1, endIndex: body.end - 1, startPosition: view.lines.pointOf(body.start + 1), endPosition: view.lines.pointOf(body.end - 1) };
  try {
    return new TreeView(parseNow(view.text, [range]), view.text, view.lines);
  } catch {
    return null;
  }
}

/** The token tree of the item-level `name! { … }` whose tokens hold the site of `chain` (not a `macro_rules!`), or null. */
function itemMacroBody(chain: readonly ViewNode[]): ViewNode | null {
  for (let k = 1; k + 1 < chain.length; k++) {
    const a = chain[k]!;
    if (a.type !== "macro_invocation") continue;
    const parent = chain[k + 1]!.type;
    if (parent !== "source_file" && parent !== "declaration_list") return null;
    const body = chain[k - 1]!;
    return body.type === "token_tree" && body.view.text[body.start] === "{" && a.field("macro")?.text !== "macro_rules" ? body : null;
  }
  return null;
}

/** What a site's arguments make the user see (a rule's answer, or a source's: `FileSources.describe`). */
type Describe = (rule: Rule, args: readonly (readonly Token[])[], at: number) => SourcedMessage;

function readSite(path: string, view: TreeView, rule: Rule, spot: Spot, fileContext: SiteContext, needsFacts: NeedsFacts, callers: (name: string) => readonly string[], describe: Describe): Site | null {
  const text = view.text;
  const at = spot.at;
  const node = view.path(at, at + rule.name.length);
  if (NOT_CODE.has(node.type) || node.start !== at || node.text !== rule.name) return null;

  // Note: one chain of ancestors serves the checks here and the facts; the view reads each once per file.
  const chain = view.chain(node);
  let inTokenTree = false;
  let context = fileContext;
  // Note: no ancestor starts after the site, so without such an attribute before it none is tested.
  const testAttributes = context === "library" && view.testAttributeBetween(0, at);
  for (let k = 1; k < chain.length; k++) {
    const a = chain[k]!;
    const type = a.type;
    if (NOT_CODE.has(type) || type === "token_tree_pattern" || type === "attribute_item" || type === "inner_attribute_item" || type === "attribute") return null;
    if (type === "token_tree") inTokenTree = true;
    if (testAttributes && context === "library" && hasTestAttribute(a)) context = "test";
  }
  if (rule.syntax === "macro" && !stdMacro(text, codeBefore(view, at), at)) return null;
  return siteAt(path, text, view.lines, rule, spot, inTokenTree, context, describe, (key, args) => (needsFacts(key, context) ? factsWithItems(view, chain, rule, args, callers) : null));
}

/**
 * A site of an item that was not parsed (test, bench or example code), as the lexer saw it:
 * the same checks as `readSite`, without facts (such a site is never catalogued).
 */
function lexSite(path: string, text: string, lines: Lines, rule: Rule, spot: Spot, context: SiteContext, describe: Describe): Site | null {
  if (!spot.code || spot.excluded) return null;
  if (rule.syntax === "macro" && !stdMacro(text, spot.before, spot.at)) return null;
  return siteAt(path, text, lines, rule, spot, spot.inTokenTree, context, describe, () => null);
}

/** The site whose name starts at `at`, once it is known to be one: its call read from the text. */
function siteAt(path: string, text: string, lines: Lines, rule: Rule, spot: Spot, inTokenTree: boolean, context: SiteContext, describe: Describe, facts: (key: string, args: readonly (readonly Token[])[] | null) => SiteFacts | null): Site | null {
  const at = spot.at;
  let i = at + rule.name.length;
  if (rule.syntax === "macro") {
    i = skipTrivia(text, i);
    if (text[i] !== "!") return null;
    i = skipTrivia(text, i + 1);
  } else {
    i = skipTrivia(text, i);
  }
  const call = readDelimited(text, i);
  const args = call === null ? null : splitArgs(call.tokens);
  const described: SourcedMessage = args === null ? { message: null, runtime: null, skip: "dynamic-message" as const, place: null } : describe(rule, args, at);
  const site: Site = {
    kind: rule.id,
    path,
    line: lines.lineOf(at),
    column: lines.columnOf(at),
    inTokenTree,
    context,
    message: described.message,
    runtime: described.runtime,
    skip: described.skip,
    // Note: a site without text of its own has a record all the same, keyed by its place.
    place: described.runtime === null ? (described.place ?? null) : null,
    owner: ownerAt(text, spot),
    facts: null,
    ...(described.source === undefined ? {} : { source: described.source }),
    ...(described.constantReads === undefined ? {} : { constantReads: described.constantReads }),
  };
  const key = factsKey(site);
  // Note: facts are gathered only for sites that may lend a record its facts, while the tree is alive.
  return key === null ? site : { ...site, facts: facts(key, rule.syntax === "macro" ? args : null) };
}

/**
 * What stands right before the name decides whether it is the std macro: it may have a std path
 * (`std::panic!`) but no other path, and must not be a field or a definition
 * (`macro_rules! panic`). `j` is the offset of the last code character before the name.
 */
function stdMacro(text: string, j: number, at: number): boolean {
  if (text[j] === "." || text[j] === "$") return false;
  if (text[j] === ":" && text[j - 1] === ":") {
    const head = /(?:\$crate|::[A-Za-z_]\w*|[A-Za-z_]\w*)\s*::\s*$/.exec(text.slice(Math.max(0, at - 64), at));
    return head !== null && STD_PATHS.has(head[0].replace(/\s*::\s*$/, "").replace(/\s+/g, ""));
  }
  const before = text.slice(Math.max(0, j - 11), j + 1);
  return !/\bmacro_rules\s*!$/.test(before) && !/\bfn$/.test(before);
}

/**
 * Offset of the last code character before `at`: white space and comments skipped (a comment
 * ending in `.` right before `assert!` must not read as a method call). -1 at the file's start.
 */
function codeBefore(view: TreeView, at: number): number {
  const text = view.text;
  let j = at - 1;
  for (;;) {
    while (j >= 0 && isSpace(text.charCodeAt(j))) j--;
    if (j < 0 || !mayEndComment(text, j)) return j;
    let comment: ViewNode | null = view.path(j, j + 1);
    while (comment !== null && comment.type !== "line_comment" && comment.type !== "block_comment") comment = comment.parent;
    if (comment === null || comment.start > j) return j;
    j = comment.start - 1;
  }
}

/**
 * False when no comment can hold offset `j`, the last character before code: a block comment
 * would end there with its `/`, a line comment would start on its line. Only a yes asks the tree.
 */
function mayEndComment(text: string, j: number): boolean {
  if (text.charCodeAt(j) === 47) return true;
  // Note: a line comment's `//` starts on j's line, at or before j: only that line is searched.
  const line = text.lastIndexOf("\n", j) + 1;
  return text.slice(line, j + 2).includes("//");
}

/**
 * True when `node` (an item, a `macro_rules!` definition, a statement, …) carries `#[test]`-like
 * or `#[cfg(test)]`-like attributes: tree-sitter gives them as the node's preceding siblings.
 * Read once per node and file.
 */
function hasTestAttribute(node: ViewNode): boolean {
  if (node.type === "attribute_item" || node.type === "source_file") return false;
  return node.memo("testAttribute", () => {
    if (!mayHaveTestAttribute(node)) return false;
    for (let s = node.previousNamedSibling; s !== null; s = s.previousNamedSibling) {
      if (s.type === "line_comment" || s.type === "block_comment") continue;
      if (s.type !== "attribute_item") break;
      if (isTestAttribute(s.text, false)) return true;
    }
    return false;
  });
}

/**
 * False when no attribute that `hasTestAttribute` accepts can stand before `node`: such an
 * attribute is a sibling, so it lies between the parent's start and the node's.
 */
function mayHaveTestAttribute(node: ViewNode): boolean {
  return node.view.testAttributeBetween(node.parent?.start ?? 0, node.start);
}

/**
 * Marks the sites of files that are test-only modules of another file as test code. Pure.
 * `a/lib.rs` (or `main.rs`, `mod.rs`) declaring `mod t;` owns `a/t.rs` and `a/t/…`; `a/b.rs` owns `a/b/t.rs` and `a/b/t/…`.
 * `declaring`: the files whose declarations count (by default `files` themselves), for marking
 * some files of a tree by the declarations of all of it.
 */
export function applyTestModules(files: readonly FileSites[], declaring: readonly Pick<FileSites, "path" | "testModules">[] = files): FileSites[] {
  const declared = declaredTest(declaring);
  if (declared === null) return [...files];
  return files.map((f) => {
    if (!declared(f.path)) return f;
    return { ...f, sites: f.sites.map((s) => (s.context === "library" ? { ...s, context: "test" as const } : s)) };
  });
}

/** Whether a path is a test module the files declare (`#[cfg(test)] mod tests;`), or null when they declare none. */
export function declaredTest(declaring: readonly Pick<FileSites, "path" | "testModules">[]): ((path: string) => boolean) | null {
  const prefixes: string[] = [];
  for (const { path, testModules: names } of declaring) {
    if (names.length === 0) continue;
    const slash = path.lastIndexOf("/");
    const dir = path.slice(0, slash + 1);
    const file = path.slice(slash + 1);
    const base = /^(lib|main|mod)\.rs$/.test(file) ? dir : `${dir}${file.replace(/\.rs$/, "")}/`;
    for (const name of names) prefixes.push(`${base}${name}.rs`, `${base}${name}/`);
  }
  if (prefixes.length === 0) return null;
  return (path) => prefixes.some((p) => (p.endsWith("/") ? path.startsWith(p) : path === p));
}
