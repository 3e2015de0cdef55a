/**
 * Wires the stages: config → fetch → read → extract (through the cache of cache.ts) → build →
 * analyze → validate → write, with the previous version read back for the timestamps it carries
 * over; and, for the other commands, index → diff and version → verify.
 * Each stage is a function of its own file; this one only passes values along and reports.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { ANALYZER_VERSION, analyzeStage, carriesAnalysis } from "./analyze/stage.js";
import { buildEnvelopes, type Excerpt, excerptOfText, excerptPaths, groupSites } from "./build.js";
import { type Rebase, rebasedLines, rebasedRecords } from "./carry.js";
import { type CacheWriter, cached, type ExtractCache, extractCachePath, loadExtractCache, openCacheWriter } from "./cache.js";
import { loadConfig, resolveTarget } from "./config.js";
import { PipelineError } from "./errors.js";
import { applyTestModules, EXTRACTOR_VERSION } from "./extract.js";
import { startPool } from "./extract-pool.js";
import { diffDatasets } from "./diff.js";
import { fetchRepo } from "./fetch.js";
import { lockFolder } from "./lock.js";
import { composePattern } from "./message.js";
import { packageRoot } from "./paths.js";
import { type BlobReader, listFiles, openBlobReader, type TreeEntry } from "./read.js";
import type { AnalysisCounts, Config, Diff, Envelope, Manifest, ManifestCounts, ReasonCounts, SiteKind, SkipReason, Target, VersionEntry } from "./schema-types.generated.js";
import { lineStartsOf } from "./tree-view.js";
import type { FileSites, Site } from "./types.js";
import { validate } from "./validate.js";
import { verifyVersion } from "./verify.js";
import { invalidDataset, jsonlParts, nextVersionName, parseRecordLines, readIndex, readVersion, readVersionFiles, repoDir, writeVersion } from "./write.js";

/** What `run` analyses and where it writes; every field has a default from the config. */
export interface RunOptions {
  /** Path of config.json (default `config.json` in the working directory). */
  readonly configPath?: string;
  /** `owner/name` of the target to run (default: the first). */
  readonly target?: string;
  /** Replaces the target's url: a local mirror or any git URL. */
  readonly source?: string;
  /** Replaces the target's pinned SHA. */
  readonly sha?: string;
  /** Replaces the config's output folder. */
  readonly out?: string;
  /** Write a new version even when the newest one is up to date. */
  readonly force?: boolean;
  /** Plain progress lines. */
  readonly log?: (line: string) => void;
  /** Progress of long stages, for a bar. */
  readonly progress?: (stage: string, done: number, total: number) => void;
  /** The clock (tests pin it). */
  readonly now?: () => Date;
  /**
   * Threads to extract on, the calling thread and `threads - 1` parse threads (default: the calling
   * thread alone, tree-sitter parsing on libuv's thread pool beside it); the output is the same
   * for any number.
   */
  readonly threads?: number;
  /**
   * Called once before extracting a tree of thousands of files (the CLI tunes V8's heap for it:
   * `--heap-growing-percent`).
   */
  readonly beforeLargeTree?: () => void;
}

/** What `run` did: wrote a version, or found the newest one up to date. */
export interface RunResult {
  readonly status: "written" | "up-to-date";
  readonly repo: string;
  readonly version: string;
  /** The version folder. */
  readonly dir: string;
  readonly manifest: Manifest | null;
}

/**
 * The pipeline's version, as written into manifests and compared for "up to date": the package
 * version, then the extractor's and the analyzer's (`0.1.0+x8.a1`).
 */
export const PIPELINE_VERSION = `${(JSON.parse(readFileSync(path.join(packageRoot(), "package.json"), "utf8")) as { version: string }).version}+x${EXTRACTOR_VERSION}.a${ANALYZER_VERSION}`;

/** Runs the pipeline for one target and writes a dataset version (unless it is up to date). */
export async function run(options: RunOptions = {}): Promise<RunResult> {
  const log = options.log ?? (() => {});
  const now = (options.now ?? (() => new Date()))().toISOString();
  const configPath = path.resolve(options.configPath ?? "config.json");
  const loaded = await loadConfig(configPath);
  if (!loaded.ok) throw new PipelineError("E_CONFIG", `${path.relative(process.cwd(), configPath) || configPath} is not a valid configuration`, { details: loaded.errors, hint: "fix the lines above; schemas/config.schema.json describes every field" });
  const config = loaded.value;
  const resolved = resolveTarget(config, options.target);
  if (!resolved.ok) throw new PipelineError("E_USAGE", resolved.errors[0] ?? "unknown target", { details: resolved.errors.slice(1) });
  const target: Target = { ...resolved.value, ...(options.sha ? { sha: options.sha } : {}) };
  if (!/^[0-9a-f]{40}$/.test(target.sha)) {
    throw new PipelineError("E_USAGE", `--sha ${target.sha} is not a full commit SHA`, { hint: "give all 40 lowercase hex digits (git rev-parse <ref> prints them)" });
  }
  const baseDir = path.dirname(configPath);
  const outDir = path.resolve(options.out ?? path.resolve(baseDir, config.output));
  const configHash = hashConfig(config, target);

  // Note: one run at a time reads the index and writes a version into this output folder.
  await using _output = await lockFolder(repoDir(outDir, target.repo), "the output folder", { log });
  const index = await readIndex(outDir, target.repo);
  const newest = index.versions.at(-1);
  if (!options.force && newest && newest.sha === target.sha && newest.configHash === configHash && newest.pipelineVersion === PIPELINE_VERSION) {
    log(`${target.repo} at ${target.sha.slice(0, 12)} is up to date (version ${newest.version}); use --force to write a new version`);
    return { status: "up-to-date", repo: target.repo, version: newest.version, dir: path.join(outDir, ...target.repo.split("/"), newest.version), manifest: null };
  }

  const source = options.source ?? target.url;
  const cacheDir = path.resolve(baseDir, config.cacheDir);
  const cacheFile = extractCachePath(cacheDir, target.repo);
  // Note: the extraction cache and the previous version are read while git answers (neither
  //   needs the clone), and the previous version while extraction runs. What it can lend:
  //   timestamps always; analysis fields and excerpts only when the same pipeline and settings wrote it.
  const cacheRead = loadExtractCache(cacheFile, target.repo, EXTRACTOR_VERSION, config.includeTestCode);
  const previousRead = newest ? readPrevious(outDir, target.repo, newest) : Promise.resolve(NO_PREVIOUS);
  previousRead.catch(() => {});
  const fetched = await fetchRepo({ repo: target.repo, source, sha: target.sha, cacheDir, log });
  log(`reading ${target.repo} at ${target.sha.slice(0, 12)}`);
  const [listing, loadedCache] = await Promise.all([listFiles({ gitDir: fetched.gitDir, sha: target.sha, include: target.include, exclude: target.exclude }), cacheRead]);
  if (loadedCache.problem) log(loadedCache.problem);
  const carry = newest !== undefined && newest.configHash === configHash && newest.pipelineVersion === PIPELINE_VERSION;
  // Files whose blob is the one they had in the previous version's tree (the cache is of that tree).
  const unchanged = new Set<string>();
  if (carry && loadedCache.cache.sha === newest.sha) {
    for (const e of listing.entries) if (cached(loadedCache.cache, e)) unchanged.add(e.path);
  }
  // Note: a cache that cannot be written costs the next run time, not this run: facts stay in memory.
  const writer = await openCacheWriter(cacheFile, { repo: target.repo, sha: target.sha, extractorVersion: EXTRACTOR_VERSION, includeTestCode: config.includeTestCode }).catch((error: Error) => {
    log(`could not write the extraction cache ${cacheFile}: ${error.message}`);
    return null;
  });
  try {
    const written = await produce();
    await writer?.commit().catch((error: Error) => log(`could not save the extraction cache ${cacheFile}: ${error.message}`));
    return written;
  } catch (error) {
    await writer?.discard();
    throw error;
  }

  /** Everything from reading the tree to writing the version; the cache is committed after it. */
  async function produce(): Promise<RunResult> {
    const { counts, groups, carried, previous, texts, excerptAt, lineOf } = await extracted();
    if (carried !== null) {
      const records = counts.records;
      log(`no record changed since ${newest!.version}: its ${records} records are carried over to the new commit`);
      // Note: the counts the analyze stage gives when it carries every analysis over.
      return await write({ counts, envelopes: [], records: [carried], analysis: { static: records, llm: 0, llmCached: 0, llmFailed: 0, staticCarried: records } });
    }
    const built = buildEnvelopes({ repo: target.repo, sha: target.sha, contextLines: config.contextLines, groups, textOf: (p) => texts.get(p) ?? "", excerptAt, now, reuse: reusedFrom(previous, unchanged) });
    const { envelopes, counts: analysis } = await analyzeStage({ envelopes: built, sites: [...groups.values()].flat(), now, previous, carry, ...(config.analysis?.llm ? { llm: config.analysis.llm } : {}), cacheDir, log });
    const taken = new Map<Envelope, Buffer>();
    for (const e of envelopes) {
      const line = lineOf?.(e) ?? null;
      if (line !== null) taken.set(e, line);
    }
    return await write({ counts, envelopes, taken, records: jsonlParts(envelopes, (e) => taken.get(e) ?? null), analysis });
  }

  /**
   * The tree's sites, counted, and what the records are built from: their groups with their first
   * sites' facts, the texts of the files their excerpts come from, or the previous records as bytes.
   * Note: the sites of the whole tree are dropped when this returns, once counted. At 8 times burn
   *   they are most of the live heap after extraction, but the peak falls only by about 3 MiB
   *   (176–180 against 177–188, 4 runs each): V8 keeps the pages they held for what comes next.
   */
  async function extracted(): Promise<Extracted> {
    const reader = openBlobReader(fetched.gitDir);
    try {
      const extraction = await extractTree(listing.entries, loadedCache.cache, writer, reader, { threads: options.threads, progress: options.progress, beforeLargeTree: options.beforeLargeTree, log, contextLines: config.contextLines });
      log(`extracted ${listing.entries.length} files: ${extraction.parsed} parsed, ${extraction.reused} reused from the cache`);
      const before = await previousRead;
      const whole = carriedWhole(before, extraction);
      if (whole !== null) return { counts: whole.counts, groups: new Map(), carried: whole.records, previous: new Map(), texts: new Map() };
      const results = applyTestModules(extraction.all());
      let groups = recordGroups(results, config.includeTestCode);
      const counts = countSites(listing, results, results.flatMap((r) => r.sites), config.includeTestCode, groups.size, extraction);
      const previous = before.envelopes();
      const lineOf = unchangedLines(before, previous, { sha: target.sha, datasetVersion: now });
      const carriedAt = carriedExcerpts(previous, unchanged);
      const excerptAt = (p: string, line: number) => extraction.excerpts.get(`${p}:${line}`) ?? carriedAt(p, line);
      // Note: only the files that hold a record's first site whose excerpt was neither kept at
      //   extraction nor can be carried over are read again; git reads them while the first sites'
      //   facts are read back.
      const paths = excerptPaths(groups, (p, line) => excerptAt(p, line) !== undefined);
      const blobOf = new Map(listing.entries.map((e) => [e.path, e.blob]));
      const read = reader.read(paths.map((p) => blobOf.get(p)!));
      // Note: a failed read is thrown where it is awaited below, not as an unhandled rejection.
      read.catch(() => {});
      if (writer !== null) groups = await withFirstFacts(groups, writer, cacheFile);
      const excerptTexts = await read;
      return { counts, groups, carried: null, previous, texts: new Map(paths.map((p, i) => [p, excerptTexts[i]!])), excerptAt, lineOf };
    } finally {
      await reader.close();
    }
  }

  /**
   * The records of the previous version at the new commit, as bytes (`rebasedRecords`), with the
   * version's counts, when no record changed: the previous records are those of the tree the
   * cache is of (this pipeline and these settings wrote them from it, analysis carried over), and
   * each is taken whole. Null otherwise: the records are built and analysed.
   * Note: no record changed when no file that changed (or came, or went) holds a record's site,
   *   before or now, nor declares other test modules than it did: every record's sites are then
   *   in files whose blobs did not change, the same sites, whose contexts the same declarations
   *   decide (`applyTestModules`), in the same order. Sites are read as extraction gives them,
   *   before those declarations: more of them count as records', never fewer.
   * Note: only the changed files' sites are read. The counts are the previous version's with the
   *   changed files' sites taken out and put in again as they are now (`shiftedCounts`), and the
   *   files' counts of this run; the cache's entries of other files are never parsed.
   */
  function carriedWhole(previous: Previous, extraction: Extraction): { records: Buffer; counts: ManifestCounts } | null {
    if (!carry || !carriesAnalysis(config.analysis?.llm) || previous.manifest === null || loadedCache.cache.sha !== newest!.sha) return null;
    const cache = loadedCache.cache;
    const changedNow = extraction.fresh;
    const changedBefore = [...cache.heads.keys()].filter((p) => !unchanged.has(p)).map((p) => cache.entry(p)!);
    const holdsRecord = (files: readonly FileSites[]) => files.some((f) => f.sites.some((s) => catalogued(s, config.includeTestCode)));
    if (holdsRecord(changedNow) || holdsRecord(changedBefore)) return null;
    const declared = (files: readonly { path: string; testModules: readonly string[] }[]) => new Map(files.flatMap((f) => (f.testModules.length > 0 ? [[f.path, f.testModules]] : [])));
    if (!isDeepStrictEqual(declared(changedBefore), declared(changedNow))) return null;
    // The declarations of the whole tree, now as before: those of the files that did not change, and the changed files'.
    const declaring = [...[...unchanged].map((p) => cache.heads.get(p)!), ...changedNow];
    const countsOf = (files: readonly FileSites[]) => siteCounts(applyTestModules(files, declaring).flatMap((f) => f.sites), config.includeTestCode);
    const errorFiles = new Set(previous.manifest.counts.parseErrorFiles);
    for (const f of changedBefore) if (f.parseErrors) errorFiles.delete(f.path);
    for (const f of changedNow) if (f.parseErrors) errorFiles.add(f.path);
    const parseErrorFiles = listing.entries.flatMap((e) => (errorFiles.has(e.path) ? [e.path] : []));
    const shifted = shiftedCounts(previous.manifest.counts, countsOf(changedBefore), countsOf(changedNow));
    if (shifted === null) return null;
    const counts: ManifestCounts = { ...fileCounts(listing, parseErrorFiles, extraction), ...shifted, records: previous.manifest.counts.records };
    const occurrences = counts.sites - Object.values(counts.sitesWithoutRecord).reduce((n, k) => n + (k ?? 0), 0);
    const records = rebasedRecords(previous.records, previous.manifest, counts.records, occurrences, { sha: target.sha, datasetVersion: now });
    return records === null ? null : { records, counts };
  }

  /** Validates the version and writes it. */
  async function write({ counts, envelopes, taken, records, analysis }: NewVersion): Promise<RunResult> {
    const version = await nextVersionName(outDir, target.repo, index, target.sha);
    const manifest: Manifest = {
      repo: target.repo,
      sha: target.sha,
      parentSha: newest?.sha ?? null,
      version,
      datasetVersion: now,
      schemaVersion: 2,
      pipelineVersion: PIPELINE_VERSION,
      configHash,
      counts,
      analysis,
    };
    const entry: VersionEntry = { version, sha: target.sha, parent: newest?.version ?? null, datasetVersion: now, records: counts.records, configHash, pipelineVersion: PIPELINE_VERSION };

    assertValid(envelopes, taken ?? new Map(), manifest, entry, target.repo, index.versions);
    // Note: the cache file goes to disk while the version is written; it is put in place after.
    void writer?.sync().catch(() => {});
    const dir = await writeVersion(outDir, { manifest, records }, entry);
    log(`wrote ${counts.records} records to ${dir}`);
    return { status: "written", repo: target.repo, version, dir, manifest };
  }
}

/** A hash of what in the config shapes the dataset (not the source url: any clone gives the same data). */
export function hashConfig(config: Config, target: Target): string {
  // Note: a language model writes other prose than the static analyzer, so an enabled one (and
  // which) is part of the shape; left out when off, so the default config keeps its hash.
  const llm = config.analysis?.llm;
  const shape = { repo: target.repo, include: target.include, exclude: target.exclude, contextLines: config.contextLines, includeTestCode: config.includeTestCode, ...(llm?.enabled ? { llm: { endpoint: llm.endpoint, model: llm.model } } : {}) };
  return createHash("sha256").update(JSON.stringify(shape)).digest("hex").slice(0, 16);
}

/**
 * The records' groups of sites, each first site with its facts: read back from the cache file,
 * where the run dropped them (sites extracted in this run; the analysis reads no others).
 */
async function withFirstFacts(groups: ReadonlyMap<string, Site[]>, writer: CacheWriter, cacheFile: string): Promise<Map<string, Site[]>> {
  const firsts = [...groups.values()].map((group) => group[0]!).filter((s) => s.facts == null);
  if (firsts.length === 0) return new Map(groups);
  const facts = await writer.factsOf(firsts).catch((error: Error) => {
    throw new PipelineError("E_IO", `could not write the extraction cache ${cacheFile}, which holds the facts of this run's sites`, {
      hint: "check that the cache folder is writable and the disk has room; earlier versions are untouched",
      details: [error.message],
    });
  });
  return new Map(
    [...groups].map(([pattern, [first, ...rest]]) => {
      const f = facts.get(first!);
      return [pattern, f === undefined ? [first!, ...rest] : [{ ...first!, facts: f }, ...rest]];
    }),
  );
}

/**
 * The line of records.jsonl an envelope takes from the previous version: when it is the previous
 * envelope with only the commit's values written again, taken whole (`reusedFrom`; its facts are
 * that very object, as the analysis carried it over) with the related ids it had. That line is
 * the previous one with the commit replaced (`rebasedLines`), validated when it was written. Null
 * for any other envelope, and for all when the previous bytes are not the ones its manifest
 * recorded (hashed when the first such envelope asks).
 */
function unchangedLines(before: Previous, previous: ReadonlyMap<string, Envelope>, to: Rebase): (e: Envelope) => Buffer | null {
  let rebase: ReturnType<typeof rebasedLines> | undefined;
  return (e) => {
    const b = previous.get(e.record.id);
    if (b === undefined || e.facts === undefined || e.facts !== b.facts || !isDeepStrictEqual(e.relatedIds, b.relatedIds)) return null;
    const line = before.lineOf(b);
    if (line === undefined || before.manifest === null) return null;
    rebase ??= rebasedLines(before.records, before.manifest, to);
    return rebase === null ? null : rebase(line, e.occurrences.length);
  };
}

/** The excerpts known without reading: in a file whose blob did not change, a previous record's at its line. Pure. */
function carriedExcerpts(previous: ReadonlyMap<string, Envelope>, unchanged: ReadonlySet<string>): (path: string, line: number) => Excerpt | undefined {
  const kept = new Map<string, Excerpt>();
  if (unchanged.size > 0) {
    for (const { record: r } of previous.values()) if (unchanged.has(r.filePath)) kept.set(`${r.filePath}:${r.lineNumber}`, { code: r.sourceCode, start: r.sourceCodeStart, end: r.sourceCodeEnd });
  }
  return (p, line) => kept.get(`${p}:${line}`);
}

/**
 * The previous envelope of a record whose sites are the ones it had (same places, kinds and
 * contexts, in order), all in files whose blob did not change: its first site's facts are then
 * the ones it was analysed with. Pure.
 * Note: `unchanged` is empty unless the previous version was written by this pipeline with these
 * settings from the tree the cache is of.
 */
function reusedFrom(previous: ReadonlyMap<string, Envelope>, unchanged: ReadonlySet<string>): ((id: string, sites: readonly Site[]) => Envelope | undefined) | undefined {
  if (unchanged.size === 0) return undefined;
  return (id, sites) => {
    const before = previous.get(id);
    if (before?.facts === undefined || before.occurrences.length !== sites.length || before.record.errorMessage !== (sites[0]!.message ?? "")) return undefined;
    const same = sites.every((s, k) => {
      const o = before.occurrences[k]!;
      return unchanged.has(s.path) && o.filePath === s.path && o.lineNumber === s.line && o.kind === s.kind && o.context === s.context;
    });
    return same ? before : undefined;
  };
}

/** What extraction of a whole tree gave, and how much of it came from the cache. */
interface Extraction {
  /** Per-file sites before `applyTestModules`, in tree order; without facts when `writer` has them. The cache's entries are read here. */
  all(): FileSites[];
  /** Those of the files extracted in this run (not in the cache), in tree order. */
  readonly fresh: readonly FileSites[];
  /** Files parsed with tree-sitter in this run. */
  readonly parsed: number;
  /** Files taken from the cache. */
  readonly reused: number;
  /**
   * The excerpts of the first sites that took facts in this run, one per pattern (those that are
   * the records' first sites), by `<path>:<line>`, cut while their file's text was at hand.
   */
  readonly excerpts: ReadonlyMap<string, Excerpt>;
}

/**
 * Extracts every file, taking what it can from `cache` (path and blob must match) and sending
 * the rest to the parse threads. Blobs are streamed from `reader` in parts, so only a part's
 * texts are in memory at a time; each result goes to the cache `writer` in tree order as soon as
 * it and the files before it are done, and is kept without its facts (null writer: kept whole).
 */
async function extractTree(
  entries: readonly TreeEntry[],
  cache: ExtractCache,
  writer: CacheWriter | null,
  reader: BlobReader,
  { threads, progress, beforeLargeTree, log, contextLines }: Pick<RunOptions, "threads" | "progress" | "beforeLargeTree"> & { readonly log: (line: string) => void; readonly contextLines: number },
): Promise<Extraction> {
  // Note: an entry of the cache is read when the run asks for all files' sites (`all`), if ever.
  const results: (FileSites | null)[] = entries.map(() => null);
  const misses = entries.flatMap((e, i) => (cached(cache, e) ? [] : [i]));
  const fresh = new Set(misses);
  const reused = entries.length - misses.length;
  // Note: by default the calling thread extracts every file, with tree-sitter's parse on libuv's
  //   thread pool beside it: a parse thread (a worker) costs its own start and JIT warm-up and
  //   competes with that pool for the second core. 4 and 8 times burn: 1.88–1.94 s against
  //   1.99–2.17 s on two threads, 3.30–3.57 s against 3.61–3.77 s, and 154–162 MiB against
  //   164–170, 171–177 against 181–183 (3 runs each, in turns).
  if (misses.length >= LARGE_TREE_FILES) beforeLargeTree?.();
  const pool = startPool(threads ?? 1, { includeTestCode: cache.includeTestCode }, { log });
  /** For each pattern, the first of its sites that took facts (in tree order) and its excerpt. */
  const firsts = new Map<string, { readonly at: number; readonly line: number; readonly key: string; readonly excerpt: Excerpt }>();
  /**
   * Keeps the excerpt of each pattern's first site that took facts, copied away from its file's
   * text (`at`: the file's index in the tree): that site is its record's first, unless a
   * declaration elsewhere makes it test code (its file is then read again).
   * Note: 1042 excerpts for burn's 6538 sites, 1.38 M characters, its 1037 records' among them;
   *   so no file is read from git again for them (303 files, 5.7 MB, whose reading the run waited
   *   for: 705 against 746 ms, medians of 11 in turns). One per pattern: 8 times burn keeps as many.
   */
  const keepExcerpts = (r: FileSites, text: string, at: number) => {
    let starts: number[] | undefined;
    for (const s of r.sites) {
      if (s.facts == null || s.runtime === null) continue;
      const pattern = composePattern(s.runtime);
      const known = firsts.get(pattern);
      if (known !== undefined && (known.at < at || (known.at === at && known.line <= s.line))) continue;
      starts ??= lineStartsOf(text);
      const excerpt = excerptOfText(text, starts, s.line, contextLines);
      firsts.set(pattern, { at, line: s.line, key: `${r.path}:${s.line}`, excerpt: { ...excerpt, code: structuredClone(excerpt.code) } });
    }
  };
  /** Results up to this index have gone to the writer. */
  let next = 0;
  const handOver = (through: number) => {
    for (; next <= through; next++) {
      if (!fresh.has(next)) {
        // Note: an entry taken from the cache is written as it was read.
        writer?.carry(entries[next]!.path, cache.lines.get(entries[next]!.path)!);
        continue;
      }
      const r = results[next]!;
      if (writer === null) {
        // Note: kept whole, so copied away from the file's text (`ExtractPool.extract`).
        results[next] = structuredClone(r);
        continue;
      }
      // Note: a fresh one is kept without what the run does not need.
      writer.add(r);
      results[next] = { ...r, sites: r.sites.map((s) => keptOf(s, cache.includeTestCode, r.path)) };
    }
  };
  try {
    let done = reused;
    let parsed = 0;
    // Note: parts are read from git one after another, the next asked for as soon as one arrives,
    // and handed to the threads at once; at most three parts' texts are alive, so memory does not
    // grow with the size of the tree.
    const inFlight: { readonly last: number; readonly done: Promise<void> }[] = [];
    const readPart = (k: number) => (k < misses.length ? reader.read(misses.slice(k, k + PART_FILES).map((i) => entries[i]!.blob)) : Promise.resolve([]));
    let nextTexts = readPart(0);
    for (let k = 0; k < misses.length; k += PART_FILES) {
      const part = misses.slice(k, k + PART_FILES);
      const texts = await nextTexts;
      nextTexts = readPart(k + PART_FILES);
      const files = part.map((i, j) => ({ ...entries[i]!, text: texts[j]! }));
      let reported = 0;
      const extracting = pool
        .extract(files, (n) => {
          done += n - reported;
          reported = n;
          progress?.("extract", done, entries.length);
        })
        .then((fresh) => {
          fresh.forEach((r, j) => {
            results[part[j]!] = r;
            keepExcerpts(r, files[j]!.text, part[j]!);
          });
          parsed += fresh.filter((r) => r.parsed).length;
        });
      inFlight.push({ last: part.at(-1)!, done: extracting });
      if (inFlight.length >= 2) {
        const oldest = inFlight.shift()!;
        await oldest.done;
        handOver(oldest.last);
      }
    }
    for (const { last, done: extracting } of inFlight) {
      await extracting;
      handOver(last);
    }
    handOver(entries.length - 1);
    const excerpts = new Map([...firsts.values()].map((f) => [f.key, f.excerpt]));
    return { all: () => results.map((r, i) => r ?? cache.entry(entries[i]!.path)!), fresh: misses.map((i) => results[i]!), parsed, reused, excerpts };
  } finally {
    await pool.close();
  }
}

/**
 * What the run keeps of a site of the file at `path` once the cache file has it whole: no facts (a
 * record's first site gets its facts back from the file), and for a site that can never be
 * catalogued (test, bench or example code, unless catalogued), only what the counts read: its
 * message and runtime parts go.
 * Note: most sites are test code; so memory grows with the tree by a small object per site. Its
 * strings are shared: a site copied from a thread has copies of its own of its kind, path and
 * context. Its message and runtime parts are copied, as they may be slices of the file's text.
 */
function keptOf(site: Site, includeTestCode: boolean, path: string): Site {
  const { message, runtime } = inCatalogue(site, includeTestCode) && (site.message !== null || site.runtime !== null) ? structuredClone({ message: site.message, runtime: site.runtime }) : { message: null, runtime: null };
  return {
    kind: shared(site.kind),
    path,
    line: site.line,
    column: site.column,
    inTokenTree: site.inTokenTree,
    context: shared(site.context),
    message,
    runtime,
    skip: site.skip === null ? null : shared(site.skip),
    facts: null,
  };
}

/** One copy of each of the few words sites repeat (kinds, contexts, skip reasons). */
const words = new Map<string, string>();
function shared<T extends string>(word: T): T {
  const known = words.get(word);
  if (known !== undefined) return known as T;
  words.set(word, word);
  return word;
}

/** From how many files to extract on, a tree is large (`RunOptions.beforeLargeTree`). */
const LARGE_TREE_FILES = 3072;

/** How many files' texts are read from git at a time. */
const PART_FILES = 128;

/** What extraction leaves for the build (`extracted` in `run`). */
interface Extracted {
  readonly counts: ManifestCounts;
  /** The records' groups of sites, each first site with its facts (not when `carried`). */
  readonly groups: Map<string, Site[]>;
  /** The previous records at the new commit, when no record changed (`carriedWhole`); else null. */
  readonly carried: Buffer | null;
  /** The previous version's envelopes by record id. */
  readonly previous: Map<string, Envelope>;
  /** The texts of the files that excerpts are cut from. */
  readonly texts: ReadonlyMap<string, string>;
  /** The excerpts known without reading (`carriedExcerpts`). */
  readonly excerptAt?: (path: string, line: number) => Excerpt | undefined;
  /** The line an envelope takes from the previous version (`unchangedLines`). */
  readonly lineOf?: (e: Envelope) => Buffer | null;
}

/** What a run writes as its version. */
interface NewVersion {
  /** The manifest's counts (`records`: how many records `records` holds). */
  readonly counts: ManifestCounts;
  /** The envelopes to validate: all of them, or none when the records are carried over as bytes. */
  readonly envelopes: readonly Envelope[];
  /** The lines some of them take from the previous version (`unchangedLines`): validated when first written. */
  readonly taken?: ReadonlyMap<Envelope, Buffer>;
  /** The text of records.jsonl, in parts. */
  readonly records: Iterable<string | Uint8Array>;
  readonly analysis: AnalysisCounts;
}

/** The newest version as a run reads it: what the analyze stage carries timestamps over from. */
interface Previous {
  /** Null when there is no previous version. */
  readonly manifest: Manifest | null;
  /** Its records.jsonl as bytes. */
  readonly records: Buffer;
  /** Its envelopes by record id, parsed when first asked for (a run that carries the bytes over never asks). */
  envelopes(): Map<string, Envelope>;
  /** The line of records.jsonl of the envelope `envelopes()` gave (its bytes, without the line break). */
  lineOf(envelope: Envelope): Buffer | undefined;
}

const NO_PREVIOUS: Previous = { manifest: null, records: Buffer.alloc(0), envelopes: () => new Map(), lineOf: () => undefined };

async function readPrevious(outDir: string, repo: string, newest: VersionEntry): Promise<Previous> {
  const dir = path.join(repoDir(outDir, repo), newest.version);
  const unreadable = (error: unknown) =>
    new PipelineError("E_INPUT", `could not read the previous dataset version ${dir}: ${(error as Error).message}`, {
      hint: "restore that folder (e.g. from the previous CI artifact), or check it with `error-catalog validate`; its records' timestamps are carried over",
    });
  let files: { manifest: Manifest; records: Buffer };
  try {
    files = await readVersionFiles(dir);
  } catch (error) {
    throw unreadable(error);
  }
  let parsed: Map<string, Envelope> | undefined;
  const lines = new Map<Envelope, Buffer>();
  return {
    ...files,
    envelopes() {
      try {
        parsed ??= new Map(parseRecordLines(files.records).map(({ envelope, line }) => (lines.set(envelope, line), [envelope.record.id, envelope])));
      } catch (error) {
        throw unreadable(error);
      }
      return parsed;
    },
    lineOf: (envelope) => lines.get(envelope),
  };
}

/** The records' groups of sites (`groupSites`) among the sites of these files. */
function recordGroups(results: readonly FileSites[], includeTestCode: boolean): Map<string, Site[]> {
  return groupSites(results.flatMap((r) => r.sites).filter((s) => catalogued(s, includeTestCode)));
}

/** True for a site that is a record's: it has a runtime message, in code that is catalogued. */
function catalogued(site: Site, includeTestCode: boolean): boolean {
  return site.runtime !== null && inCatalogue(site, includeTestCode);
}

/** True for a site in code that is catalogued: library code, or any with `includeTestCode`. */
function inCatalogue(site: Site, includeTestCode: boolean): boolean {
  return includeTestCode || site.context === "library";
}

/** The manifest's counts: the files' (`fileCounts`), the sites' (`siteCounts`) and the records'. */
function countSites(tree: TreeCounted, results: readonly FileSites[], sites: readonly Site[], includeTestCode: boolean, records: number, work: { parsed: number; reused: number }): ManifestCounts {
  return { ...fileCounts(tree, results.filter((r) => r.parseErrors).map((r) => r.path), work), ...siteCounts(sites, includeTestCode), records };
}

/** What the counts read of the tree: how many files it lists, skips and reads. */
type TreeCounted = { readonly listed: number; readonly skipped: number; readonly entries: readonly unknown[] };

/** The counts of the files of a run: listed, read, parsed, reused, and those with parse errors (paths in tree order). */
function fileCounts(tree: TreeCounted, errorFiles: string[], work: { parsed: number; reused: number }): Omit<ManifestCounts, keyof SiteCounts | "records"> {
  return {
    filesListed: tree.listed,
    filesRead: tree.entries.length,
    filesSkipped: tree.skipped,
    filesParsed: work.parsed,
    filesReused: work.reused,
    filesWithParseErrors: errorFiles.length,
    parseErrorFiles: errorFiles,
  };
}

/** The counts of a tree's sites. */
type SiteCounts = Pick<ManifestCounts, "sites" | "sitesInTokenTrees" | "sitesByKind" | "sitesByContext" | "sitesWithoutRecord" | "sitesWithoutRecordByKind">;

/** The counts of `sites`: by kind, context and, for those without a record, reason; tallies with keys in sorted order (so the manifest's text is stable). */
function siteCounts(sites: readonly Site[], includeTestCode: boolean): SiteCounts {
  /** How many times each key comes, keys in sorted order. */
  const tally = <K extends string>(keys: readonly K[]) => {
    const counts = new Map<K, number>();
    for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
    const out: Partial<Record<K, number>> = {};
    for (const k of [...counts.keys()].sort()) out[k] = counts.get(k)!;
    return out;
  };
  const reasonOf = (s: Site): SkipReason | null => s.skip ?? (inCatalogue(s, includeTestCode) ? null : "excluded-context");
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

/**
 * `counts` with the sites `out` counts taken out and those `into` counts put in, tallies as
 * `siteCounts` makes them (keys in sorted order, none at 0); null when a count would fall below 0
 * (`out` is not part of `counts`).
 */
function shiftedCounts(counts: SiteCounts, out: SiteCounts, into: SiteCounts): SiteCounts | null {
  let below = false;
  const shift = (n: number, minus: number, plus: number) => {
    const v = n - minus + plus;
    if (v < 0) below = true;
    return v;
  };
  const tally = <K extends string>(n: Partial<Record<K, number>>, minus: Partial<Record<K, number>>, plus: Partial<Record<K, number>>): Partial<Record<K, number>> => {
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
    const reasons = tally(counts.sitesWithoutRecordByKind[kind] ?? {}, out.sitesWithoutRecordByKind[kind] ?? {}, into.sitesWithoutRecordByKind[kind] ?? {});
    if (Object.keys(reasons).length > 0) byKind[kind] = reasons;
  }
  const shifted: SiteCounts = {
    sites: shift(counts.sites, out.sites, into.sites),
    sitesInTokenTrees: shift(counts.sitesInTokenTrees, out.sitesInTokenTrees, into.sitesInTokenTrees),
    sitesByKind: tally(counts.sitesByKind, out.sitesByKind, into.sitesByKind),
    sitesByContext: tally(counts.sitesByContext, out.sitesByContext, into.sitesByContext),
    sitesWithoutRecord: tally(counts.sitesWithoutRecord, out.sitesWithoutRecord, into.sitesWithoutRecord),
    sitesWithoutRecordByKind: byKind,
  };
  return below ? null : shifted;
}

/**
 * Validates everything before a byte is written (but the lines `taken` from the previous version,
 * validated when it was written); a failure is a pipeline bug (E_SCHEMA).
 */
function assertValid(envelopes: readonly Envelope[], taken: ReadonlyMap<Envelope, Buffer>, manifest: Manifest, entry: VersionEntry, repo: string, earlier: readonly VersionEntry[]): void {
  const errors: string[] = [];
  envelopes.forEach((e, i) => {
    if (taken.has(e)) return;
    const r = validate("envelope.v2", e, `records.jsonl:${i + 1}`);
    if (!r.ok) errors.push(...r.errors);
  });
  const m = validate("manifest", manifest, "manifest.json");
  if (!m.ok) errors.push(...m.errors);
  const v = validate("versions", { repo, versions: [...earlier, entry] }, "versions.json");
  if (!v.ok) errors.push(...v.errors);
  if (errors.length > 0) throw invalidDataset(errors);
}

/** Where a command reads datasets from: the config's output folder (or `out`) and a target. */
export interface OutputOptions {
  /** Path of config.json (default `config.json` in the working directory). */
  readonly configPath?: string;
  /** `owner/name` (default: the config's first target). */
  readonly repo?: string;
  /** Replaces the config's output folder. */
  readonly out?: string;
}

/** The output folder and repository a command works on, from the config and the options. */
export async function resolveOutput(options: OutputOptions): Promise<{ outDir: string; repo: string }> {
  const configPath = path.resolve(options.configPath ?? "config.json");
  const loaded = await loadConfig(configPath);
  if (!loaded.ok) throw new PipelineError("E_CONFIG", `${path.relative(process.cwd(), configPath) || configPath} is not a valid configuration`, { details: loaded.errors });
  const resolved = resolveTarget(loaded.value, options.repo);
  if (!resolved.ok) throw new PipelineError("E_USAGE", resolved.errors[0] ?? "unknown target");
  return { outDir: path.resolve(options.out ?? path.resolve(path.dirname(configPath), loaded.value.output)), repo: resolved.value.repo };
}

/** Which two versions `diffVersions` compares. */
export interface DiffOptions extends OutputOptions {
  /** The older version: a version name or a unique prefix of one (default: the one before `new`). */
  readonly old?: string;
  /** The newer version (default: the newest). */
  readonly new?: string;
}

/**
 * Compares two versions of a repository's datasets; by default the two newest. With a single
 * version in the index, everything in it is `added`. Throws E_INPUT when there is no version or a
 * name matches none.
 */
export async function diffVersions(options: DiffOptions): Promise<Diff> {
  if (options.old === undefined && options.new !== undefined) {
    throw new PipelineError("E_USAGE", "give OLD too when giving NEW", { hint: "error-catalog diff OLD NEW; with no names it compares the two newest versions" });
  }
  const { outDir, repo } = await resolveOutput(options);
  const index = await readIndex(outDir, repo);
  if (index.versions.length === 0) throw new PipelineError("E_INPUT", `there is no dataset version of ${repo} in ${outDir}`, { hint: "run `error-catalog run` first, or pass --out with the folder that holds the datasets" });
  const newer = options.new === undefined ? index.versions.length - 1 : findVersion(index.versions, options.new, outDir);
  const older = options.old === undefined ? (options.new === undefined ? newer - 1 : -1) : findVersion(index.versions, options.old, outDir);
  const load = async (i: number) => {
    const entry = index.versions[i]!;
    return { version: entry.version, ...(await readVersion(path.join(repoDir(outDir, repo), entry.version))) };
  };
  const diff = diffDatasets({ old: older < 0 ? null : await load(older), new: await load(newer) });
  const checked = validate("diff", diff, "diff");
  if (!checked.ok) throw new PipelineError("E_SCHEMA", "the diff failed validation", { details: checked.errors.slice(0, 20), hint: "this is a bug in error-catalog: please report it with these lines" });
  return diff;
}

function findVersion(versions: readonly VersionEntry[], name: string, outDir: string): number {
  const exact = versions.findIndex((v) => v.version === name);
  if (exact >= 0) return exact;
  const matches = versions.flatMap((v, i) => (v.version.startsWith(name) ? [i] : []));
  if (matches.length === 1) return matches[0]!;
  const known = versions.map((v) => v.version).join(", ");
  throw new PipelineError("E_INPUT", matches.length === 0 ? `no dataset version ${name} in ${outDir}` : `${name} names more than one version`, { hint: `versions: ${known}` });
}

/** Which version `validateDataset` checks. */
export interface ValidateDatasetOptions extends OutputOptions {
  /** A version folder; default: the newest version of the repository. */
  readonly dir?: string;
}

/** Checks a dataset version (see verify.ts); returns its folder, record count and problems. */
export async function validateDataset(options: ValidateDatasetOptions): Promise<{ dir: string; records: number; problems: string[] }> {
  let dir: string;
  if (options.dir !== undefined) {
    dir = path.resolve(options.dir);
  } else {
    const { outDir, repo } = await resolveOutput(options);
    const newest = (await readIndex(outDir, repo)).versions.at(-1);
    if (newest === undefined) throw new PipelineError("E_INPUT", `there is no dataset version of ${repo} in ${outDir}`, { hint: "run `error-catalog run` first, or give the version folder" });
    dir = path.join(repoDir(outDir, repo), newest.version);
  }
  const label = path.relative(process.cwd(), dir) || dir;
  const result = await verifyVersion(dir, label);
  return { dir, ...result };
}
