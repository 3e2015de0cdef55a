/**
 * Wires the stages of a run: settings → fetch → read (the tree, the cache, the parent version) →
 * extract → plan → build or carry (with analyze) → validate → write. Each step is a function of a
 * module of its own, with typed input and output; this one only passes values along and reports.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { ANALYZER_VERSION, carriesAnalysis } from "./analyze/stage.js";
import { buildVersion, carryWhole, type NewVersion } from "./assemble.js";
import { type CacheWriter, extractCachePath, loadExtractCache, openCacheWriter } from "./cache.js";
import { rebasable } from "./carry.js";
import { EXTRACTOR_VERSION } from "./extract.js";
import { extractTree, withFirstFacts } from "./extract-pool.js";
import { fetchRepo } from "./fetch.js";
import { newestAncestor } from "./lineage.js";
import { removeUnlisted } from "./leftovers.js";
import { lockFolder } from "./lock.js";
import { packageRoot } from "./paths.js";
import { type CarryMode, planCarry } from "./plan.js";
import { readPrevious } from "./previous.js";
import { listFiles, openBlobReader } from "./read.js";
import { MessageSources } from "./sources/index.js";
import { indexTree, symbolsMatter } from "./symbols/index.js";
import type { Manifest, VersionEntry, VersionsIndex } from "./schema-types.generated.js";
import { type RunSettings, runSettings, type SettingsOptions } from "./settings.js";
import { versionProblems } from "./validate.js";
import { manifestsKey, moduleOf, readWorkspace } from "./workspace/index.js";
import { invalidDataset, nextVersionName, readIndex, repoDir, writeVersion } from "./write.js";

/** What `run` analyses and where it writes; every field has a default from the config. */
export interface RunOptions extends SettingsOptions {
  /** Replaces the target's url: a local mirror or any git URL. */
  readonly source?: string;
  /** Write a new version even when the newest one is up to date. */
  readonly force?: boolean;
  /** The most the run may take from the previous version (plan.ts; default `whole`: as much as the plan finds it can). */
  readonly carry?: CarryMode;
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
  /** Called once before extracting a tree of thousands of files (the CLI tunes V8's heap for it). */
  readonly beforeLargeTree?: () => void;
}

/** What `run` did: wrote a version, or found the newest one up to date. */
export interface RunResult {
  readonly status: "written" | "up-to-date";
  readonly repo: string;
  readonly version: string;
  /** The analysed commit. */
  readonly sha: string;
  /** The newest version before this run (the same as `version` when up to date), null when there was none. */
  readonly previous: string | null;
  /** The version folder. */
  readonly dir: string;
  readonly manifest: Manifest | null;
}

/**
 * The pipeline's version, as written into manifests and compared for "up to date": the package
 * version, then the extractor's and the analyzer's (`0.1.0+x8.a1`).
 */
export const PIPELINE_VERSION = `${packageVersion()}+x${EXTRACTOR_VERSION}.a${ANALYZER_VERSION}`;

/** The package's version (`0.1.0`), as `--version` prints it. Reads package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}

/** Runs the pipeline for one target and writes a dataset version (unless it is up to date). */
export async function run(options: RunOptions = {}): Promise<RunResult> {
  const log = options.log ?? (() => {});
  const now = (options.now ?? (() => new Date()))().toISOString();
  const settings = await runSettings(options);
  const { target, outDir } = settings;
  // Note: one run at a time reads the index and writes a version into this output folder.
  await using _output = await lockFolder(repoDir(outDir, target.repo), "the output folder", { log });
  const index = await readIndex(outDir, target.repo);
  for (const name of await removeUnlisted(repoDir(outDir, target.repo), index.versions.map((v) => v.version))) log(`removed ${name}, a version folder a killed run left and the index does not name`);
  const newest = index.versions.at(-1);
  if (!options.force && newest && newest.sha === target.sha && newest.configHash === settings.configHash && newest.pipelineVersion === PIPELINE_VERSION) {
    log(`${target.repo} at ${target.sha.slice(0, 12)} is up to date (version ${newest.version}); use --force to write a new version`);
    return { status: "up-to-date", repo: target.repo, version: newest.version, sha: target.sha, previous: newest.version, dir: path.join(repoDir(outDir, target.repo), newest.version), manifest: null };
  }
  const cacheFile = extractCachePath(settings.cacheDir, target.repo);
  // Note: the extraction cache and the newest version, most often the parent, are read while git
  //   answers (neither needs the clone).
  const cacheRead = loadExtractCache(cacheFile, target.repo, EXTRACTOR_VERSION, settings.config.includeTestCode);
  const newestRead = newest ? readPrevious(outDir, target.repo, newest) : Promise.resolve(null);
  newestRead.catch(() => {});
  const fetched = await fetchRepo({ repo: target.repo, source: options.source ?? target.url, sourceLabel: options.source !== undefined ? "--source" : `${settings.configPath}: the url of ${target.repo},`, sha: target.sha, cacheDir: settings.cacheDir, log });
  log(`reading ${target.repo} at ${target.sha.slice(0, 12)}`);
  const [listing, loadedCache, parent] = await Promise.all([listFiles({ gitDir: fetched.gitDir, sha: target.sha, include: target.include, exclude: target.exclude }), cacheRead, newestAncestor(fetched.gitDir, index.versions, target.sha)]);
  const previous = parent === null ? null : parent === newest ? await newestRead : await readPrevious(outDir, target.repo, parent);
  if (loadedCache.problem) log(loadedCache.problem);
  // Note: a cache that cannot be written costs the next run time, not this run: facts stay in memory.
  const manifests = manifestsKey(listing.manifests);
  const writer = await openCacheWriter(cacheFile, { repo: target.repo, sha: target.sha, extractorVersion: EXTRACTOR_VERSION, includeTestCode: settings.config.includeTestCode, manifests }).catch((error: Error) => {
    log(`could not write the extraction cache ${cacheFile}: ${error.message}`);
    return null;
  });
  try {
    const reader = openBlobReader(fetched.gitDir);
    let version: NewVersion;
    try {
      const extraction = await extractTree(listing.entries, loadedCache.cache, writer, reader, { threads: options.threads, progress: options.progress, beforeLargeTree: options.beforeLargeTree, log, contextLines: settings.config.contextLines });
      log(`extracted ${listing.entries.length} files: ${extraction.parsed} parsed, ${extraction.reused} reused from the cache`);
      const scanned = extraction.sourceFacts();
      const sources = new MessageSources(scanned, target.messageSources);
      const manifestTexts = await reader.read(listing.manifests.map((m) => m.blob));
      const workspace = readWorkspace(listing.manifests.map((m, i) => ({ path: m.path, text: manifestTexts[i]! })), scanned);
      for (const p of workspace.problems) log(`${p.path} is not valid TOML, its package is left out: ${p.message}`);
      const symbols = () => ({ ...indexTree(extraction.symbolFacts(), (file: string) => moduleOf(workspace.layout, file)), repo: target.repo, sha: target.sha });
      const plan = planCarry({
        previous: previous === null ? null : { entry: previous.entry, manifest: previous.manifest, rebasable: rebasable(previous.records, previous.manifest.sha) },
        configHash: settings.configHash,
        pipelineVersion: PIPELINE_VERSION,
        analysesCarry: carriesAnalysis(settings.config.analysis?.llm),
        includeTestCode: settings.config.includeTestCode,
        cache: loadedCache.cache,
        listing,
        extraction,
        allow: options.carry ?? "whole",
        // Note: a file whose calls, macros, tests or module declarations change may change other records' entry points and reproductions (symbols/).
        touchesSources: (file) => sources.touches(file) || symbolsMatter(file.symbols),
        manifests,
      });
      log(`carry: ${plan.mode}${plan.from === null ? "" : ` from ${plan.from}`} (${plan.reason})`);
      const stamp = { sha: target.sha, datasetVersion: now };
      const blobOf = new Map(listing.entries.map((e) => [e.path, e.blob]));
      version =
        plan.mode === "whole"
          ? carryWhole(previous!, plan, stamp)
          : await buildVersion({
              repo: target.repo,
              stamp,
              config: settings.config,
              cacheDir: settings.cacheDir,
              listing,
              extraction,
              plan,
              previous,
              sources,
              withFacts: (groups) => (writer === null ? Promise.resolve(new Map(groups)) : withFirstFacts(groups, writer, cacheFile)),
              readTexts: (paths) => reader.read(paths.map((p) => blobOf.get(p)!)),
              log,
              layout: workspace.layout,
              symbols: symbols(),
            });
    } finally {
      await reader.close();
    }
    const written = await writeNew(settings, index, parent, version, now, writer);
    log(`wrote ${version.counts.records} records to ${written.dir}`);
    await writer?.commit().catch((error: Error) => log(`could not save the extraction cache ${cacheFile}: ${error.message}`));
    return written;
  } catch (error) {
    await writer?.discard();
    throw error;
  }
}

/** Validates the new version and writes it under the next version name, with its parent (`newestAncestor`). */
async function writeNew(settings: RunSettings, index: VersionsIndex, parent: VersionEntry | null, version: NewVersion, now: string, writer: CacheWriter | null): Promise<RunResult> {
  const { target, outDir, configHash } = settings;
  const name = await nextVersionName(outDir, target.repo, index, target.sha);
  const manifest: Manifest = {
    repo: target.repo,
    sha: target.sha,
    parentSha: parent?.sha ?? null,
    version: name,
    datasetVersion: now,
    schemaVersion: 2,
    pipelineVersion: PIPELINE_VERSION,
    configHash,
    counts: version.counts,
    analysis: version.analysis,
    carry: version.carry,
  };
  const entry: VersionEntry = { version: name, sha: target.sha, parent: parent?.version ?? null, datasetVersion: now, records: version.counts.records, configHash, pipelineVersion: PIPELINE_VERSION };
  const problems = versionProblems({ ...version, manifest }, { repo: target.repo, versions: [...index.versions, entry] });
  if (problems.length > 0) throw invalidDataset(problems);
  // Note: the cache file goes to disk while the version is written; it is put in place after.
  void writer?.sync().catch(() => {});
  const dir = await writeVersion(outDir, { manifest, records: version.records }, entry);
  return { status: "written", repo: target.repo, version: name, sha: target.sha, previous: index.versions.at(-1)?.version ?? null, dir, manifest };
}
