/**
 * A version in which no record changed, written from the previous version's bytes, and the lines
 * of the records that did not change in one where others did. Pure.
 *
 * When every record's sites are the ones it had, in files whose blobs did not change, the build
 * and analyze stages give back each previous envelope with only the commit's values written
 * again (`rebased` in build.ts, the analysis carried whole): the commit in the links and in
 * `analyzedSha`, and the dataset version. Then records.jsonl is the previous file with those
 * values replaced, and reading, validating and writing a thousand envelopes again is skipped.
 * The bytes are taken only when their SHA-256 is the one the previous manifest recorded when
 * the file was written and validated; anything else goes the long way.
 */
import { createHash } from "node:crypto";
import type { Manifest } from "./schema-types.generated.js";

/** The new version's commit and dataset version. */
export interface Rebase {
  readonly sha: string;
  readonly datasetVersion: string;
}

/**
 * The previous records.jsonl (`bytes`, of the version `previous` describes) with its commit and
 * dataset version replaced by `to`'s; null when the bytes are not the ones the manifest
 * recorded, or do not hold the previous commit exactly where the records put it: once per
 * record in `analyzedSha` and in its link, once per occurrence (`occurrences` in all) in its link.
 * Note: both values are ASCII and of one length (40 hex digits; `toISOString`'s 24 characters),
 * so a copy of the bytes is overwritten where they stand; a multi-byte character is never
 * touched, and the two cannot overlap (a run of hex digits never crosses the quotes around a
 * time). Another length would mean another format: the long way.
 */
export function rebasedRecords(bytes: Buffer, previous: Manifest, records: number, occurrences: number, to: Rebase): Buffer | null {
  const swaps = swapsOf(previous, to);
  return swaps !== null && recorded(bytes, previous) ? rebased(bytes, swaps, records, occurrences) : null;
}

/**
 * When only some records changed: a line of the previous records.jsonl (`bytes`) rebased as
 * `rebasedRecords` rebases the whole file (one record with `occurrences` occurrences), for a
 * record whose envelope is the previous one with the commit's values written again; null when
 * the line does not hold them where the record puts them. Null itself when the bytes are not
 * the ones the manifest recorded.
 */
export function rebasedLines(bytes: Buffer, previous: Manifest, to: Rebase): ((line: Buffer, occurrences: number) => Buffer | null) | null {
  const swaps = swapsOf(previous, to);
  return swaps !== null && recorded(bytes, previous) ? (line, occurrences) => rebased(line, swaps, 1, occurrences) : null;
}

/** True when `bytes` are the records.jsonl whose SHA-256 the manifest recorded. */
function recorded(bytes: Buffer, previous: Manifest): boolean {
  return previous.recordsSha256 !== undefined && createHash("sha256").update(bytes).digest("hex") === previous.recordsSha256;
}

/** What is replaced, by what: the commit, then the dataset version; null when the lengths differ (another format). */
function swapsOf(previous: Manifest, to: Rebase): [Buffer, Buffer][] | null {
  const swaps: [Buffer, Buffer][] = [
    [Buffer.from(previous.sha), Buffer.from(to.sha)],
    [Buffer.from(`"datasetVersion":${JSON.stringify(previous.datasetVersion)}`), Buffer.from(`"datasetVersion":${JSON.stringify(to.datasetVersion)}`)],
  ];
  return swaps.some(([from, into]) => from.length !== into.length) ? null : swaps;
}

/** A copy of `bytes` (lines of `records` records) with `swaps` made, or null when they do not stand where expected. */
function rebased(bytes: Buffer, swaps: readonly [Buffer, Buffer][], records: number, occurrences: number): Buffer | null {
  const expected = [2 * records + occurrences, records];
  const found = swaps.map(([needle]) => offsetsOf(bytes, needle));
  if (found.some((offsets, k) => offsets.length !== expected[k])) return null;
  const out = Buffer.from(bytes);
  found.forEach((offsets, k) => {
    for (const at of offsets) swaps[k]![1].copy(out, at);
  });
  return out;
}

/** Where `needle` occurs in `bytes`, left to right, without overlaps. */
function offsetsOf(bytes: Buffer, needle: Buffer): number[] {
  const out: number[] = [];
  for (let i = bytes.indexOf(needle); i >= 0; i = bytes.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}
