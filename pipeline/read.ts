/**
 * Stage 2, read: the files of the tree at the pinned commit, straight from the object database.
 * Effects: git. One `git ls-tree` and ONE `git cat-file --batch` process for all blobs.
 */
import { spawn } from "node:child_process";
import picomatch from "picomatch";
import { simpleGit } from "simple-git";
import { PipelineError } from "./errors.js";
import type { SourceFile } from "./types.js";

export interface ReadInput {
  readonly gitDir: string;
  readonly sha: string;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
}

export interface TreeEntry {
  readonly path: string;
  readonly blob: string;
}

export interface ReadResult {
  /** Matching files, sorted by path (code-unit order, as git sorts them). */
  readonly files: readonly SourceFile[];
  /** Every blob in the tree. */
  readonly listed: number;
  /** Blobs left out by include/exclude (symlinks and submodules are never listed). */
  readonly skipped: number;
}

/** Lists the tree at `sha` and returns the text of the files the globs select. */
export async function readTree(input: ReadInput): Promise<ReadResult> {
  const entries = await listTree(input.gitDir, input.sha);
  const selected = selectEntries(entries, input.include, input.exclude);
  const texts = await catBlobs(input.gitDir, selected.map((e) => e.blob));
  const files = selected.map((e, i) => ({ path: e.path, blob: e.blob, text: texts[i] ?? "" }));
  return { files, listed: entries.length, skipped: entries.length - selected.length };
}

/** Regular files of the tree at `sha`, in git's order. */
export async function listTree(gitDir: string, sha: string): Promise<TreeEntry[]> {
  let out: string;
  try {
    out = await simpleGit(gitDir).raw(["ls-tree", "-r", "-z", "--full-tree", sha]);
  } catch (error) {
    throw new PipelineError("E_GIT", `could not list the tree of ${sha} in ${gitDir}`, {
      hint: "the cache may be damaged: delete it and run again",
      details: [error instanceof Error ? error.message.trim() : String(error)],
    });
  }
  const entries: TreeEntry[] = [];
  for (const record of out.split("\0")) {
    if (record === "") continue;
    const tab = record.indexOf("\t");
    const [mode, type, blob] = record.slice(0, tab).split(" ");
    // Note: 120000 is a symlink and 160000 a submodule; neither holds source text of the tree.
    if (type !== "blob" || mode === "120000" || blob === undefined) continue;
    entries.push({ path: record.slice(tab + 1), blob });
  }
  return entries;
}

/** The entries whose path matches an include glob and no exclude glob. Pure. */
export function selectEntries(entries: readonly TreeEntry[], include: readonly string[], exclude: readonly string[]): TreeEntry[] {
  const included = picomatch([...include], { dot: true });
  const excluded = exclude.length > 0 ? picomatch([...exclude], { dot: true }) : () => false;
  return entries.filter((e) => included(e.path) && !excluded(e.path));
}

/**
 * The UTF-8 text of each blob, in the order asked, through one `git cat-file --batch` process.
 */
export function catBlobs(gitDir: string, blobs: readonly string[]): Promise<string[]> {
  if (blobs.length === 0) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["--git-dir", gitDir, "cat-file", "--batch"], { stdio: ["pipe", "pipe", "pipe"] });
    const decoder = new TextDecoder("utf-8");
    const texts: string[] = [];
    const chunks: Buffer[] = [];
    let buffered = 0;
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.stdout.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      buffered += chunk.length;
      // Note: parse only once a whole object may be there, so big blobs are not re-scanned per chunk.
      let buffer = Buffer.concat(chunks, buffered);
      chunks.length = 0;
      for (;;) {
        const eol = buffer.indexOf(10);
        if (eol < 0) break;
        const header = buffer.toString("latin1", 0, eol);
        const [oid, type, sizeText] = header.split(" ");
        if (type !== "blob" || sizeText === undefined) {
          child.kill();
          reject(new PipelineError("E_GIT", `git cat-file could not read object ${oid}: ${header}`, { hint: "the cache may be damaged: delete it and run again" }));
          return;
        }
        const size = Number(sizeText);
        if (buffer.length < eol + 1 + size + 1) break;
        texts.push(decoder.decode(buffer.subarray(eol + 1, eol + 1 + size)));
        buffer = buffer.subarray(eol + 1 + size + 1);
      }
      if (buffer.length > 0) chunks.push(buffer);
      buffered = buffer.length;
    });
    child.on("error", (error) => reject(new PipelineError("E_GIT", `could not start git: ${error.message}`, { hint: "install git and make sure it is on PATH" })));
    child.on("close", (code) => {
      if (code !== 0 && texts.length < blobs.length) {
        reject(new PipelineError("E_GIT", `git cat-file --batch failed (${code}): ${stderr.trim()}`));
      } else if (texts.length !== blobs.length) {
        reject(new PipelineError("E_GIT", `git cat-file --batch returned ${texts.length} of ${blobs.length} blobs`));
      } else {
        resolve(texts);
      }
    });
    child.stdin.end(blobs.join("\n") + "\n");
  });
}
