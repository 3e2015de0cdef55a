/**
 * The carry plan: what a run takes from the previous version, decided in one place from what is
 * known once the tree is extracted. Pure: the previous version, the extraction cache, the settings,
 * the listing and the files extracted in this run in; a plan out, which the build and write
 * stages follow and the manifest records (`carry`).
 *
 * - `whole`: no record changed (no file that changed, came or went holds a record's site, before
 *   or now, nor declares other test modules than it did), so records.jsonl is the previous one at
 *   the new commit (`rebasedRecords`), and the counts are the previous ones shifted by the changed
 *   files' sites.
 * - `partial`: the previous version was made by this pipeline with these settings: a record whose
 *   sites are where they were, in files whose blobs did not change, is taken with its analysis;
 *   excerpts of such files are not read again; analyses whose inputs did not change are kept.
 * - `none`: everything is built anew.
 * In every mode, records whose content did not change keep their timestamps (analyze/index.ts).
 */
import type { ExtractCache } from "./cache.js";
import { catalogued, fileCounts, shiftedCounts, siteCounts } from "./counts.js";
import { applyTestModules } from "./extract.js";
import type { CarryPlan as RecordedPlan, Manifest, ManifestCounts, VersionEntry } from "./schema-types.generated.js";
import type { FileSites } from "./types.js";
import { isDeepStrictEqual } from "node:util";

/** How much a run may take from the previous version. */
export type CarryMode = RecordedPlan["mode"];

/** The plan: its mode, what it rests on, and for `whole` the new version's counts. */
export interface CarryPlan {
  readonly mode: CarryMode;
  /** The version taken from; null with `none`. */
  readonly from: string | null;
  readonly reason: string;
  /** Files whose blob is the one they had in the previous version's tree (empty unless the cache is of that tree). */
  readonly unchanged: ReadonlySet<string>;
  /** Analyses whose inputs did not change are kept (never with a language model on). */
  readonly analyses: boolean;
  /** With `whole`: the counts of the new version. */
  readonly counts: ManifestCounts | null;
}

/** What `planCarry` decides from. */
export interface CarryInput {
  /** The newest version, read and checked (previous.ts); null when there is none. */
  readonly previous: {
    readonly entry: VersionEntry;
    readonly manifest: Manifest;
    /** Its records hold its commit only where a new commit's values go (`rebasable` in carry.ts). */
    readonly rebasable: boolean;
  } | null;
  readonly configHash: string;
  readonly pipelineVersion: string;
  /** False with a language model on: it rewrites the prose, so no analysis is kept. */
  readonly analysesCarry: boolean;
  readonly includeTestCode: boolean;
  /** The extraction cache as loaded (before this run). */
  readonly cache: ExtractCache;
  /** The tree at the new commit. */
  readonly listing: { readonly entries: readonly { readonly path: string; readonly blob: string }[]; readonly listed: number; readonly skipped: number };
  /** What this run extracted: the files not in the cache, and the work done. */
  readonly extraction: { readonly fresh: readonly FileSites[]; readonly parsed: number; readonly reused: number };
  /** The most the run may take (`RunOptions.carry`): `whole` lets the plan choose. */
  readonly allow: CarryMode;
  /** True when a file's sites or symbols may change other files' records (it defines or calls a message source: `MessageSources.touches`; its calls, macros, tests or module declarations give other records' entry points and reproductions: `symbolsMatter`). */
  readonly touchesSources: (file: Pick<FileSites, "calls" | "wrappers" | "symbols">) => boolean;
  /** The key of the tree's `Cargo.toml` files (`manifestsKey`); absent: as the cache's. */
  readonly manifests?: string;
}

const NOTHING: ReadonlySet<string> = new Set();

/** Decides what the run takes from the previous version. */
export function planCarry(input: CarryInput): CarryPlan {
  const { previous } = input;
  const none = (reason: string): CarryPlan => ({ mode: "none", from: null, reason, unchanged: NOTHING, analyses: false, counts: null });
  if (previous === null) return none("there is no previous version");
  if (input.allow === "none") return none("the run was asked to take nothing");
  if (previous.entry.pipelineVersion !== input.pipelineVersion) return none(`${previous.entry.version} was made by another pipeline version (${previous.entry.pipelineVersion})`);
  if (previous.entry.configHash !== input.configHash) return none(`${previous.entry.version} was made with other settings`);
  const cacheOfPrevious = input.cache.sha === previous.entry.sha;
  const unchanged = cacheOfPrevious ? new Set(input.listing.entries.flatMap((e) => (input.cache.heads.get(e.path)?.blob === e.blob ? [e.path] : []))) : NOTHING;
  const partial = (reason: string): CarryPlan => ({ mode: "partial", from: previous.entry.version, reason, unchanged, analyses: input.analysesCarry, counts: null });
  if (input.allow === "partial") return partial("the run was asked to take no more than unchanged records");
  if (!input.analysesCarry) return partial("a language model rewrites the analyses");
  if (!cacheOfPrevious) return partial("the extraction cache is not of the previous version's tree");
  if (!previous.rebasable) return partial("the previous records hold its commit outside the values a new commit replaces");
  // Note: what a record says of its gates, crate and features was read against the `Cargo.toml` files: with another one, every analysis is made again.
  if (input.manifests !== undefined && input.cache.manifests !== input.manifests) return { ...partial("a `Cargo.toml` changed, came or went (the packages, features and module tree may differ)"), analyses: false };
  const counts = wholeCounts(input, unchanged);
  return counts === null ? partial("a file that changed holds a record's site or a message source, before or now, or declares other test modules or `mod` items") : { mode: "whole", from: previous.entry.version, reason: "no file that changed holds a record's site or declares other test modules", unchanged, analyses: true, counts };
}

/**
 * The counts of the new version when no record changed, else null.
 * Note: no record changed when no file that changed (or came, or went) holds a record's site,
 *   before or now, nor declares other test modules than it did: every record's sites are then in
 *   files whose blobs did not change, the same sites, whose contexts the same declarations decide
 *   (`applyTestModules`), in the same order. Sites are read as extraction gives them, before those
 *   declarations: more of them count as records', never fewer.
 * Note: only the changed files' sites are read: the counts are the previous version's with the
 *   changed files' sites taken out and put in again as they are now, and the files' counts of this run.
 */
function wholeCounts(input: CarryInput, unchanged: ReadonlySet<string>): ManifestCounts | null {
  const { cache, includeTestCode } = input;
  const before = input.previous!.manifest.counts;
  const changedNow = input.extraction.fresh;
  const changedBefore = [...cache.heads.keys()].filter((p) => !unchanged.has(p)).map((p) => cache.entry(p)!);
  // Note: a file that defines or calls a message source (a wrapper, a declared call) may change sites of other files, or have sites of its own only the tree's pass finds.
  const holdsRecord = (files: readonly FileSites[]) => files.some((f) => input.touchesSources(f) || f.sites.some((s) => catalogued(s, includeTestCode)));
  if (holdsRecord(changedNow) || holdsRecord(changedBefore)) return null;
  const declared = (files: readonly { path: string; testModules: readonly string[] }[]) => new Map(files.flatMap((f) => (f.testModules.length > 0 ? [[f.path, f.testModules]] : [])));
  if (!isDeepStrictEqual(declared(changedBefore), declared(changedNow))) return null;
  // Note: a file's `mod` items and item-wrapping macros place other files (their modules and gates): the same ones, the same places.
  const modules = (files: readonly FileSites[]) => new Map(files.flatMap((f) => (f.modules === undefined ? [] : [[f.path, f.modules]])));
  if (!isDeepStrictEqual(modules(changedBefore), modules(changedNow))) return null;
  // The declarations of the whole tree, now as before: those of the files that did not change, and the changed files'.
  const declaring = [...[...unchanged].map((p) => cache.heads.get(p)!), ...changedNow];
  const countsOf = (files: readonly FileSites[]) => siteCounts(applyTestModules(files, declaring).flatMap((f) => f.sites), includeTestCode);
  const errorFiles = new Set(before.parseErrorFiles);
  for (const f of changedBefore) if (f.parseErrors) errorFiles.delete(f.path);
  for (const f of changedNow) if (f.parseErrors) errorFiles.add(f.path);
  const parseErrorFiles = input.listing.entries.flatMap((e) => (errorFiles.has(e.path) ? [e.path] : []));
  const shifted = shiftedCounts(before, countsOf(changedBefore), countsOf(changedNow));
  return shifted === null ? null : { ...fileCounts(input.listing, parseErrorFiles, input.extraction), ...shifted, records: before.records };
}

/** The plan as the manifest records it, with what was taken. */
export function recordedPlan(plan: CarryPlan, taken: { readonly records: number; readonly excerpts: number }): RecordedPlan {
  return { mode: plan.mode, from: plan.from, reason: plan.reason, filesUnchanged: plan.unchanged.size, recordsTaken: taken.records, excerptsTaken: taken.excerpts };
}
