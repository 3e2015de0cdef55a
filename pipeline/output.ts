/**
 * Where the commands that read datasets (`diff`, `validate`, `match`, `site`) find them: an output
 * folder and a repository, from the options alone when they name both, otherwise with the config's
 * defaults (read only when given or present); and where `site` writes. Effects: reads the config
 * file and lists folders.
 */
import { access, readdir } from "node:fs/promises";
import path from "node:path";
import { resolveTarget } from "./config.js";
import { PipelineError } from "./errors.js";
import { loadValidConfig } from "./settings.js";
import type { VersionEntry } from "./schema-types.generated.js";

/** Where a command reads datasets from. */
export interface OutputOptions {
  /** Path of config.json; default: `config.json` in the working directory, when there is one. */
  readonly configPath?: string;
  /** `owner/name`; default: the config's first target, or the one repository under `out`. */
  readonly repo?: string;
  /** The output folder; default: the config's. */
  readonly out?: string;
}

/**
 * The output folder and repository a command works on: the options', and what they leave out from
 * the output folder (the one repository it holds) or the config (its output and first target).
 * Throws E_USAGE when neither says.
 */
export async function resolveOutput(options: OutputOptions): Promise<{ outDir: string; repo: string }> {
  const configPath = options.configPath ?? ((await exists("config.json")) ? "config.json" : undefined);
  if (options.out !== undefined) {
    const outDir = path.resolve(options.out);
    if (options.repo !== undefined) return { outDir, repo: options.repo };
    const repos = await reposUnder(outDir);
    if (repos.length === 1 || configPath === undefined) return { outDir, repo: onlyRepo(outDir, repos) };
  }
  if (configPath === undefined) throw new PipelineError("E_USAGE", "no output folder given and no config.json here", { hint: "pass --out <dir> (and --repo <owner/name> when it holds several), or --config <file>" });
  const absolute = path.resolve(configPath);
  const config = await loadValidConfig(absolute);
  const outDir = path.resolve(options.out ?? path.resolve(path.dirname(absolute), config.output));
  if (options.repo !== undefined) return { outDir, repo: options.repo };
  const resolved = resolveTarget(config, undefined);
  if (!resolved.ok) throw new PipelineError("E_USAGE", resolved.errors[0] ?? "unknown target");
  return { outDir, repo: resolved.value.repo };
}

/** The repositories (`owner/name`, folders holding versions.json) under `outDir`, sorted. */
async function reposUnder(outDir: string): Promise<string[]> {
  const repos: string[] = [];
  for (const owner of await readdir(outDir, { withFileTypes: true }).catch(() => [])) {
    if (!owner.isDirectory() || owner.name.startsWith(".")) continue;
    for (const name of await readdir(path.join(outDir, owner.name), { withFileTypes: true }).catch(() => [])) {
      if (name.isDirectory() && (await exists(path.join(outDir, owner.name, name.name, "versions.json")))) repos.push(`${owner.name}/${name.name}`);
    }
  }
  return repos.sort();
}

/** The one repository of `repos`, or E_USAGE saying there are none or which there are. */
function onlyRepo(outDir: string, repos: readonly string[]): string {
  if (repos.length === 1) return repos[0]!;
  throw new PipelineError("E_USAGE", repos.length === 0 ? `no dataset under ${outDir}` : `${outDir} holds datasets of ${repos.length} repositories`, {
    hint: repos.length === 0 ? "run `error-catalog run` first, or pass --out with the folder that holds the datasets" : `pass --repo with one of: ${repos.join(", ")}`,
  });
}

async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}

/** The index of the version named `name` or by a unique prefix of it; E_INPUT otherwise. */
export function findVersion(versions: readonly VersionEntry[], name: string, outDir: string): number {
  const exact = versions.findIndex((v) => v.version === name);
  if (exact >= 0) return exact;
  const matches = versions.flatMap((v, i) => (v.version.startsWith(name) ? [i] : []));
  if (matches.length === 1) return matches[0]!;
  const known = versions.map((v) => v.version).join(", ");
  throw new PipelineError("E_INPUT", matches.length === 0 ? `no dataset version ${name} in ${outDir}` : `${name} names more than one version`, { hint: `versions: ${known}` });
}

/** The folder `site` writes when not given one: `_site` beside the output folder (where GitHub's Pages actions look by default). */
export const DEFAULT_SITE_FOLDER = "_site";

/** The folder a site is written to: `site` when given (from the working directory), else `DEFAULT_SITE_FOLDER` beside `outDir`. Never touches the disk. */
export function resolveSiteDir(site: string | undefined, outDir: string): string {
  return site !== undefined ? path.resolve(site) : path.join(path.dirname(outDir), DEFAULT_SITE_FOLDER);
}
