/**
 * The `diff` command: two versions of a repository's datasets compared (diff.ts), by default the
 * newest and its parent. Effects: reads the index and the two versions.
 */
import path from "node:path";
import { diffDatasets } from "../diff.js";
import { PipelineError } from "../errors.js";
import { findVersion, type OutputOptions, resolveOutput } from "../output.js";
import type { Diff } from "../schema-types.generated.js";
import { validate } from "../validate.js";
import { readIndex, readVersion, repoDir } from "../write.js";

/** Which two versions `diffVersions` compares. */
export interface DiffOptions extends OutputOptions {
  /** The older version: a version name or a unique prefix of one (default: the one before `new`). */
  readonly old?: string;
  /** The newer version (default: the newest). */
  readonly new?: string;
}

/**
 * Compares two versions of a repository's datasets; by default the newest and its parent. With no
 * parent, everything in it is `added`. Throws E_INPUT when there is no version or a
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
  // Note: by default a version is compared with its parent (the newest earlier version of its own history), not with the one run before it.
  const parent = index.versions[newer]!.parent;
  const older = options.old !== undefined ? findVersion(index.versions, options.old, outDir) : options.new === undefined && parent !== null ? index.versions.findIndex((v) => v.version === parent) : -1;
  const load = async (i: number) => {
    const entry = index.versions[i]!;
    return { version: entry.version, ...(await readVersion(path.join(repoDir(outDir, repo), entry.version))) };
  };
  const diff = diffDatasets({ old: older < 0 ? null : await load(older), new: await load(newer) });
  const checked = validate("diff", diff, "diff");
  if (!checked.ok) throw new PipelineError("E_SCHEMA", "the diff failed validation", { details: checked.errors.slice(0, 20), hint: "this is a bug in error-catalog: please report it with these lines" });
  return diff;
}
