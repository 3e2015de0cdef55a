/**
 * Real git repositories for tests, made in a temp dir from fixture trees: one commit per tree,
 * with fixed names and dates so the SHAs are the same on every machine. Never the network.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { packageRoot } from "../../pipeline/paths.js";

/** The absolute path of a fixture file or folder, from the package root. */
export function fixture(...parts: string[]): string {
  return path.join(packageRoot(), "fixtures", ...parts);
}

/** The temp dirs this process made, removed when it exits. */
const made: string[] = [];

/**
 * A fresh temp dir, removed with all it holds (what the pipeline wrote there: clones, caches,
 * outputs) when the test file's process exits, whatever the tests did; a test may remove it sooner.
 * Note: an exit handler runs synchronously, so the removal is `rmSync`; a test file's tests have
 *   all finished by then.
 */
export function tempDir(prefix = "error-catalog-"): string {
  if (made.length === 0) process.once("exit", () => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * A git repository with one commit per tree, in order (each tree replaces the whole work tree).
 * Returns the repository's path and the commit SHAs.
 */
export function makeRepo(trees: readonly string[]): { dir: string; shas: string[] } {
  const dir = tempDir("error-catalog-repo-");
  const git = (args: string[], date?: string) =>
    execFileSync("git", args, {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, GIT_AUTHOR_NAME: "Fixture", GIT_AUTHOR_EMAIL: "fixture@example.com", GIT_COMMITTER_NAME: "Fixture", GIT_COMMITTER_EMAIL: "fixture@example.com", ...(date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {}) },
    }).trim();
  git(["init", "--quiet", "--initial-branch=main"]);
  git(["config", "core.autocrlf", "false"]);
  const shas: string[] = [];
  trees.forEach((tree, i) => {
    for (const entry of readdirSync(dir)) if (entry !== ".git") rmSync(path.join(dir, entry), { recursive: true, force: true });
    cpSync(tree, dir, { recursive: true });
    git(["add", "--all"]);
    git(["commit", "--quiet", "--allow-empty", "-m", `fixture commit ${i + 1}`], `2026-01-0${Math.min(i + 1, 9)}T12:00:00Z`);
    shas.push(git(["rev-parse", "HEAD"]));
  });
  return { dir, shas };
}
