/**
 * Stage diff: what changed between two dataset versions. Pure:
 * datasets in, a `Diff` (schemas/diff.schema.json) out; diff-markdown.ts and sarif.ts render it.
 *
 * Classes, for records by id:
 * - in both versions: `changed` when the content (`contentOf`, see build.ts) or the occurrences'
 *   kinds and contexts differ; else `moved` when a location differs (file, line, excerpt range,
 *   permalink lines, occurrence locations); else unchanged. A new `analyzedSha` alone is no change.
 * - in one version only: `added` / `removed`, except pairs taken as `reworded`: a removed and an
 *   added record in the same file, around mostly the same code, with a near-identical message.
 */
import { contentOf, LOCATION_AND_TIME_FIELDS } from "./build.js";
import type { Diff, DiffChanged, DiffFieldChange, DiffMoved, DiffRecord, DiffReworded, DiffSide, Envelope } from "./schema-types.generated.js";
import type { Dataset } from "./write.js";

/** Messages at least this alike (1 − edit distance / longer length) may be a rewording. */
export const REWORD_MIN_SIMILARITY = 0.75;
/**
 * Excerpts sharing at least this share of their lines (the site's own line left out) are the same
 * place. Note: comparing excerpts, not line numbers, keeps a pair together when edits elsewhere
 * in the file shifted it, and keeps apart two similar messages far apart in one file.
 */
export const REWORD_MIN_PLACE = 0.5;

/** The version names of the two sides; the old side may be missing (nothing to compare with). */
export interface DiffInput {
  readonly old: (Dataset & { readonly version: string }) | null;
  readonly new: Dataset & { readonly version: string };
}

/** Compares two dataset versions of one repository. Pure; every list is sorted by id. */
export function diffDatasets(input: DiffInput): Diff {
  const oldEnvelopes = input.old?.envelopes ?? [];
  const newEnvelopes = input.new.envelopes;
  const before = new Map(oldEnvelopes.map((e) => [e.record.id, e]));
  const after = new Map(newEnvelopes.map((e) => [e.record.id, e]));

  const changed: DiffChanged[] = [];
  const moved: DiffMoved[] = [];
  let unchanged = 0;
  const onlyNew: Envelope[] = [];
  for (const b of newEnvelopes) {
    const a = before.get(b.record.id);
    if (a === undefined) {
      onlyNew.push(b);
      continue;
    }
    const fields = changedFields(a, b);
    if (fields.length > 0) changed.push({ id: b.record.id, old: refOf(a), new: refOf(b), fields });
    else if (locationKey(a) !== locationKey(b)) moved.push({ id: b.record.id, old: refOf(a), new: refOf(b) });
    else unchanged++;
  }
  const onlyOld = oldEnvelopes.filter((e) => !after.has(e.record.id));
  const reworded = pairRewordings(onlyOld, onlyNew);
  const paired = new Set(reworded.flatMap((r) => [r.old.id, r.new.id]));
  const added = onlyNew.filter((e) => !paired.has(e.record.id)).map(refOf);
  const removed = onlyOld.filter((e) => !paired.has(e.record.id)).map(refOf);

  const byId = <T extends { id: string }>(x: T, y: T) => compare(x.id, y.id);
  return {
    repo: input.new.manifest.repo,
    old: sideOf(input.old),
    new: sideOf(input.new),
    counts: { added: added.length, removed: removed.length, changed: changed.length, moved: moved.length, reworded: reworded.length, unchanged },
    added: added.sort(byId),
    removed: removed.sort(byId),
    changed: changed.sort(byId),
    moved: moved.sort(byId),
    reworded: reworded.sort((x, y) => compare(x.old.id, y.old.id)),
  };
}

/** True when the diff has anything but unchanged records. */
export function hasDifferences(diff: Diff): boolean {
  const c = diff.counts;
  return c.added + c.removed + c.changed + c.moved + c.reworded > 0;
}

function sideOf(side: (Dataset & { readonly version: string }) | null): DiffSide {
  return side === null ? { version: null, sha: null, records: 0 } : { version: side.version, sha: side.manifest.sha, records: side.envelopes.length };
}

function refOf(e: Envelope): DiffRecord {
  const r = e.record;
  return { id: r.id, errorMessage: r.errorMessage, messagePattern: r.messagePattern, kind: e.occurrences[0]!.kind, filePath: r.filePath, lineNumber: r.lineNumber, githubUrl: r.githubUrl, occurrences: e.occurrences.length };
}

/** The content fields that differ, in record order, then `occurrences` when kinds or contexts differ. */
function changedFields(a: Envelope, b: Envelope): DiffFieldChange[] {
  const before = contentOf(a.record);
  const after = contentOf(b.record);
  const keys = [...Object.keys(after), ...Object.keys(before).filter((k) => !(k in after))];
  const fields: DiffFieldChange[] = [];
  const raw = (r: Envelope["record"], field: string) => (r as unknown as Record<string, unknown>)[field];
  for (const field of keys) {
    // Note: compared as content (a quoted own line reads as `#`), shown as written.
    if (JSON.stringify(shown(before[field])) !== JSON.stringify(shown(after[field]))) fields.push({ field, old: shown(raw(a.record, field)), new: shown(raw(b.record, field)) });
  }
  const x = occurrenceSummary(a);
  const y = occurrenceSummary(b);
  if (JSON.stringify(x) !== JSON.stringify(y)) fields.push({ field: "occurrences", old: x, new: y });
  return fields;
}

/** `kind context` per occurrence, sorted: what the occurrences say apart from where they are. */
function occurrenceSummary(e: Envelope): string[] {
  return e.occurrences.map((o) => `${o.kind} ${o.context}`).sort();
}

/** Everything that says where a record and its occurrences are. */
function locationKey(e: Envelope): string {
  const where = Object.entries(e.record).filter(([k]) => LOCATION_AND_TIME_FIELDS.has(k) && k !== "analyzedSha" && k !== "analyzedAt" && k !== "contentChangedAt");
  // Note: permalinks hold the SHA, so they are compared without it (a new SHA alone is no move).
  const unpinned = (v: unknown) => (typeof v === "string" ? v.replace(/\/blob\/[0-9a-f]{40}\//, "/blob/-/") : v);
  return JSON.stringify([where.map(([k, v]) => [k, unpinned(v)]), e.occurrences.map((o) => [o.filePath, o.lineNumber, unpinned(o.githubUrl)])]);
}

/** A value as DiffFieldChange shows it: strings, null and string lists as they are, others as JSON text. */
function shown(value: unknown): string | null | string[] {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
  return JSON.stringify(value);
}

/**
 * Pairs removed and added records that are one rewording: same file, excerpts mostly alike,
 * messages near-identical. Greedy on the best message similarity, then the best place, then the
 * nearest line; each record is in at most one pair.
 * Note: a pair is weighed only when its excerpts can share half their lines (`placeCandidates`),
 *   and its messages are compared only when its places are alike: a file with many records
 *   costs the pairs near each other, not every pair.
 */
function pairRewordings(removed: readonly Envelope[], added: readonly Envelope[]): DiffReworded[] {
  const candidates: { a: Envelope; b: Envelope; similarity: number; place: number; distance: number }[] = [];
  const addedByFile = new Map<string, Envelope[]>();
  for (const b of added) {
    const list = addedByFile.get(b.record.filePath);
    if (list) list.push(b);
    else addedByFile.set(b.record.filePath, [b]);
  }
  const removedByFile = new Map<string, Envelope[]>();
  for (const a of removed) {
    const list = removedByFile.get(a.record.filePath);
    if (list) list.push(a);
    else removedByFile.set(a.record.filePath, [a]);
  }
  for (const [file, olds] of removedByFile) {
    const news = addedByFile.get(file);
    if (news === undefined) continue;
    const oldLines = olds.map(excerptLines);
    const newLines = news.map(excerptLines);
    placeCandidates(oldLines, newLines, (i, j) => {
      const [a, b] = [olds[i]!, news[j]!];
      const place = placeOf(oldLines[i]!, newLines[j]!);
      if (place < REWORD_MIN_PLACE) return;
      const [x, y] = [textOf(a), textOf(b)];
      // Note: an edit distance is at least the difference of the lengths.
      const longest = Math.max(Math.min(x.length, 1000), Math.min(y.length, 1000));
      if (longest > 0 && 1 - Math.abs(Math.min(x.length, 1000) - Math.min(y.length, 1000)) / longest < REWORD_MIN_SIMILARITY) return;
      const similarity = messageSimilarity(x, y);
      if (similarity < REWORD_MIN_SIMILARITY) return;
      candidates.push({ a, b, similarity, place, distance: Math.abs(a.record.lineNumber - b.record.lineNumber) });
    });
  }
  candidates.sort((x, y) => y.similarity - x.similarity || y.place - x.place || x.distance - y.distance || compare(x.a.record.id, y.a.record.id) || compare(x.b.record.id, y.b.record.id));
  const used = new Set<string>();
  const pairs: DiffReworded[] = [];
  for (const c of candidates) {
    if (used.has(c.a.record.id) || used.has(c.b.record.id)) continue;
    used.add(c.a.record.id).add(c.b.record.id);
    pairs.push({ old: refOf(c.a), new: refOf(c.b), similarity: Math.round(c.similarity * 1000) / 1000 });
  }
  return pairs;
}

function textOf(e: Envelope): string {
  return e.record.errorMessage !== "" ? e.record.errorMessage : e.record.messagePattern;
}

/** 1 − Levenshtein distance / longer length, over at most the first 1,000 characters of each. Pure. */
export function messageSimilarity(a: string, b: string): number {
  const x = a.slice(0, 1000);
  const y = b.slice(0, 1000);
  const longest = Math.max(x.length, y.length);
  if (longest === 0) return 1;
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    for (let j = 1; j <= y.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return 1 - row[y.length]! / longest;
}

/** A record's excerpt lines, trimmed, blank ones and the site's own line left out: how many of each, and how many in all. */
interface ExcerptLines {
  readonly counts: ReadonlyMap<string, number>;
  readonly total: number;
}

function excerptLines(e: Envelope): ExcerptLines {
  const lines = e.record.sourceCode.split("\n");
  lines.splice(e.record.lineNumber - e.record.sourceCodeStart, 1);
  const counts = new Map<string, number>();
  let total = 0;
  for (const line of lines) {
    const l = line.trim();
    if (l === "") continue;
    counts.set(l, (counts.get(l) ?? 0) + 1);
    total++;
  }
  return { counts, total };
}

/** The share of excerpt lines two records have in common (each line as often as both have it). */
function placeOf(x: ExcerptLines, y: ExcerptLines): number {
  const longest = Math.max(x.total, y.total);
  if (longest === 0) return 1;
  let common = 0;
  for (const [l, n] of y.counts) common += Math.min(n, x.counts.get(l) ?? 0);
  return common / longest;
}

/** Lines held by more excerpts of a file's added records than this are common; the others rare. */
const COMMON_LINE = 16;

/**
 * Calls `pair(i, j)` once for each old and new excerpt of one file that may share at least half
 * their lines (`REWORD_MIN_PLACE`), and for no pair that cannot (in no set order).
 * Note: a pair sharing no rare line shares only common ones; it is alike only when common lines
 *   are at least half of each excerpt (as many as `REWORD_MIN_PLACE` of the longer). So only
 *   pairs sharing a rare line, found through the lines' postings, and pairs of such excerpts,
 *   are weighed: far-apart records share only common lines (`}`, `};`), too few.
 */
function placeCandidates(olds: readonly ExcerptLines[], news: readonly ExcerptLines[], pair: (i: number, j: number) => void): void {
  const postings = new Map<string, number[]>();
  news.forEach((y, j) => {
    for (const l of y.counts.keys()) {
      const list = postings.get(l);
      if (list) list.push(j);
      else postings.set(l, [j]);
    }
  });
  const commonPart = (x: ExcerptLines) => {
    let n = 0;
    for (const [l, k] of x.counts) if ((postings.get(l)?.length ?? 0) > COMMON_LINE) n += k;
    return n;
  };
  const mostlyCommon = (x: ExcerptLines) => commonPart(x) >= REWORD_MIN_PLACE * x.total;
  const mostlyCommonNews = news.flatMap((y, j) => (mostlyCommon(y) ? [j] : []));
  const seen = new Int32Array(news.length).fill(-1);
  olds.forEach((x, i) => {
    const visit = (j: number) => {
      if (seen[j] === i) return;
      seen[j] = i;
      pair(i, j);
    };
    for (const l of x.counts.keys()) {
      const list = postings.get(l);
      if (list !== undefined && list.length <= COMMON_LINE) list.forEach(visit);
    }
    if (mostlyCommon(x)) mostlyCommonNews.forEach(visit);
  });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

