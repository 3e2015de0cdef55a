/**
 * Stage 1, fetch: a bare clone of the target repository in the cache, holding the pinned commit.
 * Effects: git and the file system. Network only when the commit is not in the cache yet.
 */
import { execFile } from "node:child_process";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { PipelineError } from "./errors.js";

export interface FetchInput {
  /** `owner/name`: names the cache entry. */
  readonly repo: string;
  /** Any git URL or a local path (a mirror, a bare repository, a work tree). */
  readonly source: string;
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
 * Throws E_INPUT when the source does not have the commit, E_GIT when git itself fails.
 */
export async function fetchRepo(input: FetchInput): Promise<FetchedRepo> {
  const log = input.log ?? (() => {});
  const source = isLocalPath(input.source) ? path.resolve(input.source) : input.source;
  const gitDir = path.resolve(input.cacheDir, "repos", `${input.repo.replace("/", "+")}.git`);

  if (!(await exists(gitDir))) {
    log(`cloning ${source} into the cache`);
    await mkdir(path.dirname(gitDir), { recursive: true });
    // Note: clone into a temporary name and rename, so an interrupted clone never looks cached.
    const partial = `${gitDir}.partial-${process.pid}`;
    await rm(partial, { recursive: true, force: true });
    try {
      const { simpleGit } = await import("simple-git");
      await simpleGit().clone(source, partial, ["--bare", "--quiet"]);
    } catch (error) {
      await rm(partial, { recursive: true, force: true });
      throw new PipelineError("E_GIT", `could not clone ${source}`, {
        hint: "check the network and the target's url (or --source): a git URL or the path of a local git repository; offline, pass --source with a local mirror and --sha with a commit it has",
        details: [firstLine(error)],
        cause: error,
      });
    }
    await rename(partial, gitDir);
  }

  if (await hasCommit(gitDir, input.sha)) return { gitDir, sha: input.sha };

  log(`fetching ${input.sha.slice(0, 12)} from ${source}`);
  // Note: asking for the commit itself works with most servers (protocol v2, GitHub); a full
  // fetch of branches and tags is the fallback for servers that refuse unadvertised objects.
  const attempts = [
    ["fetch", "--quiet", "--no-tags", source, input.sha],
    ["fetch", "--quiet", "--tags", source, "+refs/heads/*:refs/heads/*"],
  ];
  const failures: string[] = [];
  const { simpleGit } = await import("simple-git");
  const git = simpleGit(gitDir);
  for (const args of attempts) {
    try {
      await git.raw(args);
    } catch (error) {
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
 * True when the cached clone holds `sha` as a commit.
 * Note: the question of every run, asked of git directly; simple-git is loaded only when a
 * clone or a fetch is needed, which spares its start-up cost when the commit is cached.
 */
async function hasCommit(gitDir: string, sha: string): Promise<boolean> {
  try {
    const { stdout } = await promisify(execFile)("git", ["--git-dir", gitDir, "cat-file", "-t", sha]);
    return stdout.trim() === "commit";
  } catch {
    return false;
  }
}

function isLocalPath(source: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:\/\//i.test(source) && !/^[^/\\]+@[^:]+:/.test(source);
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.trim().split("\n").find((l) => l.trim() !== "")?.trim() ?? text;
}
