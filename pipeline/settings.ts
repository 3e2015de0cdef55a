/**
 * What a run works with, from the config and the command line: the target at its commit, the
 * output and cache folders, and the hash of what in the config shapes the dataset. Effects: reads
 * the config file.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { loadConfig, resolveTarget } from "./config.js";
import { PipelineError } from "./errors.js";
import type { Config, Target } from "./schema-types.generated.js";

/** A run's settings, every path resolved. */
export interface RunSettings {
  /** The config file, as given. */
  readonly configPath: string;
  readonly config: Config;
  /** The target, with `--sha` applied. */
  readonly target: Target;
  readonly outDir: string;
  readonly cacheDir: string;
  readonly configHash: string;
}

/** What the command line can replace. */
export interface SettingsOptions {
  /** Path of config.json (default `config.json` in the working directory). */
  readonly configPath?: string;
  /** `owner/name` of the target (default: the first). */
  readonly target?: string;
  /** Replaces the target's pinned SHA. */
  readonly sha?: string;
  /** Replaces the config's output folder. */
  readonly out?: string;
}

/** Loads the config and resolves a run's settings; throws E_CONFIG for a bad config, E_USAGE for a bad option. */
export async function runSettings(options: SettingsOptions): Promise<RunSettings> {
  const configPath = path.resolve(options.configPath ?? "config.json");
  const config = await loadValidConfig(configPath);
  const resolved = resolveTarget(config, options.target);
  if (!resolved.ok) throw new PipelineError("E_USAGE", resolved.errors[0] ?? "unknown target", { details: resolved.errors.slice(1) });
  const target: Target = { ...resolved.value, ...(options.sha ? { sha: options.sha } : {}) };
  if (!/^[0-9a-f]{40}$/.test(target.sha)) {
    throw new PipelineError("E_USAGE", `--sha ${target.sha} is not a full commit SHA`, { hint: "give all 40 lowercase hex digits (git rev-parse <ref> prints them)" });
  }
  const baseDir = path.dirname(configPath);
  return {
    configPath: options.configPath ?? "config.json",
    config,
    target,
    outDir: path.resolve(options.out ?? path.resolve(baseDir, config.output)),
    cacheDir: path.resolve(baseDir, config.cacheDir),
    configHash: hashConfig(config, target),
  };
}

/** The config at `configPath`, or E_CONFIG with one line per problem. */
export async function loadValidConfig(configPath: string): Promise<Config> {
  const loaded = await loadConfig(configPath);
  if (!loaded.ok) throw new PipelineError("E_CONFIG", `${path.relative(process.cwd(), configPath) || configPath} is not a valid configuration`, { details: loaded.errors, hint: "fix the lines above; schemas/config.schema.json describes every field" });
  return loaded.value;
}

/** A hash of what in the config shapes the dataset (not the source url: any clone gives the same data). */
export function hashConfig(config: Config, target: Target): string {
  // Note: a language model writes other prose than the static analyzer, so an enabled one (and
  // which) is part of the shape; left out when off, so the default config keeps its hash.
  const llm = config.analysis?.llm;
  // Note: the message sources a target declares shape its records; left out when there are none, so a config without them keeps its hash.
  const sources = target.messageSources ?? [];
  const shape = { repo: target.repo, include: target.include, exclude: target.exclude, contextLines: config.contextLines, includeTestCode: config.includeTestCode, ...(llm?.enabled ? { llm: { endpoint: llm.endpoint, model: llm.model } } : {}), ...(sources.length > 0 ? { messageSources: sources } : {}) };
  return createHash("sha256").update(JSON.stringify(shape)).digest("hex").slice(0, 16);
}
