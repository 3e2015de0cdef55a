/**
 * The manifest's counts: of the files of a run (listed, read, parsed, reused, with parse errors),
 * of the tree's sites (by kind, context and, for those without a record, reason) and of the
 * records; and the counts of a version that carries the previous one, shifted by the sites of
 * the files that changed. Pure.
 */
import type { ManifestCounts, ReasonCounts, SiteKind, SkipReason } from "./schema-types.generated.js";
import { recordKey } from "./build.js";
import type { Site } from "./types.js";

/** The counts of a tree's sites. */
export type SiteCounts = Pick<ManifestCounts, "sites" | "sitesInTokenTrees" | "sitesByKind" | "sitesByContext" | "sitesWithoutRecord" | "sitesWithoutRecordByKind">;

/** The counts of the files of a run. */
export type FileCounts = Omit<ManifestCounts, keyof SiteCounts | "records">;

/** What the counts read of the tree: how many files it lists, skips and reads. */
export interface TreeCounted {
  readonly listed: number;
  readonly skipped: number;
  readonly entries: readonly unknown[];
}

/** How much of the tree a run parsed and took from the extraction cache. */
export interface ExtractionWork {
  readonly parsed: number;
  readonly reused: number;
}

/** True for a site that is a record's: it has one (`recordKey`), in code that is catalogued. */
export function catalogued(site: Site, includeTestCode: boolean): boolean {
  return recordKey(site) !== null && inCatalogue(site, includeTestCode);
}

/** True for a site in code that is catalogued: library code, or any with `includeTestCode`. */
export function inCatalogue(site: Site, includeTestCode: boolean): boolean {
  return includeTestCode || site.context === "library";
}

/** The counts of the files of a run: listed, read, parsed, reused, and those with parse errors (`errorFiles`: paths in tree order). */
export function fileCounts(tree: TreeCounted, errorFiles: readonly string[], work: ExtractionWork): FileCounts {
  return {
    filesListed: tree.listed,
    filesRead: tree.entries.length,
    filesSkipped: tree.skipped,
    filesParsed: work.parsed,
    filesReused: work.reused,
    filesWithParseErrors: errorFiles.length,
    parseErrorFiles: [...errorFiles],
  };
}

/** The counts of `sites`: by kind, context and, for those without a record, reason; tallies with keys in sorted order (so the manifest's text is stable). */
export function siteCounts(sites: readonly Site[], includeTestCode: boolean): SiteCounts {
  // Note: a site without text of its own has its place's record: only one outside the catalogue is without.
  const reasonOf = (s: Site): SkipReason | null => (recordKey(s) === null ? s.skip : null) ?? (inCatalogue(s, includeTestCode) ? null : "excluded-context");
  const withoutRecord: SkipReason[] = [];
  const reasonsByKind = new Map<SiteKind, SkipReason[]>();
  for (const s of sites) {
    const reason = reasonOf(s);
    if (reason === null) continue;
    withoutRecord.push(reason);
    const list = reasonsByKind.get(s.kind);
    if (list === undefined) reasonsByKind.set(s.kind, [reason]);
    else list.push(reason);
  }
  const byKind: Partial<Record<SiteKind, ReasonCounts>> = {};
  for (const kind of [...reasonsByKind.keys()].sort()) byKind[kind] = tally(reasonsByKind.get(kind)!);
  return {
    sites: sites.length,
    sitesInTokenTrees: sites.filter((s) => s.inTokenTree).length,
    sitesByKind: tally(sites.map((s) => s.kind)),
    sitesByContext: tally(sites.map((s) => s.context)),
    sitesWithoutRecord: tally(withoutRecord),
    sitesWithoutRecordByKind: byKind,
  };
}

/** How many times each key comes, keys in sorted order. */
function tally<K extends string>(keys: readonly K[]): Partial<Record<K, number>> {
  const counts = new Map<K, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  const out: Partial<Record<K, number>> = {};
  for (const k of [...counts.keys()].sort()) out[k] = counts.get(k)!;
  return out;
}

/** How many of the sites `counts` counts are a record's occurrence: all but those without a record. */
export function occurrencesOf(counts: SiteCounts): number {
  return counts.sites - Object.values(counts.sitesWithoutRecord).reduce((n, k) => n + (k ?? 0), 0);
}

/**
 * `counts` with the sites `out` counts taken out and those `into` counts put in, tallies as
 * `siteCounts` makes them (keys in sorted order, none at 0); null when a count would fall below 0
 * (`out` is not part of `counts`).
 */
export function shiftedCounts(counts: SiteCounts, out: SiteCounts, into: SiteCounts): SiteCounts | null {
  let below = false;
  const shift = (n: number, minus: number, plus: number) => {
    const v = n - minus + plus;
    if (v < 0) below = true;
    return v;
  };
  const shiftTally = <K extends string>(n: Partial<Record<K, number>>, minus: Partial<Record<K, number>>, plus: Partial<Record<K, number>>): Partial<Record<K, number>> => {
    const result: Partial<Record<K, number>> = {};
    for (const k of [...new Set([...Object.keys(n), ...Object.keys(minus), ...Object.keys(plus)] as K[])].sort()) {
      const v = shift(n[k] ?? 0, minus[k] ?? 0, plus[k] ?? 0);
      if (v > 0) result[k] = v;
    }
    return result;
  };
  const byKind: SiteCounts["sitesWithoutRecordByKind"] = {};
  const kinds = [...new Set([...Object.keys(counts.sitesWithoutRecordByKind), ...Object.keys(out.sitesWithoutRecordByKind), ...Object.keys(into.sitesWithoutRecordByKind)] as SiteKind[])].sort();
  for (const kind of kinds) {
    const reasons = shiftTally(counts.sitesWithoutRecordByKind[kind] ?? {}, out.sitesWithoutRecordByKind[kind] ?? {}, into.sitesWithoutRecordByKind[kind] ?? {});
    if (Object.keys(reasons).length > 0) byKind[kind] = reasons;
  }
  const shifted: SiteCounts = {
    sites: shift(counts.sites, out.sites, into.sites),
    sitesInTokenTrees: shift(counts.sitesInTokenTrees, out.sitesInTokenTrees, into.sitesInTokenTrees),
    sitesByKind: shiftTally(counts.sitesByKind, out.sitesByKind, into.sitesByKind),
    sitesByContext: shiftTally(counts.sitesByContext, out.sitesByContext, into.sitesByContext),
    sitesWithoutRecord: shiftTally(counts.sitesWithoutRecord, out.sitesWithoutRecord, into.sitesWithoutRecord),
    sitesWithoutRecordByKind: byKind,
  };
  return below ? null : shifted;
}
