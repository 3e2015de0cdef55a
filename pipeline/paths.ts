/**
 * Paths: where the package's own files are, independent of the working directory; and the checks
 * that every path the tool writes stays inside the folder it belongs to.
 * Note: compiled code runs from `dist/pipeline/*.js` (and `dist/scripts`, `dist/test`, which import
 * this file), so the package root is always two levels above this module.
 */
import { mkdir, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { PipelineError } from "./errors.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The package root (the folder holding `package.json`, `schemas/`, `dist/`). Never touches the disk. */
export function packageRoot(): string {
  return root;
}

/** The folder of the JSON Schemas, `<packageRoot>/schemas`. */
export function schemasDir(): string {
  return join(root, "schemas");
}

/**
 * A repository's `owner/name` as GitHub spells it: two segments of letters, digits, `-`, `_`
 * and `.`, none empty, `.`, `..` or starting with `.`, so that joined to a folder they name a
 * folder inside it.
 * Note: the pattern of `Target.repo` in schemas/config.schema.json; a test checks they agree.
 */
export const SAFE_REPO = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}\/[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}$/;

/**
 * Throws E_INPUT unless `repo` is a safe `owner/name` (`SAFE_REPO`). `where` names its origin in
 * the message (`--repo`, a config's target). Never touches the disk.
 */
export function checkRepo(repo: string, where = "repo"): void {
  if (SAFE_REPO.test(repo)) return;
  throw new PipelineError("E_INPUT", `${where} ${JSON.stringify(repo)} is not owner/name`, {
    hint: "give the GitHub repository as owner/name: letters, digits, -, _ and ., no segment empty or starting with a dot",
  });
}

/** True when `p` lies strictly inside the folder `root` (both resolved; no disk access, symlinks not followed). */
export function inside(root: string, p: string): boolean {
  const rel = relative(resolve(root), resolve(p));
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * Returns `p` when it lies inside `root` (`inside`); throws E_INPUT otherwise, naming both.
 * `what` says what the path is for ("the version folder").
 */
export function within(root: string, p: string, what: string): string {
  if (inside(root, p)) return p;
  throw new PipelineError("E_INPUT", `${what} ${p} would lie outside ${root}; nothing was written there`, {
    hint: "check the target's repo (owner/name) and the version names in versions.json",
  });
}

/**
 * Creates the folder `dir` and its missing parents, like `mkdir -p`; nothing when it exists.
 * Throws the file system's error (ENOENT, ENOTDIR, EACCES, EROFS, …) of the first folder that
 * cannot be made.
 * Note: not `mkdir(dir, { recursive: true })`: node's loops for ever where creating a folder
 *   fails with ENOENT although its parent exists (under `/proc`, for one), retrying the parent.
 */
export async function makeDir(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    const found = await stat(d).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    });
    if (found !== null) {
      if (!found.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}' (${d} is a file)`), { code: "ENOTDIR", path: d });
      break;
    }
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    await mkdir(d).catch((error: NodeJS.ErrnoException) => {
      // Note: another process may make the same folder at the same moment.
      if (error.code !== "EEXIST") throw error;
    });
  }
}
