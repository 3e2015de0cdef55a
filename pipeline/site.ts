/**
 * Stage site: a dataset version (and the versions before it) rendered as a static site that
 * works from any folder, with no server: one page per record, an index per repository with the
 * counts, a list and the search, a page per pair of consecutive versions with their diff, and
 * the JSON of every envelope as written. Pure: the datasets, the templates and the assets in,
 * the files (paths and bytes) out; commands/site.ts reads and writes them.
 *
 * Layout (paths relative to the site's folder, links between pages relative too):
 *   index.html                     the repository's index
 *   errors/<slug>.html             one page per record of the selected version
 *   diffs/<old>...<new>.html       one page per pair of consecutive versions (diff.ts's classes)
 *   api/errors.json                the records' index; api/errors/<id>.json: an envelope as written
 *   assets/style.css, assets/search.js (matchPanic bundled), assets/search-data.js (what it reads)
 */
import { Eta } from "eta/core";
import { diffDatasets } from "./diff.js";
import { PipelineError } from "./errors.js";
import { LLM_FIELDS } from "./llm.js";
import { RULES } from "./rules/index.js";
import { HOW_SURE } from "./analyze/words.js";
import type { CatalogRecord, Condition, Diff, DiffRecord, Envelope, Manifest, Reproduction, SiteKind, VersionEntry } from "./schema-types.generated.js";
import { splitLines } from "./build.js";
import { SEARCH_GLOBAL, type SearchData, type SearchEnvelope, type SearchOccurrence, type SearchRecord } from "./site-data.js";

/** One version of the repository as the site reads it. */
export interface SiteVersion {
  readonly entry: VersionEntry;
  readonly manifest: Manifest;
  /** Each envelope with its line of records.jsonl (its bytes, without the line break). */
  readonly lines: readonly { readonly envelope: Envelope; readonly line: Uint8Array }[];
}

/** What the site is made of, besides the data: templates by name (`record` for `record.eta`), the stylesheet, the search script. */
export interface SiteAssets {
  readonly templates: ReadonlyMap<string, string>;
  readonly style: string;
  readonly search: string;
}

/** The input of `renderSite`. */
export interface SiteInput {
  readonly repo: string;
  /** The versions in index order, up to and including the one rendered (the last). */
  readonly versions: readonly SiteVersion[];
  /** The site's public address (`https://owner.github.io/catalog/`), for canonical links; null when unknown. */
  readonly baseUrl: string | null;
  readonly assets: SiteAssets;
}

/** One file of the site. */
export interface SiteFile {
  readonly path: string;
  readonly content: string | Uint8Array;
}

/**
 * The files of the site for the last of `input.versions`, sorted by path. The same input gives
 * the same bytes. Throws E_INPUT when there is no version or a version's name cannot be a file name.
 */
export function renderSite(input: SiteInput): SiteFile[] {
  const current = input.versions.at(-1);
  if (current === undefined) throw new PipelineError("E_INPUT", `there is no dataset version of ${input.repo} to render`, { hint: "run `error-catalog run` first" });
  for (const v of input.versions) {
    if (!SAFE_NAME.test(v.entry.version)) throw new PipelineError("E_INPUT", `the version name ${JSON.stringify(v.entry.version)} cannot be part of a file name`, { hint: "versions written by error-catalog are named like 0001-2c06be351006; restore the index" });
  }
  const eta = new Eta({ autoEscape: true, autoTrim: [false, "nl"], cache: true, useWith: false });
  for (const [name, text] of input.assets.templates) eta.loadTemplate(`@${name}`, text);
  const render = (name: string, data: object) => eta.render(`@${name}`, data);

  const envelopes = current.lines.map((l) => l.envelope);
  const pages = pagePaths(envelopes);
  const byId = new Map(envelopes.map((e) => [e.record.id, e]));
  const site = siteView(input, current);
  const diffs = consecutiveDiffs(input.versions);
  const files: SiteFile[] = [];

  for (const e of envelopes) {
    const page = pages.get(e.record.id)!;
    files.push({ path: page, content: render("record", { site, page: pageView(page, input.baseUrl), r: recordView(e, current.manifest, pages, byId) }) });
  }
  for (const line of current.lines) files.push({ path: `api/errors/${line.envelope.record.id}.json`, content: withNewline(line.line) });
  files.push({ path: "api/errors.json", content: `${JSON.stringify(apiIndex(input.repo, current, pages), null, 2)}\n` });
  for (const d of diffs) {
    files.push({ path: d.path, content: render("diff", { site, page: pageView(d.path, input.baseUrl), d: diffView(d.diff, d.path, pages) }) });
  }
  files.push({ path: "index.html", content: render("index", { site, page: pageView("index.html", input.baseUrl), x: indexView(input, current, pages, diffs) }) });
  files.push({ path: "assets/style.css", content: input.assets.style });
  files.push({ path: "assets/search.js", content: input.assets.search });
  files.push({ path: "assets/search-data.js", content: `window.${SEARCH_GLOBAL}=${scriptJson(searchData(input.versions, pages))};\n` });
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A version's name as a part of a file name. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function withNewline(line: Uint8Array): Uint8Array {
  const out = new Uint8Array(line.length + 1);
  out.set(line);
  out[line.length] = 10;
  return out;
}

/**
 * The page of each record: `errors/<slug>.html`; when two records share a slug (its 6 hex
 * digits of the id are the same), each takes its whole id instead of those 6.
 */
export function pagePaths(envelopes: readonly Envelope[]): Map<string, string> {
  const count = new Map<string, number>();
  for (const e of envelopes) count.set(e.record.slug, (count.get(e.record.slug) ?? 0) + 1);
  return new Map(envelopes.map((e) => [e.record.id, `errors/${count.get(e.record.slug)! > 1 ? `${e.record.slug.slice(0, -6)}${e.record.id}` : e.record.slug}.html`]));
}

/** JSON inside a `<script>`: `<` escaped, so no text of a message can end the script. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/** The path from `page` back to the site's root (`../` per folder). */
function rootOf(page: string): string {
  return "../".repeat(page.split("/").length - 1);
}

interface PageView {
  /** Prefix of links to other pages of the site (`../` from errors/…). */
  readonly root: string;
  readonly canonical: string | null;
}

function pageView(page: string, baseUrl: string | null): PageView {
  return { root: rootOf(page), canonical: baseUrl === null ? null : `${baseUrl}${page === "index.html" ? "" : page}` };
}

/** What every page says about the site. */
function siteView(input: SiteInput, current: SiteVersion) {
  const m = current.manifest;
  const a = m.analysis;
  const modelRecords = a === undefined ? 0 : a.llm + a.llmCached;
  return {
    repo: input.repo,
    repoUrl: `https://github.com/${input.repo}`,
    version: m.version,
    sha: m.sha,
    shortSha: m.sha.slice(0, 10),
    date: m.datasetVersion.slice(0, 10),
    records: current.lines.length,
    modelRecords,
    modelFields: LLM_FIELDS.join(", "),
  };
}

/** How a kind is written in Rust: `panic!`, `.expect()`, or its id for the kinds that are not a panic's call. */
export function kindLabel(kind: SiteKind): string {
  const rule = RULES.find((r) => r.id === kind);
  if (rule === undefined) return kind;
  return rule.syntax === "macro" ? `${rule.name}!` : `.${rule.name}()`;
}

/**
 * What names a record in a title or a link: its message, or, for a message with no text of its
 * own (one made at run time, `{}`), its kind and place.
 */
export function recordTitle(record: Pick<CatalogRecord, "errorMessage" | "filePath" | "lineNumber">, kind: SiteKind | null): string {
  if (record.errorMessage.trim() !== "") return record.errorMessage;
  return `${kind === null ? "A site" : kindLabel(kind)} at ${record.filePath}:${record.lineNumber}, with a message made at run time`;
}

/** The lines of a record's excerpt, numbered, the site's own marked. */
function excerptLines(r: CatalogRecord): { n: number; text: string; site: boolean }[] {
  return splitLines(r.sourceCode).map((text, i) => ({ n: r.sourceCodeStart + i, text, site: r.sourceCodeStart + i === r.lineNumber }));
}

/** A piece of prose: plain text, or code (what the prose wrote between backticks). */
export interface ProseSpan {
  readonly text: string;
  readonly code: boolean;
}

/** Prose split into its text and its `code` spans (backticks dropped); null stays null. */
export function proseSpans(text: string): ProseSpan[];
export function proseSpans(text: string | null): ProseSpan[] | null;
export function proseSpans(text: string | null): ProseSpan[] | null {
  if (text === null) return null;
  const spans: ProseSpan[] = [];
  let at = 0;
  for (const m of text.matchAll(/`([^`\n]+)`/g)) {
    if (m.index > at) spans.push({ text: text.slice(at, m.index), code: false });
    spans.push({ text: m[1]!, code: true });
    at = m.index + m[0].length;
  }
  if (at < text.length) spans.push({ text: text.slice(at), code: false });
  return spans;
}

/** One step of a path condition as a line of Rust-like text. */
export function conditionText(c: Condition): string {
  switch (c.kind) {
    case "match":
      return `match ${c.scrutinee ?? "…"} { ${c.pattern ?? "_"}${c.guard ? ` if ${c.guard}` : ""} => … }`;
    case "if":
      return c.holds === false ? `if ${c.condition ?? "…"} { … } else { here }` : `if ${c.condition ?? "…"} { here }`;
    case "if-let":
      return c.holds === false ? `if let ${c.pattern ?? "…"} = ${c.value ?? "…"} { … } else { here }` : `if let ${c.pattern ?? "…"} = ${c.value ?? "…"} { here }`;
    case "let-else":
      return `let ${c.pattern ?? "…"} = ${c.value ?? "…"} else { here }`;
    case "while":
      return `while ${c.condition ?? "…"} { here }`;
    case "while-let":
      return `while let ${c.pattern ?? "…"} = ${c.value ?? "…"} { here }`;
    case "for":
      return `for ${c.pattern ?? "…"} in ${c.value ?? "…"} { here }`;
    case "loop":
      return "loop { here }";
    case "closure":
      return `${c.callee ? `${c.callee}(` : ""}${c.params ?? "||"} { here }${c.callee ? ")" : ""}`;
    case "async-block":
      return `${c.callee ? `${c.callee}(` : ""}async { here }${c.callee ? ")" : ""}`;
    case "macro-rule":
      return `macro_rules! arm ${c.matcher ?? "…"}`;
    case "assert":
      return c.left !== undefined ? `${c.macro ?? "assert_eq"}!(${c.left}, ${c.right ?? "…"}) fails` : `${c.macro ?? "assert"}!(${c.condition ?? "…"}) fails`;
    case "expect":
      return `${c.receiver ?? "…"}.${c.method ?? "expect"}(…) fails`;
  }
}

/** The function a record's site sits in, as its signature reads. */
function signature(e: Envelope): string | null {
  const f = e.facts?.function;
  if (f === undefined) return null;
  const params = [...(f.receiver ? [f.receiver] : []), ...f.params.map((p) => `${p.pattern}: ${p.type}`)].join(", ");
  const head = `${f.visibility ? `${f.visibility} ` : ""}fn ${f.name}${f.generics ?? ""}(${params})${f.returnType ? ` -> ${f.returnType}` : ""}`;
  const impl = f.implTrait ? `impl ${f.implTrait} for ${f.implType ?? "…"}` : f.implType ? `impl ${f.implType}` : f.traitName ? `trait ${f.traitName}` : null;
  return impl === null ? head : `${impl} { ${head} }`;
}

/** The title of an envelope, or undefined. */
function related(e: Envelope | undefined): string | undefined {
  return e === undefined ? undefined : recordTitle(e.record, e.occurrences[0]!.kind);
}

/** Why a test is linked, in words (`Reproduction.how`). */
const REPRODUCTION: Readonly<Record<Reproduction["how"], string>> = {
  "should-panic-reached": "a should_panic test that reaches the site",
  "should-panic-text": "a should_panic test whose expected text this message holds",
  "doc-test": "a should_panic example in the docs",
};

/** What a record's page shows, every field as the envelope has it; optional parts null or empty when it has none. */
function recordView(e: Envelope, manifest: Manifest, pages: ReadonlyMap<string, string>, byId: ReadonlyMap<string, Envelope>) {
  const r = e.record;
  const facts = e.facts;
  return {
    id: r.id,
    title: recordTitle(r, e.occurrences[0]!.kind),
    message: r.errorMessage,
    pattern: r.messagePattern,
    errorType: r.errorType,
    errorClass: typeof r.errorClass === "string" ? r.errorClass : null,
    severity: r.severity,
    kind: kindLabel(e.occurrences[0]!.kind),
    raised: r.errorType === "panic" ? "Panics at" : "Written at",
    filePath: r.filePath,
    lineNumber: r.lineNumber,
    githubUrl: r.githubUrl,
    excerpt: excerptLines(r),
    excerptFrom: r.sourceCodeStart,
    excerptTo: r.sourceCodeEnd,
    crate: facts?.crate ?? null,
    crateDescription: facts?.crateDescription ?? null,
    module: facts?.module || null,
    entryPoints: (facts?.entryPoints ?? []).map((p) => ({ symbol: p.symbol, via: p.via, confidence: p.confidence === "self" ? null : proseSpans(HOW_SURE[p.confidence]), url: `https://github.com/${r.repo}/blob/${r.analyzedSha}/${p.path}#L${p.line}`, place: `${p.path}:${p.line}` })),
    panicsDocs: (facts?.docs ?? []).filter((d) => d.panics !== null).map((d) => ({ symbol: d.symbol, text: d.panics! })),
    reproductions: (e.reproductions ?? []).map((t) => ({ name: t.name, place: `${t.path}:${t.line}`, url: t.permalink, expected: t.expected, how: REPRODUCTION[t.how] })),
    byModel: new Set<string>(e.modelFields ?? []),
    signature: signature(e),
    gates: facts?.gates ?? [],
    conditions: (facts?.conditions ?? []).map((c) => ({ line: c.line, text: conditionText(c) })),
    inMacro: facts?.macro ?? null,
    occurrences: e.occurrences.map((o) => ({
      filePath: o.filePath,
      lineNumber: o.lineNumber,
      githubUrl: o.githubUrl,
      kind: kindLabel(o.kind),
      context: o.context,
      source: o.source === undefined ? null : o.source.via === "binding" ? `the message is bound to \`${o.source.name}\`${o.source.line ? ` at line ${o.source.line}` : ""}` : o.source.via === "wrapper" ? `passed to \`${o.source.name}\`, which panics with it` : `given to \`${o.source.name}\`${o.source.function ? ` in \`${o.source.function}\`` : ""}${o.source.operation ? ` (operation ${o.source.operation})` : ""}`,
    })),
    documentation: proseSpans(r.documentation),
    solutions: r.solutions.map((x) => proseSpans(x)),
    preventionTips: r.preventionTips.map((x) => proseSpans(x)),
    handlingStrategy: r.handlingStrategy,
    examples: [
      { title: "Example fix", code: r.exampleFix },
      { title: "Check before the call", code: r.validationCode },
      { title: "A guard that detects the failing state", code: r.typeGuard },
      { title: "Containing it", code: r.tryCatchPattern },
    ].filter((x): x is { title: string; code: string } => typeof x.code === "string" && x.code !== ""),
    trigger: proseSpans(r.triggerScenarios),
    situations: proseSpans(r.commonSituations),
    tags: r.tags,
    related: (e.relatedIds ?? []).map((id) => ({ id, page: pages.get(id) ?? null, message: related(byId.get(id)) ?? id })),
    analyzedSha: r.analyzedSha,
    analyzedShort: r.analyzedSha.slice(0, 10),
    analyzedAt: r.analyzedAt.slice(0, 10),
    datasetVersion: manifest.version,
    issueUrl: `https://github.com/${r.repo}/issues`,
  };
}

/** Counts as rows sorted by count (descending), then by name. */
function countRows(values: readonly string[]): { name: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A pair of consecutive versions and the page of their diff. */
interface VersionDiff {
  readonly path: string;
  readonly old: string;
  readonly new: string;
  readonly diff: Diff;
}

/** The diff of each pair of consecutive versions (in index order), oldest first. */
function consecutiveDiffs(versions: readonly SiteVersion[]): VersionDiff[] {
  const dataset = (v: SiteVersion) => ({ version: v.entry.version, manifest: v.manifest, envelopes: v.lines.map((l) => l.envelope) });
  return versions.slice(1).map((v, i) => {
    const before = versions[i]!;
    return { path: `diffs/${before.entry.version}...${v.entry.version}.html`, old: before.entry.version, new: v.entry.version, diff: diffDatasets({ old: dataset(before), new: dataset(v) }) };
  });
}

function indexView(input: SiteInput, current: SiteVersion, pages: ReadonlyMap<string, string>, diffs: readonly VersionDiff[]) {
  const envelopes = current.lines.map((l) => l.envelope);
  const diffOf = new Map(diffs.map((d) => [d.new, d]));
  const records = envelopes
    .map((e) => ({ page: pages.get(e.record.id)!, message: recordTitle(e.record, e.occurrences[0]!.kind), filePath: e.record.filePath, lineNumber: e.record.lineNumber, kind: kindLabel(e.occurrences[0]!.kind), crate: e.facts?.crate ?? null }))
    .sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : a.page < b.page ? -1 : 1));
  return {
    byKind: countRows(envelopes.map((e) => kindLabel(e.occurrences[0]!.kind))),
    byCrate: countRows(envelopes.map((e) => e.facts?.crate ?? "(no crate)")),
    byType: countRows(envelopes.map((e) => e.record.errorType)),
    records,
    versions: [...input.versions].reverse().map((v) => {
      const d = diffOf.get(v.entry.version);
      return { version: v.entry.version, sha: v.entry.sha.slice(0, 10), date: v.entry.datasetVersion.slice(0, 10), records: v.entry.records, diff: d === undefined ? null : { path: d.path, old: d.old, counts: d.diff.counts } };
    }),
  };
}

function diffView(diff: Diff, page: string, pages: ReadonlyMap<string, string>) {
  const root = rootOf(page);
  const ref = (r: DiffRecord) => ({ message: recordTitle(r, null), place: `${r.filePath}:${r.lineNumber}`, githubUrl: r.githubUrl, page: pages.has(r.id) ? `${root}${pages.get(r.id)}` : null });
  // Note: listed by message (diff.ts lists by id), the order a reader scans.
  const byMessage = <T extends { message: string; place: string }>(rows: T[]): T[] => rows.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : a.place < b.place ? -1 : a.place > b.place ? 1 : 0));
  return {
    old: diff.old.version,
    new: diff.new.version,
    oldSha: diff.old.sha?.slice(0, 10) ?? null,
    newSha: diff.new.sha?.slice(0, 10) ?? null,
    counts: diff.counts,
    added: byMessage(diff.added.map(ref)),
    removed: byMessage(diff.removed.map(ref)),
    changed: byMessage(diff.changed.map((c) => ({ ...ref(c.new), fields: c.fields.map((f) => f.field) }))),
    moved: byMessage(diff.moved.map((m) => ({ ...ref(m.new), from: `${m.old.filePath}:${m.old.lineNumber}` }))),
    reworded: byMessage(diff.reworded.map((w) => ({ ...ref(w.new), oldMessage: w.old.errorMessage }))),
  };
}

/** api/errors.json: the version and, per record, its id, message, kind, place and the paths of its page and JSON. */
function apiIndex(repo: string, current: SiteVersion, pages: ReadonlyMap<string, string>) {
  const m = current.manifest;
  return {
    repo,
    version: m.version,
    sha: m.sha,
    datasetVersion: m.datasetVersion,
    errors: current.lines.map(({ envelope: e }) => ({
      id: e.record.id,
      slug: e.record.slug,
      errorMessage: e.record.errorMessage,
      errorType: e.record.errorType,
      kind: e.occurrences[0]!.kind,
      crate: e.facts?.crate ?? null,
      filePath: e.record.filePath,
      lineNumber: e.record.lineNumber,
      page: pages.get(e.record.id)!,
      json: `api/errors/${e.record.id}.json`,
    })),
  };
}

/** The search's data (`SearchData`): each file path and each distinct record once. */
export function searchData(versions: readonly SiteVersion[], pages: ReadonlyMap<string, string>): SearchData {
  const files: string[] = [];
  const fileIndex = new Map<string, number>();
  const records: SearchRecord[] = [];
  const recordIndex = new Map<string, number>();
  const fileOf = (file: string) => {
    let i = fileIndex.get(file);
    if (i === undefined) (i = files.length), fileIndex.set(file, i), files.push(file);
    return i;
  };
  const out = versions.map((v) => ({
    version: v.entry.version,
    envelopes: v.lines.map(({ envelope: e }): SearchEnvelope => {
      const r = e.record;
      const page = pages.get(r.id) ?? null;
      const title = recordTitle(r, e.occurrences[0]!.kind);
      const cut: SearchRecord = { ...(title !== r.errorMessage ? { title } : {}), record: { id: r.id, errorMessage: r.errorMessage, messagePattern: r.messagePattern, errorClass: r.errorClass }, page };
      const key = JSON.stringify(cut);
      let i = recordIndex.get(key);
      if (i === undefined) (i = records.length), recordIndex.set(key, i), records.push(cut);
      // Note: a record with a page is linked to it; only the others need their permalinks.
      return [i, e.occurrences.map((o): SearchOccurrence => (page === null ? [fileOf(o.filePath), o.lineNumber, o.githubUrl] : [fileOf(o.filePath), o.lineNumber]))];
    }),
  }));
  return { selected: versions.at(-1)!.entry.version, files, records, versions: out };
}
