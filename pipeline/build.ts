/**
 * Stage 4, build: schema-v2 records from the sites, one per distinct runtime message. Pure: the
 * clock comes in as `now`, the file texts as a lookup. New records are stamped `now`; the analyze
 * stage carries the times of unchanged records over from the previous version (`keepTimes`),
 * once the analysis fields, which are content too, are filled.
 */
import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { composePattern, messageKey, slugify } from "./message.js";
import type { CatalogRecord, Envelope, Occurrence } from "./schema-types.generated.js";
import { errorTypeOf } from "./sources/returned.js";
import type { MessagePart, Site } from "./types.js";

export interface BuildInput {
  /** `owner/name`. */
  readonly repo: string;
  readonly sha: string;
  /** Lines of source kept on each side of a site. */
  readonly contextLines: number;
  /** The sites to catalogue, one group per record (`groupSites`). */
  readonly groups: ReadonlyMap<string, readonly Site[]>;
  /** The text of a file of the tree, by path. */
  readonly textOf: (path: string) => string;
  /** An excerpt known without the text (carried over from the previous version), if any. */
  readonly excerptAt?: (path: string, line: number) => Excerpt | undefined;
  /** The dataset version being built (ISO 8601): also the analysis time of new content. */
  readonly now: string;
  /**
   * The previous version's envelope of a record whose sites are what they were (same places, in
   * files whose blobs did not change), if any: it is taken whole, with the new commit's links.
   */
  readonly reuse?: (id: string, sites: readonly Site[]) => Envelope | undefined;
}

/**
 * What identifies the record of a site, or null when it has none: its runtime text's parts
 * (`messageKey`: literal text, holes, std's words), with a returned error's class; or for a site
 * without text of its own its kind, place (file and enclosing items, so it survives line moves)
 * and std's text. Pure.
 */
export function recordKey(site: Site): string | null {
  if (site.runtime !== null) {
    const text = messageKey(site.runtime);
    // Note: two error types that display the same text are two errors.
    return errorTypeOf(site.kind) === "panic" ? text : `error\0${site.errorClass ?? ""}\0${text}`;
  }
  if (site.place == null) return null;
  return `${site.kind}\0${site.path}\0${site.owner ?? ""}\0${messageKey(site.place.runtime)}`;
}

/** The parts of the whole runtime text a site's record describes (null: the site has no record). */
export function recordParts(site: Site): readonly MessagePart[] | null {
  return site.runtime ?? site.place?.runtime ?? null;
}

/**
 * A record's slug: the words of its message, or for a message without any (`{}`, an empty one)
 * its kind and the items it stands in (`panic-in-bar-explain-<id>`).
 */
function slugOf(site: Site, id: string): string {
  const slug = slugify(recordMessage(site), id);
  return slug.includes("-") ? slug : slugify(`${site.kind} in ${site.owner ?? ""}`, id);
}

/** The `errorMessage` of a site's record: the message as written, or for a place's record what std prints (`explicit panic`) or the format string. */
export function recordMessage(site: Site): string {
  return (site.runtime === null ? site.place?.message : site.message) ?? "";
}

/** The sites that have a record, by record key (`recordKey`: one group per record), each in source order. Pure. */
export function groupSites(sites: readonly Site[]): Map<string, Site[]> {
  const groups = new Map<string, Site[]>();
  for (const site of [...sites].sort(bySourceOrder)) {
    const key = recordKey(site);
    if (key === null) continue;
    const group = groups.get(key);
    if (group) group.push(site);
    else groups.set(key, [site]);
  }
  return groups;
}

/**
 * The files whose text the records' excerpts come from (each record's first occurrence), less
 * those whose excerpts are `known` without it. Pure.
 */
export function excerptPaths(groups: ReadonlyMap<string, readonly Site[]>, known: (path: string, line: number) => boolean = () => false): string[] {
  const firsts = [...groups.values()].map((group) => group[0]!).filter((s) => !known(s.path, s.line));
  return [...new Set(firsts.map((s) => s.path))].sort();
}

/** Lines of a file around a site, and the 1-based span they cover. */
export interface Excerpt {
  readonly code: string;
  readonly start: number;
  readonly end: number;
}

/** The envelopes of the dataset, sorted by record id. */
export function buildEnvelopes(input: BuildInput): Envelope[] {
  const envelopes: Envelope[] = [];
  // Note: a file holds many records' first sites; it is split into lines once.
  const lines = new Map<string, string[]>();
  const linesOf = (path: string) => lines.get(path) ?? lines.set(path, splitLines(input.textOf(path))).get(path)!;
  for (const sites of input.groups.values()) {
    const first = sites[0]!;
    const errorType = errorTypeOf(first.kind);
    const id = recordId(input.repo, errorType, recordKey(first)!);
    const before = input.reuse?.(id, sites);
    if (before !== undefined) {
      envelopes.push(atCommit(before, input));
      continue;
    }
    const pattern = composePattern(recordParts(first)!);
    const errorClass = first.errorClass ?? null;
    const excerpt = input.excerptAt?.(first.path, first.line) ?? excerptOfLines(linesOf(first.path), first.line, input.contextLines);
    const record: CatalogRecord = {
      id,
      repo: input.repo,
      slug: slugOf(first, id),
      errorCode: null,
      errorMessage: recordMessage(first),
      messagePattern: pattern,
      errorType,
      errorClass,
      httpStatus: null,
      severity: "error",
      filePath: first.path,
      lineNumber: first.line,
      sourceCode: excerpt.code,
      sourceCodeStart: excerpt.start,
      sourceCodeEnd: excerpt.end,
      githubUrl: permalink(input.repo, input.sha, first.path, excerpt.start, excerpt.end),
      documentation: null,
      triggerScenarios: null,
      commonSituations: null,
      solutions: [],
      exampleFix: null,
      handlingStrategy: null,
      validationCode: null,
      typeGuard: null,
      tryCatchPattern: null,
      preventionTips: [],
      tags: [],
      backgroundTag: null,
      analyzedSha: input.sha,
      analyzedAt: input.now,
      contentChangedAt: input.now,
      schemaVersion: 2,
    };
    const occurrences: Occurrence[] = sites.map((s) => ({
      filePath: s.path,
      lineNumber: s.line,
      githubUrl: permalink(input.repo, input.sha, s.path, s.line),
      kind: s.kind,
      context: s.context,
      ...(s.source === undefined ? {} : { source: s.source }),
    }));
    envelopes.push({ record, occurrences, datasetVersion: input.now });
  }
  return envelopes.sort((a, b) => compare(a.record.id, b.record.id));
}

/**
 * A previous version's envelope at the new commit: what build writes from the commit (the links,
 * `analyzedSha`, `datasetVersion`) is written again, everything else is kept, facts, analysis and
 * times included (the analyze stage checks the same-function records it was analysed with).
 * Note: the commit stands only in the texts `commitMarks` lists; carry.ts rebases bytes by them.
 */
function atCommit(before: Envelope, input: BuildInput): Envelope {
  const r = before.record;
  return {
    ...before,
    record: { ...r, githubUrl: permalink(input.repo, input.sha, r.filePath, r.sourceCodeStart, r.sourceCodeEnd), analyzedSha: input.sha },
    occurrences: before.occurrences.map((o) => ({ ...o, githubUrl: permalink(input.repo, input.sha, o.filePath, o.lineNumber) })),
    datasetVersion: input.now,
  };
}

/**
 * Record fields that say where the record is or when it was made, not what it is: a record whose
 * other fields are equal has the same content, wherever the code moved.
 * Note: `occurrences` (an envelope field) are left out too: another call site raising the same
 * message changes where the panic is raised, not what a reader of the record learns.
 */
export const LOCATION_AND_TIME_FIELDS: ReadonlySet<string> = new Set(["filePath", "lineNumber", "sourceCodeStart", "sourceCodeEnd", "githubUrl", "analyzedSha", "analyzedAt", "contentChangedAt"]);

/**
 * The content of a record: every field but the location and time fields, in schema order. The
 * message, pattern, excerpt text and analysis fields are content; so a panic moved with its
 * surrounding code keeps its content, and an edit inside its excerpt changes it.
 */
export function contentOf(record: CatalogRecord): Record<string, unknown> {
  // Note: text written from the location (analysis fields quoting `path:line` or "line 12") is
  // location too: it is read with the record's own line replaced by `#`, so a moved record whose
  // text differs only there keeps its content.
  const line = String(record.lineNumber);
  const own = new RegExp(`(${escapeRegExp(record.filePath)}:|\\bline )${line}\\b`, "g");
  const unlocated = (v: unknown): unknown => (typeof v === "string" ? v.replace(own, "$1#") : Array.isArray(v) ? v.map(unlocated) : v);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (!LOCATION_AND_TIME_FIELDS.has(key)) out[key] = key === "sourceCode" ? value : unlocated(value);
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** True when two records have the same content (`contentOf`). Pure. */
export function sameContent(a: CatalogRecord, b: CatalogRecord): boolean {
  // Note: fields equal as they stand have equal content whatever the location; only records
  //   that differ somewhere are read without their own line (a regex per record and field).
  if (sameFields(a, b)) return true;
  return isDeepStrictEqual(contentOf(a), contentOf(b));
}

/** True when every field but the location and time fields is the same in both records. */
function sameFields(a: CatalogRecord, b: CatalogRecord): boolean {
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const key of keys) {
    if (LOCATION_AND_TIME_FIELDS.has(key)) continue;
    if (!(key in y)) return false;
    const [u, v] = [x[key], y[key]];
    if (u === v) continue;
    if (!Array.isArray(u) || !Array.isArray(v) || u.length !== v.length || u.some((item, i) => item !== v[i])) return false;
  }
  return true;
}

/**
 * 16 hex of SHA-256 over repo, error type and what identifies the runtime text (`messageKey`: its
 * literal text, holes and std's words, not the regex that spells it): stable while the code moves
 * around, and while the pattern of the same text is written better.
 */
export function recordId(repo: string, errorType: string, key: string): string {
  return createHash("sha256").update(`${repo}\0${errorType}\0${key}`).digest("hex").slice(0, 16);
}

/** The lines of a text, without their ends; a final line end starts no further line. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * `excerptOfLines(splitLines(text), line, context)` without splitting the whole text: `starts`
 * are the offsets where its lines start (after each line feed, 0 first). Pure.
 */
export function excerptOfText(text: string, starts: readonly number[], line: number, context: number): Excerpt {
  // Note: a final line feed starts no further line (`splitLines`).
  const count = starts.length > 1 && starts.at(-1) === text.length ? starts.length - 1 : starts.length;
  const start = Math.max(1, line - context);
  const end = Math.min(count, line + context);
  // The last line's end: before its line feed (and a carriage return before that), or the text's end.
  let to = end < starts.length ? starts[end]! - 1 : text.length;
  if (end < starts.length && text.charCodeAt(to - 1) === 13) to--;
  const code = text.slice(starts[start - 1], to);
  return { code: code.includes("\r") ? code.replace(/\r\n/g, "\n") : code, start, end };
}

/** Lines `line - context … line + context` of a file's lines, clipped to the file, joined by "\n". */
export function excerptOfLines(lines: readonly string[], line: number, context: number): Excerpt {
  const start = Math.max(1, line - context);
  const end = Math.min(lines.length, line + context);
  return { code: lines.slice(start - 1, end).join("\n"), start, end };
}

/**
 * The texts in which an envelope's JSON holds the commit `sha`: its links (`permalink`) and
 * `analyzedSha`. Nothing else an envelope holds is made from the commit.
 */
export function commitMarks(sha: string): [string, string] {
  return [`/blob/${sha}/`, `"analyzedSha":"${sha}"`];
}

/** `https://github.com/<repo>/blob/<sha>/<path>#L<start>[-L<end>]`. */
export function permalink(repo: string, sha: string, path: string, start: number, end?: number): string {
  const encoded = path.split("/").map(encodeURIComponent).join("/");
  return `https://github.com/${repo}/blob/${sha}/${encoded}#L${start}${end === undefined ? "" : `-L${end}`}`;
}

/** Path order (code units, as git sorts), then line, then column. */
export function bySourceOrder(a: Site, b: Site): number {
  return compare(a.path, b.path) || a.line - b.line || a.column - b.column;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
