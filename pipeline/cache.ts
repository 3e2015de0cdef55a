/**
 * The extraction cache: what extraction found in each file, kept between runs so a run at a new
 * SHA parses only the files whose blobs changed. Effects: the file system, at the edges only
 * (`loadExtractCache` once before extraction, `saveExtractCache` once after a successful run);
 * everything in between is plain data.
 *
 * Layout: one JSON Lines file per repository, `<cacheDir>/extract/<owner>+<name>.jsonl`: a first
 * line with the extractor version and repository, then one line per path of the last tree a run
 * saw. Note: lines, so that neither saving nor loading builds one string of the whole cache.
 *
 * Note: an entry is used only when both the path and the blob id match. Sites carry their path
 * and a context derived from it (`tests/`, `benches/`, …), so the same blob under another path
 * is extracted again rather than patched.
 * Note: entries hold the per-file sites BEFORE `applyTestModules`, which is cross-file (a
 * `#[cfg(test)] mod t;` in one file makes another file test code) and is re-applied every run.
 * Note: the cache keeps the entries of the newest tree only, so it stays the size of one tree;
 * going back to an older SHA parses again what differs.
 */
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { FileSites } from "./types.js";
import { replaceFile } from "./write.js";

/**
 * What extraction found in one file (as `extractFile` returned it, before `applyTestModules`),
 * less the path it is stored under: enough to skip reading it again at the same blob.
 */
export type CachedFile = Omit<FileSites, "path">;

/** The cache of one repository, in memory: entries by path. */
export interface ExtractCache {
  readonly extractorVersion: number;
  /** What extraction parsed (`ExtractOptions`): test code's sites have facts only when it is catalogued. */
  readonly includeTestCode: boolean;
  /** The commit whose tree the entries are of (null: unknown, an empty cache). */
  readonly sha: string | null;
  readonly entries: ReadonlyMap<string, CachedFile>;
}

/** The first line of the file. */
interface CacheHeader {
  readonly extractorVersion: number;
  readonly includeTestCode: boolean;
  readonly repo: string;
  readonly sha?: string;
}

/** `<cacheDir>/extract/<owner>+<name>.jsonl`. Never touches the disk. */
export function extractCachePath(cacheDir: string, repo: string): string {
  return path.join(cacheDir, "extract", `${repo.replace("/", "+")}.jsonl`);
}

/** An empty cache for `extractorVersion` and `includeTestCode`. */
export function emptyCache(extractorVersion: number, includeTestCode = false): ExtractCache {
  return { extractorVersion, includeTestCode, sha: null, entries: new Map() };
}

/**
 * Loads the cache file. Returns an empty cache when there is none, when it was written by
 * another extractor version or for another `includeTestCode`, or when it cannot be read (then `problem` says why: a damaged cache
 * costs a full parse, never a failed run).
 */
export async function loadExtractCache(file: string, repo: string, extractorVersion: number, includeTestCode = false): Promise<{ cache: ExtractCache; problem: string | null }> {
  const empty = emptyCache(extractorVersion, includeTestCode);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return { cache: empty, problem: missing ? null : `could not read the extraction cache ${file}: ${(error as Error).message}` };
  }
  try {
    const lines = text.split("\n");
    const header = JSON.parse(lines[0]!) as CacheHeader;
    if (header.extractorVersion !== extractorVersion || header.includeTestCode !== includeTestCode || header.repo !== repo) return { cache: empty, problem: null };
    const entries = new Map<string, CachedFile>();
    for (const line of lines.slice(1)) {
      if (line === "") continue;
      const { path: filePath, ...entry } = JSON.parse(line) as FileSites;
      entries.set(filePath, entry);
    }
    return { cache: { extractorVersion, includeTestCode, sha: header.sha ?? null, entries }, problem: null };
  } catch (error) {
    return { cache: empty, problem: `ignoring the damaged extraction cache ${file}: ${(error as Error).message}` };
  }
}

/** The cached extraction of `file`, when its path and blob match an entry. Pure. */
export function lookup(cache: ExtractCache, file: { readonly path: string; readonly blob: string }): FileSites | null {
  const entry = cache.entries.get(file.path);
  if (entry === undefined || entry.blob !== file.blob) return null;
  return { path: file.path, ...entry };
}

/** The entry to keep for one file's extraction. Pure. */
export function entryOf(result: FileSites): CachedFile {
  const { path: _path, ...entry } = result;
  return entry;
}

/**
 * Writes the cache atomically (temporary file, then rename): entries sorted by path, so the
 * file is the same for the same tree. Creates the folder when needed.
 */
export async function saveExtractCache(file: string, repo: string, cache: ExtractCache): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await replaceFile(file, cacheLines(repo, cache));
}

/** The cache file's text in parts of about 1 MiB: the header line, then one line per path, sorted. */
function* cacheLines(repo: string, cache: ExtractCache): Generator<string> {
  const header: CacheHeader = { extractorVersion: cache.extractorVersion, includeTestCode: cache.includeTestCode, repo, ...(cache.sha === null ? {} : { sha: cache.sha }) };
  let part = `${JSON.stringify(header)}\n`;
  for (const key of [...cache.entries.keys()].sort()) {
    part += `${JSON.stringify({ path: key, ...cache.entries.get(key)! })}\n`;
    if (part.length > 1 << 20) (yield part, (part = ""));
  }
  yield part;
}
