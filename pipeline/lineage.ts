/**
 * Which earlier version a new one descends from: the newest version in the index whose commit is
 * an ancestor of the new commit (or the commit itself), as git's history says. Effects: git, on
 * the cached clone only (no network).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { VersionEntry } from "./schema-types.generated.js";

/**
 * The version a new version at `sha` descends from, among `versions` (run order, newest last): of
 * those whose commit is `sha` or an ancestor of it in the clone at `gitDir`, the nearest to `sha`
 * (none of the others lies between it and `sha`); the newest in run order among equals. Null when
 * none is an ancestor (a first version, or one of an older or unrelated line of history). A commit
 * the clone does not have is no ancestor.
 * Note: the newest ancestor in run order is found first, one `merge-base` each, newest first (in
 *   the usual run at the next commit, the first question answers); then the versions on the
 *   path from it to `sha`, if any, are nearer, and `rev-list` lists that path only.
 */
export async function newestAncestor(gitDir: string, versions: readonly VersionEntry[], sha: string): Promise<VersionEntry | null> {
  let found: VersionEntry | null = null;
  for (let k = versions.length - 1; k >= 0 && found === null; k--) {
    const entry = versions[k]!;
    if (entry.sha === sha || (await isAncestor(gitDir, entry.sha, sha))) found = entry;
  }
  if (found === null || found.sha === sha) return found;
  const newestOf = new Map<string, VersionEntry>();
  for (const v of versions) newestOf.set(v.sha, v);
  // Descendants come before their ancestors in topological order: the first version on the path is the nearest.
  const path = await git(gitDir, ["rev-list", "--topo-order", "--ancestry-path", `${found.sha}..${sha}`]);
  for (const commit of (path ?? "").split("\n")) {
    const nearer = newestOf.get(commit.trim());
    if (nearer !== undefined) return nearer;
  }
  return newestOf.get(found.sha) ?? found;
}

/** `git merge-base --is-ancestor`: exit 0 yes, 1 no, anything else (an unknown commit) no. */
async function isAncestor(gitDir: string, ancestor: string, sha: string): Promise<boolean> {
  return (await git(gitDir, ["merge-base", "--is-ancestor", ancestor, sha])) !== null;
}

/** git's output, or null when it exits with an error. */
async function git(gitDir: string, args: readonly string[]): Promise<string | null> {
  try {
    return (await promisify(execFile)("git", ["--git-dir", gitDir, ...args], { maxBuffer: 64 << 20 })).stdout;
  } catch {
    return null;
  }
}
