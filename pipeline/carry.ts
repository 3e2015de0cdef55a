/**
 * Carrying out the carry plan (plan.ts): what a new version takes from the previous one. Pure.
 *
 * A record taken from the previous version is its envelope with only the commit's values written
 * again (`atCommit` in build.ts): the commit in its links and in `analyzedSha`, and the dataset
 * version. Its bytes are then the previous line with those values replaced, so reading,
 * validating and writing the envelope again is skipped. The previous version's files were checked
 * when read (previous.ts); the replacement is made only where build.ts says the commit stands
 * (`commitMarks`), and only in records that hold the commit nowhere else (`rebasable`), so a field
 * that comes to hold the commit for another reason turns the byte carry off, visibly (the plan's
 * reason in the manifest), instead of being rewritten.
 */
import { commitMarks, type Excerpt, recordMessage } from "./build.js";
import type { Envelope } from "./schema-types.generated.js";
import type { Site } from "./types.js";

/** The commit and dataset version of a version: the values a record takes from it. */
export interface Stamp {
  readonly sha: string;
  readonly datasetVersion: string;
}

/** True when the records' bytes hold the commit `sha` only where `commitMarks` put it. */
export function rebasable(bytes: Buffer, sha: string): boolean {
  return rebasableBy(marksOf(sha))(bytes);
}

/** The commit's marks as bytes, and the commit itself. */
interface Marks {
  readonly marks: readonly Buffer[];
  readonly sha: Buffer;
}

function marksOf(sha: string): Marks {
  return { marks: commitMarks(sha).map((mark) => Buffer.from(mark)), sha: Buffer.from(sha) };
}

/** `rebasable` for one commit's marks, made once for many records' bytes. */
function rebasableBy({ marks, sha }: Marks): (bytes: Buffer) => boolean {
  return (bytes) => marks.reduce((n, mark) => n + countOf(bytes, mark), 0) === countOf(bytes, sha);
}

/**
 * Records' bytes (a whole records.jsonl, or one line of it) stamped `from`, with `to`'s commit and
 * dataset version in place of `from`'s. Callers check `rebasable` first.
 */
export function rebased(bytes: Buffer, from: Stamp, to: Stamp): Buffer {
  return rebasing(from, to)(bytes);
}

/** `rebased` from one stamp to another, its replacements made once for many records' bytes. */
function rebasing(from: Stamp, to: Stamp): (bytes: Buffer) => Buffer {
  const [before, after] = [commitMarks(from.sha), commitMarks(to.sha)];
  const swaps: [Buffer, Buffer][] = [
    ...before.map((mark, k): [Buffer, Buffer] => [Buffer.from(mark), Buffer.from(after[k]!)]),
    [Buffer.from(`"datasetVersion":${JSON.stringify(from.datasetVersion)}`), Buffer.from(`"datasetVersion":${JSON.stringify(to.datasetVersion)}`)],
  ];
  // Note: where every replacement is as long as what it replaces, they are made in one copy, one after another as `replaced` would.
  const inPlace = swaps.every(([needle, into]) => needle.length === into.length);
  return (bytes) => {
    if (!inPlace) return swaps.reduce((out, [needle, into]) => replaced(out, needle, into), bytes);
    let out: Buffer | null = null;
    for (const [needle, into] of swaps) {
      const within: Buffer = out ?? bytes;
      for (let i = within.indexOf(needle); i >= 0; i = within.indexOf(needle, i + needle.length)) {
        if (out === null) out = Buffer.from(bytes);
        into.copy(out, i);
      }
    }
    return out ?? bytes;
  };
}

/** `bytes` with every occurrence of `needle` replaced by `into` (a copy; `bytes` itself when there is none). */
function replaced(bytes: Buffer, needle: Buffer, into: Buffer): Buffer {
  const offsets = offsetsOf(bytes, needle);
  if (offsets.length === 0) return bytes;
  if (needle.length === into.length) {
    const out = Buffer.from(bytes);
    for (const at of offsets) into.copy(out, at);
    return out;
  }
  const parts: Buffer[] = [];
  let last = 0;
  for (const at of offsets) parts.push(bytes.subarray(last, at), into), (last = at + needle.length);
  parts.push(bytes.subarray(last));
  return Buffer.concat(parts);
}

/** Where `needle` occurs in `bytes`, left to right, without overlaps. */
function offsetsOf(bytes: Buffer, needle: Buffer): number[] {
  const out: number[] = [];
  for (let i = bytes.indexOf(needle); i >= 0; i = bytes.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

/** How often `needle` occurs in `bytes`, without overlaps. */
function countOf(bytes: Buffer, needle: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(needle); i >= 0; i = bytes.indexOf(needle, i + needle.length)) n++;
  return n;
}

/**
 * The excerpts known without reading: in a file whose blob did not change, a previous record's
 * at its line (`unchanged`: the plan's).
 */
export function carriedExcerpts(previous: ReadonlyMap<string, Envelope>, unchanged: ReadonlySet<string>): (path: string, line: number) => Excerpt | undefined {
  const kept = new Map<string, Excerpt>();
  if (unchanged.size > 0) {
    for (const { record: r } of previous.values()) if (unchanged.has(r.filePath)) kept.set(`${r.filePath}:${r.lineNumber}`, { code: r.sourceCode, start: r.sourceCodeStart, end: r.sourceCodeEnd });
  }
  return (p, line) => kept.get(`${p}:${line}`);
}

/**
 * The previous envelope of a record whose sites are the ones it had (same places, kinds and
 * contexts, in order), all in files whose blob did not change: its first site's facts are then
 * the ones it was analysed with. Undefined when no file is unchanged.
 */
export function reusedFrom(previous: ReadonlyMap<string, Envelope>, unchanged: ReadonlySet<string>): ((id: string, sites: readonly Site[]) => Envelope | undefined) | undefined {
  if (unchanged.size === 0) return undefined;
  return (id, sites) => {
    const before = previous.get(id);
    if (before?.facts === undefined || before.occurrences.length !== sites.length || before.record.errorMessage !== recordMessage(sites[0]!)) return undefined;
    const same = sites.every((s, k) => {
      const o = before.occurrences[k]!;
      return unchanged.has(s.path) && o.filePath === s.path && o.lineNumber === s.line && o.kind === s.kind && o.context === s.context;
    });
    return same ? before : undefined;
  };
}

/**
 * The line of records.jsonl an envelope takes from the previous version: when it is the previous
 * envelope with only the commit's values written again, taken whole (`reusedFrom`; its facts are
 * that very object, as the analysis carried it over) with the related ids it had, that line
 * rebased; null for any other envelope, and for one whose line holds the commit elsewhere.
 */
export function unchangedLines(previous: ReadonlyMap<string, Envelope>, lineOf: (e: Envelope) => Buffer | undefined, from: Stamp, to: Stamp): (e: Envelope) => Buffer | null {
  const canRebase = rebasableBy(marksOf(from.sha));
  const rebase = rebasing(from, to);
  return (e) => {
    const b = previous.get(e.record.id);
    if (b === undefined || e.facts === undefined || e.facts !== b.facts || !sameIds(e.relatedIds, b.relatedIds)) return null;
    const line = lineOf(b);
    return line === undefined || !canRebase(line) ? null : rebase(line);
  };
}

function sameIds(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
