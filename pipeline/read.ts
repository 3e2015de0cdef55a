/**
 * Stage 2, read: the files of the tree at the pinned commit, straight from the object database.
 * Effects: git. One `git ls-tree` and ONE `git cat-file --batch` process for all blobs.
 */
import { spawn } from "node:child_process";
import picomatch from "picomatch";
import { PipelineError } from "./errors.js";
import { git, gitEnv } from "./git.js";
import type { SourceFile } from "./types.js";
import { isManifest } from "./workspace/index.js";

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
  const listing = await listFiles(input);
  return { ...listing, files: await readFiles(input.gitDir, listing.entries) };
}

/** The files of the tree at `sha` that the globs select, without their text yet, and the tree's `Cargo.toml` files (whatever the globs say: they lay out the workspace). */
export async function listFiles(input: ReadInput): Promise<{ entries: TreeEntry[]; listed: number; skipped: number; manifests: TreeEntry[] }> {
  const all = await listTree(input.gitDir, input.sha);
  const entries = selectEntries(all, input.include, input.exclude);
  return { entries, listed: all.length, skipped: all.length - entries.length, manifests: all.filter((e) => isManifest(e.path)) };
}

/** The text of the given entries, in order, through one `git cat-file --batch` process. */
export async function readFiles(gitDir: string, entries: readonly TreeEntry[]): Promise<SourceFile[]> {
  const reader = openBlobReader(gitDir);
  try {
    const texts = await reader.read(entries.map((e) => e.blob));
    return entries.map((e, i) => ({ path: e.path, blob: e.blob, text: texts[i]! }));
  } finally {
    await reader.close();
  }
}

/** Regular files of the tree at `sha`, in git's order. */
export async function listTree(gitDir: string, sha: string): Promise<TreeEntry[]> {
  let out: string;
  try {
    out = await git(["--git-dir", gitDir, "ls-tree", "-r", "-z", "--full-tree", sha], { maxBuffer: 1 << 30 });
  } catch (error) {
    if (error instanceof PipelineError) throw error;
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

/** Reads blobs through one long-lived `git cat-file --batch` process, as the stages ask for them. */
export interface BlobReader {
  /** The UTF-8 text of each blob, in the order asked. Requests are answered in the order made. */
  read(blobs: readonly string[]): Promise<string[]>;
  /** Ends the process (after answering what was asked). */
  close(): Promise<void>;
}

interface Request {
  readonly texts: string[];
  readonly count: number;
  readonly resolve: (texts: string[]) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Starts ONE `git cat-file --batch` for the whole run. Blobs can then be read in parts, so the
 * texts of a large tree never have to be held at once.
 */
export function openBlobReader(gitDir: string): BlobReader {
  const child = spawn("git", ["--git-dir", gitDir, "cat-file", "--batch"], { stdio: ["pipe", "pipe", "pipe"], env: gitEnv() });
  const decoder = new TextDecoder("utf-8");
  const queue: Request[] = [];
  let failure: PipelineError | null = null;
  let stderr = "";
  let chunks: Buffer[] = [];
  let buffered = 0;
  /** Bytes the object being read needs in the buffer (header, body and its newline), once known. */
  let needed = 0;

  const fail = (error: PipelineError) => {
    failure ??= error;
    for (const request of queue.splice(0)) request.reject(failure);
  };
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  // Note: a write to a git that died fails here; the "close" handler reports it.
  child.stdin.on("error", () => {});
  child.on("error", (error) => fail(new PipelineError("E_GIT", `could not start git: ${error.message}`, { hint: "install git and make sure it is on PATH" })));
  child.on("close", (code) => {
    if (queue.length > 0) fail(new PipelineError("E_GIT", `git cat-file --batch ended (${code}) with blobs unread: ${stderr.trim()}`, { hint: "the cache may be damaged: delete it and run again" }));
  });
  child.stdout.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    buffered += chunk.length;
    // Note: join the chunks only once the object being read is complete, so a big blob is not
    // copied again for every chunk that brings a part of it.
    if (buffered < needed) return;
    let buffer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, buffered);
    for (;;) {
      const eol = buffer.indexOf(10);
      if (eol < 0) break;
      const header = buffer.toString("latin1", 0, eol);
      const [oid, type, sizeText] = header.split(" ");
      if (type !== "blob" || sizeText === undefined) {
        fail(new PipelineError("E_GIT", `git cat-file could not read object ${oid}: ${header}`, { hint: "the cache may be damaged: delete it and run again" }));
        child.kill();
        return;
      }
      const size = Number(sizeText);
      needed = eol + 1 + size + 1;
      if (buffer.length < needed) break;
      const request = queue[0]!;
      request.texts.push(decoder.decode(buffer.subarray(eol + 1, eol + 1 + size)));
      if (request.texts.length === request.count) {
        queue.shift();
        request.resolve(request.texts);
      }
      buffer = buffer.subarray(needed);
      needed = 0;
    }
    chunks = buffer.length > 0 ? [buffer] : [];
    buffered = buffer.length;
  });

  return {
    read(blobs) {
      if (failure) return Promise.reject(failure);
      if (blobs.length === 0) return Promise.resolve([]);
      return new Promise((resolve, reject) => {
        queue.push({ texts: [], count: blobs.length, resolve, reject });
        child.stdin.write(`${blobs.join("\n")}\n`);
      });
    },
    close() {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("close", () => resolve());
        child.stdin.end();
      });
    },
  };
}
