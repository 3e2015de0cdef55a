/**
 * Stage 1, fetch: a bare clone of the target repository in the cache, holding the pinned commit.
 * Effects: git and the file system. Network only when the commit is not in the cache yet.
 */
import { rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { PipelineError } from "./errors.js";
import { checkSource, firstLine, git } from "./git.js";
import { removeLeftovers } from "./leftovers.js";
import { lockFolder } from "./lock.js";
import { checkRepo, within } from "./paths.js";

export interface FetchInput {
  /** `owner/name`: names the cache entry. */
  readonly repo: string;
  /** Any git URL of an allowed transport or a local path (a mirror, a bare repository, a work tree). */
  readonly source: string;
  /** What names `source` in messages: `--source`, or where the config has it (default "the source"). */
  readonly sourceLabel?: string;
  /** The pinned commit, 40 hex. */
  readonly sha: string;
  /** The folder holding the cached bare clones. */
  readonly cacheDir: string;
  readonly log?: (line: string) => void;
}

export interface FetchedRepo {
  /** The bare repository that holds `sha`. */
  readonly gitDir: string;
  readonly sha: string;
}

/**
 * Makes sure `<cacheDir>/repos/<owner>+<name>.git` exists and holds `sha`: clones when it is
 * missing, fetches from `source` when the commit is not there yet, and does nothing otherwise.
 * The source is checked first, cached commit or not (`checkSource`: its form, and a local path's
 * repository; a URL is not contacted when the commit is cached).
 * Throws E_USAGE for a SHA that is not 40 hex; E_INPUT for a source that is refused, missing or
 * not a repository, or that does not have the commit; E_GIT when git itself fails; E_LOCK when
 * another run clones for too long.
 * Note: a clone or fetch holds the clone's lock (`<owner>+<name>.git.lock` beside it), so runs
 *   started together clone once: the others wait, then find the commit there. The clone goes to
 *   `<name>.git.partial-<pid>` and is renamed into place, so an interrupted clone never looks
 *   cached; what a killed run left is removed under the lock.
 */
export async function fetchRepo(input: FetchInput): Promise<FetchedRepo> {
  const log = input.log ?? (() => {});
  if (!/^[0-9a-f]{40}$/.test(input.sha)) throw new PipelineError("E_USAGE", `${input.sha} is not a full commit SHA`, { hint: "give all 40 lowercase hex digits (git rev-parse <ref> prints them)" });
  const checked = await checkSource(input.source, input.sourceLabel ?? "the source");
  const source = checked.kind === "local" ? checked.path : checked.url;
  checkRepo(input.repo);
  const reposDir = path.resolve(input.cacheDir, "repos");
  const name = `${input.repo.replace("/", "+")}.git`;
  const gitDir = within(reposDir, path.join(reposDir, name), "the cached clone");

  if (await hasCommit(gitDir, input.sha)) return { gitDir, sha: input.sha };
  await using _lock = await lockFolder(reposDir, `the cached clone of ${input.repo} in`, { name: `${name}.lock`, log });
  await removeLeftovers(reposDir, [`${name}.partial-`]);
  if (!(await exists(gitDir))) await clone(source, gitDir, log);
  if (await hasCommit(gitDir, input.sha)) return { gitDir, sha: input.sha };

  log(`fetching ${input.sha.slice(0, 12)} from ${source}`);
  // Note: asking for the commit itself works with most servers (protocol v2, GitHub); a full
  // fetch of branches and tags is the fallback for servers that refuse unadvertised objects.
  const attempts = [
    ["fetch", "--quiet", "--no-tags", "--", source, input.sha],
    ["fetch", "--quiet", "--tags", "--", source, "+refs/heads/*:refs/heads/*"],
  ];
  const failures: string[] = [];
  for (const args of attempts) {
    try {
      // Note: other runs read the clone without its lock once their commit is in it. A fetch of few
      //   objects unpacks them one by one (commits first), so a commit could be seen before its
      //   trees; kept as a pack, the objects appear at once, with the pack's index.
      await git(["-c", "fetch.unpackLimit=1", "--git-dir", gitDir, ...args]);
    } catch (error) {
      if (error instanceof PipelineError) throw error;
      failures.push(firstLine(error));
    }
    if (await hasCommit(gitDir, input.sha)) return { gitDir, sha: input.sha };
  }
  const unreachable = failures.length === attempts.length && failures.every((f) => !/not our ref|couldn't find remote ref|upload-pack: not our ref|no such remote ref/i.test(f));
  if (unreachable) {
    throw new PipelineError("E_GIT", `could not fetch from ${source}`, {
      hint: "check the network or the source; to work offline pass --source with a local mirror that has the commit",
      details: failures,
    });
  }
  throw new PipelineError("E_INPUT", `commit ${input.sha} is not in ${source}`, {
    hint: "pin a commit the source has (error-catalog pin --ref <branch|tag>), or pass --source with a repository that has it",
  });
}

/**
 * Clones `source` bare into `gitDir`, through `<gitDir>.partial-<pid>` renamed into place; the
 * partial clone is removed however it ends. Called holding the clone's lock.
 */
async function clone(source: string, gitDir: string, log: (line: string) => void): Promise<void> {
  log(`cloning ${source} into the cache`);
  const partial = `${gitDir}.partial-${process.pid}`;
  try {
    await rm(partial, { recursive: true, force: true });
    try {
      await git(["clone", "--bare", "--quiet", "--", source, partial]);
    } catch (error) {
      if (error instanceof PipelineError) throw error;
      throw new PipelineError("E_GIT", `could not clone ${source}`, {
        hint: "check the network and the target's url (or --source); offline, pass --source with a local mirror and --sha with a commit it has",
        details: [firstLine(error)],
        cause: error,
      });
    }
    await rename(partial, gitDir).catch((error: NodeJS.ErrnoException) => {
      // Note: a run of an older version, which took no lock, may have put its clone there first; use it.
      if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
    });
  } catch (error) {
    if (error instanceof PipelineError) throw error;
    throw new PipelineError("E_IO", `could not put the clone of ${source} into the cache at ${gitDir}: ${(error as Error).message}`, {
      hint: "check that the cache folder is writable and the disk has room",
      cause: error,
    });
  } finally {
    await rm(partial, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * True when the cached clone holds `sha` as a commit.
 * Note: the question of every run, asked of git directly (one process).
 */
async function hasCommit(gitDir: string, sha: string): Promise<boolean> {
  try {
    return (await git(["--git-dir", gitDir, "cat-file", "-t", sha])).trim() === "commit";
  } catch {
    return false;
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}
