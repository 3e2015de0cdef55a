/**
 * The extraction cache: what extraction found in each file, kept between runs so a run at a new
 * SHA parses only the files whose blobs changed. Effects: the file system, at the edges only
 * (`loadExtractCache` once before extraction; `openCacheWriter`, whose file is written during
 * extraction and renamed into place after a successful run); everything in between is plain data.
 *
 * Layout: one JSON Lines file per repository, `<cacheDir>/extract/<owner>+<name>.jsonl`: a first
 * line with the extractor version, the repository and the commit of the tree, then one line per
 * path of that tree, in tree order, each followed by a line of its sites' facts when any has
 * them (`[[line, column, kind, facts], …]`). Note: lines, so that neither saving nor loading
 * builds one string of the whole cache.
 * Note: facts are a third of the file and only a record's first site lends them; so loading
 * leaves the facts lines as bytes, which a run copies into the next cache and reads back only
 * where a record needs them (`factsOf`). And an entry's sites come last in its line: loading
 * reads what precedes them (`CacheHead`), and the sites of a file when they are first asked for
 * (`ExtractCache.entry`), so a run that needs the sites of the changed files only reads no others.
 *
 * Note: an entry is used only when both the path and the blob id match. Sites carry their path
 * and a context derived from it (`tests/`, `benches/`, …), so the same blob under another path
 * is extracted again rather than patched.
 * Note: entries hold the per-file sites BEFORE `applyTestModules`, which is cross-file (a
 * `#[cfg(test)] mod t;` in one file makes another file test code) and is re-applied every run.
 * Note: the cache keeps the entries of the newest tree only, so it stays the size of one tree;
 * going back to an older SHA parses again what differs.
 */
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { removeLeftovers } from "./leftovers.js";
import type { FileSites, Site, SiteFacts } from "./types.js";

/** The cache of one repository, in memory: entries by path. */
export interface ExtractCache {
  readonly extractorVersion: number;
  /** What extraction parsed (`ExtractOptions`): test code's sites have facts only when it is catalogued. */
  readonly includeTestCode: boolean;
  /** The commit whose tree the entries are of (null: unknown, an empty cache). */
  readonly sha: string | null;
  /** What an entry says of its file but its sites, by path. */
  readonly heads: ReadonlyMap<string, CacheHead>;
  /** What extraction found in the file at `path` (as `extractFile` returned it, before `applyTestModules`, without facts), read when first asked for; undefined when there is no entry. */
  entry(path: string): FileSites | undefined;
  /** Each entry's lines as the file holds them (bytes: its line and its facts line, no final line end): an entry carried into the next cache is written as it was read. */
  readonly lines: ReadonlyMap<string, Buffer>;
}

/** What an entry says of its file but its sites. */
export type CacheHead = Omit<FileSites, "sites">;

/** The layout of the file (bumped when it changes: a file of another layout is not read). */
const CACHE_FORMAT = 3;

/** The first line of the file. */
interface CacheHeader {
  readonly format?: number;
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
  return { extractorVersion, includeTestCode, sha: null, heads: new Map(), entry: () => undefined, lines: new Map() };
}

/**
 * Loads the cache file. Returns an empty cache when there is none, when it was written by
 * another extractor version, in another layout or for another `includeTestCode`, or when it cannot be read (then
 * `problem` says why: a damaged cache costs a full parse, never a failed run).
 */
export async function loadExtractCache(file: string, repo: string, extractorVersion: number, includeTestCode = false): Promise<{ cache: ExtractCache; problem: string | null }> {
  const empty = emptyCache(extractorVersion, includeTestCode);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return { cache: empty, problem: missing ? null : `could not read the extraction cache ${file}: ${(error as Error).message}` };
  }
  try {
    const lines: Buffer[] = [];
    for (let start = 0; start < bytes.length; ) {
      const end = bytes.indexOf(10, start);
      const stop = end < 0 ? bytes.length : end;
      if (stop > start) lines.push(bytes.subarray(start, stop));
      start = stop + 1;
    }
    const header = JSON.parse(lines[0]?.toString("utf8") ?? "") as CacheHeader;
    if (header.format !== CACHE_FORMAT || header.extractorVersion !== extractorVersion || header.includeTestCode !== includeTestCode || header.repo !== repo) return { cache: empty, problem: null };
    const heads = new Map<string, CacheHead>();
    const raw = new Map<string, Buffer>();
    let last: CacheHead | undefined;
    for (const line of lines.slice(1)) {
      if (line[0] === FACTS_LINE && last !== undefined) {
        // An entry's facts: its bytes go with the entry's, unread.
        const entryLine = raw.get(last.path)!;
        raw.set(last.path, bytes.subarray(entryLine.byteOffset - bytes.byteOffset, line.byteOffset - bytes.byteOffset + line.length));
        continue;
      }
      last = headOf(line);
      heads.set(last.path, last);
      raw.set(last.path, line);
    }
    const parsed = new Map<string, FileSites>();
    const entry = (path: string): FileSites | undefined => {
      const known = parsed.get(path);
      if (known !== undefined) return known;
      const head = heads.get(path);
      if (head === undefined) return undefined;
      const line = raw.get(path)!;
      const eol = line.indexOf(10);
      const sites = (JSON.parse((eol < 0 ? line : line.subarray(0, eol)).toString("utf8")) as FileSites).sites;
      const whole: FileSites = { ...head, sites };
      parsed.set(path, whole);
      return whole;
    };
    return { cache: { extractorVersion, includeTestCode, sha: header.sha ?? null, heads, entry, lines: raw }, problem: null };
  } catch (error) {
    return { cache: empty, problem: `ignoring the damaged extraction cache ${file}: ${(error as Error).message}` };
  }
}

/** True when the cache has an entry of `file`: its path and blob match. */
export function cached(cache: ExtractCache, file: { readonly path: string; readonly blob: string }): boolean {
  return cache.heads.get(file.path)?.blob === file.blob;
}

/** Where an entry's sites start: its line is `{…head…,"sites":[…]}`. */
const SITES_KEY = Buffer.from(',"sites":');

/**
 * The head of an entry's line: the JSON before its sites, which come last.
 * Note: `,"sites":` cannot stand inside the head's strings, where a quote is escaped.
 */
function headOf(line: Buffer): CacheHead {
  const at = line.indexOf(SITES_KEY);
  if (at < 0) throw new Error("an entry without sites");
  return JSON.parse(`${line.toString("utf8", 0, at)}}`) as CacheHead;
}

/**
 * The cache file of the tree being extracted, written while the run goes: entries go to a
 * temporary file beside the cache as they come, in tree order (so the file is the same for the
 * same tree), and `commit` flushes it and renames it into place once the run has succeeded.
 * Note: facts are the bulk of an entry, and only a record's first site lends it its facts; so
 * the run keeps sites without facts and reads back (`factsOf`) those it needs. Memory then
 * does not grow with the tree's facts.
 */
export interface CacheWriter {
  /** Appends one file's entry (files in tree order). */
  add(result: FileSites): void;
  /** Appends the entry of the file at `path` as the old cache holds it (`ExtractCache.lines`). */
  carry(path: string, lines: Buffer): void;
  /** The facts of these sites as written (sites of files added, matched by path, line and column). */
  factsOf(sites: readonly Site[]): Promise<Map<Site, SiteFacts>>;
  /**
   * Writes what is pending and flushes the file to disk, without putting it in place: a run calls
   * it while it writes its version, and `commit` then only renames. No entry may be added after.
   */
  sync(): Promise<void>;
  /** Flushes the file to disk (unless `sync` did) and renames it over the cache. */
  commit(): Promise<void>;
  /** Removes the temporary file (a failed run leaves the old cache as it was). */
  discard(): Promise<void>;
}

const NEWLINE = Buffer.from("\n");

/** A facts line starts with `[` (an entry with `{`). */
const FACTS_LINE = 0x5b;

/** The lines of one file's entry: the entry without facts, then its facts, when a site has any. */
function entryLines(result: FileSites): string {
  const facts: [number, number, string, SiteFacts][] = [];
  for (const s of result.sites) if (s.facts != null) facts.push([s.line, s.column, s.kind, s.facts]);
  // Note: the sites last (`headOf`).
  const head: CacheHead = { path: result.path, blob: result.blob, parseErrors: result.parseErrors, parsed: result.parsed, testModules: result.testModules };
  const entry = JSON.stringify({ ...head, sites: facts.length === 0 ? result.sites : result.sites.map((s) => (s.facts == null ? s : { ...s, facts: null })) });
  return facts.length === 0 ? entry : `${entry}\n${JSON.stringify(facts)}`;
}

/** At most how many bytes of the file `factsOf` reads at a time (unless one entry is longer). */
const READ_BYTES = 1 << 20;

/** Starts writing the cache of `sha`'s tree to a temporary file beside `file` (made with its folder). */
export async function openCacheWriter(file: string, header: { readonly repo: string; readonly sha: string; readonly extractorVersion: number; readonly includeTestCode: boolean }): Promise<CacheWriter> {
  await mkdir(path.dirname(file), { recursive: true });
  await removeLeftovers(path.dirname(file), [`${path.basename(file)}.tmp-`]);
  const tmp = `${file}.tmp-${process.pid}`;
  const handle = await open(tmp, "w+");
  /** Where each entry's facts line is in the file, by path (entries without facts have none). */
  const where = new Map<string, { readonly path: string; readonly at: number; readonly length: number }>();
  /** Bytes given to the file so far (written or being written), and the lines waiting for the next write. */
  let offset = 0;
  let pending: (string | Buffer)[] = [];
  let pendingBytes = 0;
  /** The writes, one after another. */
  let writing: Promise<unknown> = Promise.resolve();
  let closed = false;
  /** The flush to disk, once asked for (`sync` or `commit`). */
  let synced: Promise<void> | undefined;
  // Note: lines are written about 1 MiB at a time, without waiting: adding a line is synchronous,
  //   and what reads the file (`factsOf`, `commit`) waits for the writes first. Text lines are
  //   joined and encoded together; lines carried over from the old cache go as the bytes read.
  const flush = () => {
    if (pendingBytes === 0) return writing;
    const parts: Buffer[] = [];
    let texts: string[] = [];
    for (const part of pending) {
      if (typeof part === "string") {
        texts.push(part);
        continue;
      }
      if (texts.length > 0) (parts.push(Buffer.from(texts.join(""), "utf8")), (texts = []));
      parts.push(part);
    }
    if (texts.length > 0) parts.push(Buffer.from(texts.join(""), "utf8"));
    const at = offset;
    offset += pendingBytes;
    (pending = []), (pendingBytes = 0);
    writing = writing.then(() => handle.writev(parts, at));
    // Note: a failed write is reported where the file is next read or committed, not as an unhandled rejection.
    writing.catch(() => {});
    return writing;
  };
  /** Appends a header or an entry's lines; for an entry, where its facts line is goes to `where`. */
  const append = (line: string | Buffer, filePath: string | null) => {
    const length = typeof line === "string" ? Buffer.byteLength(line, "utf8") : line.length;
    if (filePath !== null) {
      // Note: a facts line follows the entry's first line break (an entry's JSON holds none).
      const eol = typeof line === "string" ? line.indexOf("\n") : line.indexOf(10);
      if (eol >= 0) {
        const skip = typeof line === "string" ? Buffer.byteLength(line.slice(0, eol + 1), "utf8") : eol + 1;
        where.set(filePath, { path: filePath, at: offset + pendingBytes + skip, length: length - skip });
      }
    }
    pending.push(line, typeof line === "string" ? "\n" : NEWLINE);
    pendingBytes += length + 1;
    if (pendingBytes >= 1 << 20) void flush();
  };
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  const line: CacheHeader = { format: CACHE_FORMAT, extractorVersion: header.extractorVersion, includeTestCode: header.includeTestCode, repo: header.repo, sha: header.sha };
  append(JSON.stringify(line), null);
  return {
    add: (result) => append(entryLines(result), result.path),
    carry: (filePath, lines) => append(lines, filePath),
    async factsOf(sites) {
      await flush();
      const out = new Map<Site, SiteFacts>();
      const byPath = new Map<string, Site[]>();
      for (const s of sites) {
        const list = byPath.get(s.path);
        if (list === undefined) byPath.set(s.path, [s]);
        else list.push(s);
      }
      const spans = [...byPath.keys()].flatMap((filePath) => where.get(filePath) ?? []).sort((a, b) => a.at - b.at);
      // Note: neighbouring entries are read together, at most READ_BYTES at a time (beyond one
      //   longer entry): a read per entry took 40 ms on burn (340 of them, each awaited).
      for (let i = 0; i < spans.length; ) {
        const start = spans[i]!.at;
        let j = i + 1;
        while (j < spans.length && spans[j]!.at + spans[j]!.length - start <= READ_BYTES) j++;
        const last = spans[j - 1]!;
        const buffer = Buffer.alloc(last.at + last.length - start);
        await handle.read(buffer, 0, buffer.length, start);
        for (const span of spans.slice(i, j)) {
          const facts = JSON.parse(buffer.toString("utf8", span.at - start, span.at - start + span.length)) as [number, number, string, SiteFacts][];
          // Note: the file's facts by place, the first of a place kept: one lookup per site, not a scan.
          const at = new Map<string, SiteFacts>();
          for (const [line, column, kind, f] of facts) {
            const key = `${line}\0${column}\0${kind}`;
            if (!at.has(key)) at.set(key, f);
          }
          for (const s of byPath.get(span.path)!) {
            const found = at.get(`${s.line}\0${s.column}\0${s.kind}`);
            if (found !== undefined) out.set(s, found);
          }
        }
        i = j;
      }
      return out;
    },
    sync() {
      synced ??= flush().then(() => handle.sync());
      return synced;
    },
    async commit() {
      synced ??= flush().then(() => handle.sync());
      await synced;
      await close();
      await rename(tmp, file);
    },
    async discard() {
      await writing.catch(() => {});
      await close().catch(() => {});
      await rm(tmp, { force: true }).catch(() => {});
    },
  };
}

