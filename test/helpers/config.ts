/** A config.json for tests, in a fresh temp dir, naming one fixture repository. */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { tempDir } from "./git.js";

/** Writes `{output: "out", cacheDir: "cache", targets: [example/burnlike at url@sha]}` plus `extra`; returns its path. */
export function writeConfig(url: string, sha: string, extra: Record<string, unknown> = {}): string {
  const dir = tempDir("error-catalog-config-");
  const file = path.join(dir, "config.json");
  const config = { output: "out", cacheDir: "cache", contextLines: 18, targets: [{ repo: "example/burnlike", url, sha }], ...extra };
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}
