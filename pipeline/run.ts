/**
 * Wires the stages: config → fetch → read → extract → build → validate → write.
 * Each stage is a function of its own file; this one only passes values along and reports.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { buildEnvelopes } from "./build.js";
import { loadConfig, resolveTarget } from "./config.js";
import { PipelineError } from "./errors.js";
import { applyTestModules, createParser, EXTRACTOR_VERSION, extractFile, testModuleNames } from "./extract.js";
import { fetchRepo } from "./fetch.js";
import { packageRoot } from "./paths.js";
import { readTree } from "./read.js";
import type { Config, Envelope, Manifest, ManifestCounts, Target, VersionEntry } from "./schema-types.generated.js";
import type { FileSites, Site } from "./types.js";
import { validate } from "./validate.js";
import { nextVersionName, readIndex, writeVersion } from "./write.js";

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
}

export interface RunResult {
  readonly status: "written" | "up-to-date";
  readonly repo: string;
  readonly version: string;
  /** The version folder. */
  readonly dir: string;
  readonly manifest: Manifest | null;
}

/** The pipeline's version, as written into manifests: package version and extractor version. */
export const PIPELINE_VERSION = `${(JSON.parse(readFileSync(path.join(packageRoot(), "package.json"), "utf8")) as { version: string }).version}+x${EXTRACTOR_VERSION}`;

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

  const index = await readIndex(outDir, target.repo);
  const newest = index.versions.at(-1);
  if (!options.force && newest && newest.sha === target.sha && newest.configHash === configHash && newest.pipelineVersion === PIPELINE_VERSION) {
    log(`${target.repo} at ${target.sha.slice(0, 12)} is up to date (version ${newest.version}); use --force to write a new version`);
    return { status: "up-to-date", repo: target.repo, version: newest.version, dir: path.join(outDir, ...target.repo.split("/"), newest.version), manifest: null };
  }

  const source = options.source ?? target.url;
  const fetched = await fetchRepo({ repo: target.repo, source, sha: target.sha, cacheDir: path.resolve(baseDir, config.cacheDir), log });
  log(`reading ${target.repo} at ${target.sha.slice(0, 12)}`);
  const tree = await readTree({ gitDir: fetched.gitDir, sha: target.sha, include: target.include, exclude: target.exclude });

  log(`extracting from ${tree.files.length} files`);
  const parser = createParser();
  const extracted: FileSites[] = [];
  const declarations = new Map<string, string[]>();
  for (const [i, file] of tree.files.entries()) {
    extracted.push(extractFile(file, parser));
    const modules = testModuleNames(file.text);
    if (modules.length > 0) declarations.set(file.path, modules);
    if (i % 32 === 31) {
      options.progress?.("extract", i + 1, tree.files.length);
      // Note: tree-sitter frees trees only when the event loop turns; yielding keeps memory flat.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  options.progress?.("extract", tree.files.length, tree.files.length);
  const results = applyTestModules(extracted, declarations);
  const sites = results.flatMap((r) => r.sites);
  const catalogued = sites.filter((s) => s.runtime !== null && (config.includeTestCode || s.context === "library"));

  const texts = new Map(tree.files.map((f) => [f.path, f.text]));
  const envelopes = buildEnvelopes({ repo: target.repo, sha: target.sha, contextLines: config.contextLines, sites: catalogued, textOf: (p) => texts.get(p) ?? "", now });

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
    counts: countSites(tree, results, sites, config.includeTestCode, envelopes.length),
  };
  const entry: VersionEntry = { version, sha: target.sha, parent: newest?.version ?? null, datasetVersion: now, records: envelopes.length, configHash, pipelineVersion: PIPELINE_VERSION };

  assertValid(envelopes, manifest, entry, target.repo, index.versions);
  const dir = await writeVersion(outDir, { manifest, envelopes }, entry);
  log(`wrote ${envelopes.length} records to ${dir}`);
  return { status: "written", repo: target.repo, version, dir, manifest };
}

/** A hash of what in the config shapes the dataset (not the source url: any clone gives the same data). */
export function hashConfig(config: Config, target: Target): string {
  const shape = { repo: target.repo, include: target.include, exclude: target.exclude, contextLines: config.contextLines, includeTestCode: config.includeTestCode };
  return createHash("sha256").update(JSON.stringify(shape)).digest("hex").slice(0, 16);
}

function countSites(tree: { listed: number; skipped: number; files: readonly unknown[] }, results: readonly FileSites[], sites: readonly Site[], includeTestCode: boolean, records: number): ManifestCounts {
  const tally = <K extends string>(keys: readonly K[]) => {
    const out: Partial<Record<K, number>> = {};
    for (const k of [...keys].sort()) out[k] = (out[k] ?? 0) + 1;
    return out;
  };
  const withoutRecord = sites.map((s) => s.skip ?? (includeTestCode || s.context === "library" ? null : "excluded-context")).filter((r) => r !== null);
  const errorFiles = results.filter((r) => r.parseErrors).map((r) => r.path);
  return {
    filesListed: tree.listed,
    filesRead: tree.files.length,
    filesSkipped: tree.skipped,
    filesParsed: results.filter((r) => r.parsed).length,
    filesReused: 0,
    filesWithParseErrors: errorFiles.length,
    parseErrorFiles: errorFiles,
    sites: sites.length,
    sitesInTokenTrees: sites.filter((s) => s.inTokenTree).length,
    sitesByKind: tally(sites.map((s) => s.kind)),
    sitesByContext: tally(sites.map((s) => s.context)),
    sitesWithoutRecord: tally(withoutRecord),
    records,
  };
}

/** Validates everything before a byte is written; a failure is a pipeline bug (E_SCHEMA). */
function assertValid(envelopes: readonly Envelope[], manifest: Manifest, entry: VersionEntry, repo: string, earlier: readonly VersionEntry[]): void {
  const errors: string[] = [];
  envelopes.forEach((e, i) => {
    const r = validate("envelope.v2", e, `records.jsonl:${i + 1}`);
    if (!r.ok) errors.push(...r.errors);
  });
  const m = validate("manifest", manifest, "manifest.json");
  if (!m.ok) errors.push(...m.errors);
  const v = validate("versions", { repo, versions: [...earlier, entry] }, "versions.json");
  if (!v.ok) errors.push(...v.errors);
  if (errors.length > 0) {
    throw new PipelineError("E_SCHEMA", `the dataset failed validation; nothing was written`, { details: errors.slice(0, 20), hint: "this is a bug in error-catalog: please report it with these lines" });
  }
}
