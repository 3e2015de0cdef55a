/**
 * Build or carry: the records of a new version, as the carry plan says. Either the previous
 * version whole at the new commit (`carryWhole`), or the records built from the extracted sites
 * and analysed, taking from the previous version what the plan allows (`buildVersion`). Pure but
 * for what comes in as functions (reading texts and facts back) and the analyze stage's optional
 * language model.
 */
import type { SymbolsInput } from "./analyze/reach.js";
import { analyzeStage } from "./analyze/stage.js";
import { buildEnvelopes, type Excerpt, excerptPaths, groupSites } from "./build.js";
import { carriedExcerpts, rebased, reusedFrom, type Stamp, unchangedLines } from "./carry.js";
import { catalogued, fileCounts, siteCounts } from "./counts.js";
import { applyTestModules } from "./extract.js";
import type { TreeExtraction } from "./extract-pool.js";
import type { CarryPlan } from "./plan.js";
import { recordedPlan } from "./plan.js";
import type { PreviousVersion } from "./previous.js";
import { type MessageSources, previousFacts } from "./sources/index.js";
import type { AnalysisCounts, CarryPlan as RecordedPlan, Config, Envelope, ManifestCounts } from "./schema-types.generated.js";
import type { Site } from "./types.js";
import { jsonlParts } from "./write.js";
import type { WorkspaceLayout } from "./workspace/modules.js";

/** What a run writes as its version. */
export interface NewVersion {
  /** The manifest's counts (`records`: how many records `records` holds). */
  readonly counts: ManifestCounts;
  /** The envelopes to validate: all of them, or none when the records are carried over as bytes. */
  readonly envelopes: readonly Envelope[];
  /** The lines some of them take from the previous version: validated when first written. */
  readonly taken: ReadonlyMap<Envelope, Buffer>;
  /** The text of records.jsonl, in parts. */
  readonly records: Iterable<Uint8Array>;
  readonly analysis: AnalysisCounts;
  /** The plan as the manifest records it. */
  readonly carry: RecordedPlan;
}

/** The previous version at the new commit, when the plan is `whole`: its records as bytes, rebased. */
export function carryWhole(previous: PreviousVersion, plan: CarryPlan, to: Stamp): NewVersion {
  const records = plan.counts!.records;
  return {
    counts: plan.counts!,
    envelopes: [],
    taken: new Map(),
    records: [rebased(previous.records, previous.manifest, to)],
    // Note: the counts the analyze stage gives when it carries every analysis over.
    analysis: { static: records, llm: 0, llmCached: 0, llmFailed: 0, staticCarried: records },
    carry: recordedPlan(plan, { records, excerpts: records }),
  };
}

/** What `buildVersion` builds from. */
export interface BuildVersionInput {
  readonly repo: string;
  readonly stamp: Stamp;
  readonly config: Pick<Config, "contextLines" | "includeTestCode" | "analysis">;
  readonly cacheDir: string;
  readonly listing: { readonly listed: number; readonly skipped: number; readonly entries: readonly unknown[] };
  readonly extraction: TreeExtraction;
  readonly plan: CarryPlan;
  readonly previous: PreviousVersion | null;
  /** The sources of messages written away from their panics, over the whole tree (sources/). */
  readonly sources: MessageSources;
  /** The records' groups with their first sites' facts (read back where extraction dropped them). */
  readonly withFacts: (groups: ReadonlyMap<string, Site[]>) => Promise<Map<string, Site[]>>;
  /** The texts of files of the tree, by path. */
  readonly readTexts: (paths: readonly string[]) => Promise<string[]>;
  readonly log: (line: string) => void;
  /** The workspace's packages and module tree. */
  readonly layout?: WorkspaceLayout;
  /** The workspace's symbol index and tests, for entry points, docs and reproductions (analyze/reach.ts). */
  readonly symbols?: SymbolsInput;
}

/** The records built from the tree's sites and analysed, with what the plan lets them take from the previous version. */
export async function buildVersion(input: BuildVersionInput): Promise<NewVersion> {
  const { plan, config } = input;
  const carrying = plan.mode !== "none" && input.previous !== null;
  const previous = input.previous?.envelopes() ?? new Map<string, Envelope>();
  const results = applyTestModules(await input.sources.withSites(input.extraction.all(), input.readTexts, carrying ? previousFacts(previous, plan.unchanged) : undefined));
  const sites = results.flatMap((r) => r.sites);
  const found = groupSites(sites.filter((s) => catalogued(s, config.includeTestCode)));
  const counts: ManifestCounts = {
    ...fileCounts(input.listing, results.filter((r) => r.parseErrors).map((r) => r.path), input.extraction),
    ...siteCounts(sites, config.includeTestCode),
    records: found.size,
  };
  const carriedAt = carrying ? carriedExcerpts(previous, plan.unchanged) : () => undefined;
  const excerptAt = (p: string, line: number): Excerpt | undefined => input.extraction.excerpts.get(`${p}:${line}`) ?? carriedAt(p, line);
  // Note: only the files that hold a record's first site whose excerpt was neither kept at
  //   extraction nor can be carried over are read again; git reads them while the first sites'
  //   facts are read back.
  const paths = excerptPaths(found, (p, line) => excerptAt(p, line) !== undefined);
  const read = input.readTexts(paths);
  // Note: a failed read is thrown where it is awaited below, not as an unhandled rejection.
  read.catch(() => {});
  const groups = await input.withFacts(found);
  const texts = new Map((await read).map((text, i) => [paths[i]!, text]));
  let excerptsTaken = 0;
  for (const group of groups.values()) if (input.extraction.excerpts.get(`${group[0]!.path}:${group[0]!.line}`) === undefined && carriedAt(group[0]!.path, group[0]!.line) !== undefined) excerptsTaken++;
  const reuse = carrying ? reusedFrom(previous, plan.unchanged) : undefined;
  const built = buildEnvelopes({ repo: input.repo, sha: input.stamp.sha, contextLines: config.contextLines, groups, textOf: (p) => texts.get(p) ?? "", excerptAt, now: input.stamp.datasetVersion, ...(reuse ? { reuse } : {}) });
  const analysed = await analyzeStage({ envelopes: built, sites: [...groups.values()].flat(), now: input.stamp.datasetVersion, previous, carry: carrying && plan.analyses, ...(config.analysis?.llm ? { llm: config.analysis.llm } : {}), cacheDir: input.cacheDir, log: input.log, ...(input.layout ? { layout: input.layout } : {}), ...(input.symbols ? { symbols: input.symbols } : {}) });
  const lineOf = carrying ? unchangedLines(previous, (e) => input.previous!.lineOf(e), input.previous!.manifest, input.stamp) : () => null;
  const taken = new Map<Envelope, Buffer>();
  for (const e of analysed.envelopes) {
    const line = lineOf(e);
    if (line !== null) taken.set(e, line);
  }
  return {
    counts,
    envelopes: analysed.envelopes,
    taken,
    records: jsonlParts(analysed.envelopes, (e) => taken.get(e) ?? null),
    analysis: analysed.counts,
    carry: recordedPlan(plan, { records: taken.size, excerpts: excerptsTaken }),
  };
}
