/**
 * The `validate` command: a dataset version checked (verify.ts), by default the newest of a
 * repository. Effects: reads the index and the version.
 */
import path from "node:path";
import { PipelineError } from "../errors.js";
import { type OutputOptions, resolveOutput } from "../output.js";
import { verifyVersion } from "../verify.js";
import { readIndex, repoDir } from "../write.js";

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
