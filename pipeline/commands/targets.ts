/**
 * The `targets` command: the config's targets, for people (one line each) or for a CI matrix
 * (`--json`: one line of JSON). Effects: reads the config file.
 */
import path from "node:path";
import { loadValidConfig } from "../settings.js";

/** A target as `targets --json` lists it. */
export interface TargetEntry {
  readonly repo: string;
  readonly sha: string;
  readonly url: string;
}

/** The targets of the config at `configPath`, in config order; E_CONFIG for a bad config. */
export async function listTargets(configPath: string): Promise<TargetEntry[]> {
  const config = await loadValidConfig(path.resolve(configPath));
  return config.targets.map((t) => ({ repo: t.repo, sha: t.sha, url: t.url }));
}

/** `owner/name  sha  url` lines, the repos padded to one width. */
export function targetLines(targets: readonly TargetEntry[]): string[] {
  const width = Math.max(0, ...targets.map((t) => t.repo.length));
  return targets.map((t) => `${t.repo.padEnd(width)}  ${t.sha}  ${t.url}`);
}
