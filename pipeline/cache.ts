/**
 * The extraction cache: what extraction found in each file, kept between runs so a run at a new
 * SHA parses only the files whose blobs changed. Effects: the file system, at the edges only
 * (`loadExtractCache` once before extraction; `openCacheWriter`, whose file is written during
 * extraction and renamed into place after a successful run); everything in between is plain data.
 *
 * Layout: one JSON Lines file per repository, `<cacheDir>/extract/<owner>+<name>.jsonl`: a first
 * line with the format, the extractor version, the repository and the commit of the tree; then
 * per path of that tree, in tree order, a line of what extraction says of the file but its sites
 * (`CacheHead`), a line of its sites (without facts), and when a site has facts a line of those
 * (`[[line, column, kind, facts], …]`); last a line with the SHA-256 of every byte before it.
 * Note: lines, so that neither saving nor loading builds one string of the whole cache.
 * Note: loading checks the SHA-256 and parses only the heads. The sites of a file are parsed when
 * first asked for (`ExtractCache.entry`), so a run that needs the sites of the changed files only
 * reads no others; facts are a third of the file and only a record's first site lends them, so
 * their lines stay bytes, which a run copies into the next cache and reads back only where a
 * record needs them (`factsOf`).
 *
 * Note: an entry is used only when both the path and the blob id match. Sites carry their path
 * and a context derived from it (`tests/`, `benches/`, …), so the same blob under another path
 * is extracted again rather than patched.
 * Note: entries hold the per-file sites BEFORE `applyTestModules`, which is cross-file (a
 * `#[cfg(test)] mod t;` in one file makes another file test code) and is re-applied every run.
 * Note: the cache keeps the entries of the newest tree only, so it stays the size of one tree;
 * going back to an older SHA parses again what differs.
 */
import { createHash } from "node:crypto";
import { open, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { removeLeftovers } from "./leftovers.js";
import { checkRepo, makeDir, within } from "./paths.js";
import type { FileSites, Site, SiteFacts } from "./types.js";

/** The cache of one repository, in memory: entries by path. */
export interface ExtractCache {
  readonly extractorVersion: number;
  /** What extraction parsed (`ExtractOptions`): test code's sites have facts only when it is catalogued. */
  readonly includeTestCode: boolean;
  /** The commit whose tree the entries are of (null: unknown, an empty cache). */
  readonly sha: string | null;
  /** The blobs of the tree's `Cargo.toml` files (`manifestsKey`) when the cache was written: the workspace's layout depends on them as well as on the entries. Null: unknown. */
  readonly manifests: string | null;
  /** What an entry says of its file but its sites, by path. */
  readonly heads: ReadonlyMap<string, CacheHead>;
  /** What extraction found in the file at `path` (as `extractFile` returned it, before `applyTestModules`, without facts), read when first asked for; undefined when there is no entry. */
  entry(path: string): FileSites | undefined;
  /** Each entry's lines as the file holds them (bytes: its head, sites and facts lines, no final line end): an entry carried into the next cache is written as it was read. */
  readonly lines: ReadonlyMap<string, Buffer>;
}

/** What an entry says of its file but its sites. */
export type CacheHead = Omit<FileSites, "sites">;

/** An entry's first line: its head, and whether a facts line follows its sites line. */
type HeadLine = CacheHead & { readonly facts: boolean };

/** The layout of the file (bumped when it changes: a file of another layout is not read). */
const CACHE_FORMAT = 4;

/** The first line of the file. */
interface CacheHeader {
  readonly format?: number;
  readonly extractorVersion: number;
  readonly includeTestCode: boolean;
  readonly repo: string;
  readonly sha?: string;
  readonly manifests?: string;
}

/** `<cacheDir>/extract/<owner>+<name>.jsonl`; E_INPUT when `repo` is not a safe `owner/name` (`checkRepo`). Never touches the disk. */
export function extractCachePath(cacheDir: string, repo: string): string {
  checkRepo(repo);
  return within(cacheDir, path.join(cacheDir, "extract", `${repo.replace("/", "+")}.jsonl`), "the extraction cache");
}

/** An empty cache for `extractorVersion` and `includeTestCode`. */
export function emptyCache(extractorVersion: number, includeTestCode = false): ExtractCache {
  return { extractorVersion, includeTestCode, sha: null, manifests: null, heads: new Map(), entry: () => undefined, lines: new Map() };
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
      lines.push(bytes.subarray(start, stop));
      start = stop + 1;
    }
    const header = JSON.parse(lines[0]?.toString("utf8") ?? "") as CacheHeader;
    if (header.format !== CACHE_FORMAT || header.extractorVersion !== extractorVersion || header.includeTestCode !== includeTestCode || header.repo !== repo) return { cache: empty, problem: null };
    // The last line is the hash of what precedes it (a final line end starts no further line).
    if (lines.at(-1)?.length === 0) lines.pop();
    const trailer = lines.pop();
    const hashed = trailer === undefined ? "" : (JSON.parse(trailer.toString("utf8")) as { sha256?: string }).sha256;
    if (trailer === undefined || hashed !== createHash("sha256").update(bytes.subarray(0, trailer.byteOffset - bytes.byteOffset)).digest("hex")) throw new Error("its SHA-256 is not the one it records");
    const heads = new Map<string, CacheHead>();
    const raw = new Map<string, Buffer>();
    const sitesLines = new Map<string, Buffer>();
    const span = (first: Buffer, last: Buffer) => bytes.subarray(first.byteOffset - bytes.byteOffset, last.byteOffset - bytes.byteOffset + last.length);
    for (let k = 1; k < lines.length; ) {
      const { facts, ...head } = JSON.parse(lines[k]!.toString("utf8")) as HeadLine;
      const sitesLine = lines[k + 1];
      const last = facts ? lines[k + 2] : sitesLine;
      if (sitesLine === undefined || last === undefined) throw new Error(`the entry of ${head.path} is cut short`);
      heads.set(head.path, head);
      sitesLines.set(head.path, sitesLine);
      raw.set(head.path, span(lines[k]!, last));
      k += facts ? 3 : 2;
    }
    const parsed = new Map<string, FileSites>();
    const entry = (path: string): FileSites | undefined => {
      const known = parsed.get(path);
      if (known !== undefined) return known;
      const head = heads.get(path);
      if (head === undefined) return undefined;
      const whole: FileSites = { ...head, sites: JSON.parse(sitesLines.get(path)!.toString("utf8")) as Site[] };
      parsed.set(path, whole);
      return whole;
    };
    return { cache: { extractorVersion, includeTestCode, sha: header.sha ?? null, manifests: header.manifests ?? null, heads, entry, lines: raw }, problem: null };
  } catch (error) {
    return { cache: empty, problem: `ignoring the damaged extraction cache ${file}: ${(error as Error).message}` };
  }
}

/** True when the cache has an entry of `file`: its path and blob match. */
export function cached(cache: ExtractCache, file: { readonly path: string; readonly blob: string }): boolean {
  return cache.heads.get(file.path)?.blob === file.blob;
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

/** The lines of one file's entry: its head, its sites without facts, then their facts when a site has any. */
function entryLines(result: FileSites): string {
  const facts: [number, number, string, SiteFacts][] = [];
  for (const s of result.sites) if (s.facts != null) facts.push([s.line, s.column, s.kind, s.facts]);
  const head: HeadLine = { path: result.path, blob: result.blob, parseErrors: result.parseErrors, parsed: result.parsed, testModules: result.testModules, ...(result.modules === undefined ? {} : { modules: result.modules }), ...sourceFactsOf(result), facts: facts.length > 0 };
  const lines = [JSON.stringify(head), JSON.stringify(facts.length === 0 ? result.sites : result.sites.map((s) => (s.facts == null ? s : { ...s, facts: null })))];
  if (facts.length > 0) lines.push(JSON.stringify(facts));
  return lines.join("\n");
}

/**
 * What the message sources noted of the file (`SourceFacts`), and its symbols, kept in its head: the whole tree's
 * are read each run without its sites (sources/index.ts).
 */
function sourceFactsOf(result: FileSites): Pick<FileSites, "calls" | "wrappers" | "constants" | "constantsRead" | "symbols"> {
  const kept = { calls: result.calls, wrappers: result.wrappers, constants: result.constants, constantsRead: result.constantsRead, symbols: result.symbols };
  return Object.fromEntries(Object.entries(kept).filter(([, value]) => value !== undefined));
}

/** At most how many bytes of the file `factsOf` reads at a time (unless one entry is longer). */
const READ_BYTES = 1 << 20;

/** Starts writing the cache of `sha`'s tree to a temporary file beside `file` (made with its folder). */
export async function openCacheWriter(file: string, header: { readonly repo: string; readonly sha: string; readonly extractorVersion: number; readonly includeTestCode: boolean; readonly manifests?: string }): Promise<CacheWriter> {
  await makeDir(path.dirname(file));
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
    if (!sealed) for (const part of parts) hash.update(part);
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
      // Note: a facts line follows the entry's second line break (JSON text holds none).
      const first = typeof line === "string" ? line.indexOf("\n") : line.indexOf(10);
      const eol = first < 0 ? -1 : typeof line === "string" ? line.indexOf("\n", first + 1) : line.indexOf(10, first + 1);
      if (eol >= 0) {
        const skip = typeof line === "string" ? Buffer.byteLength(line.slice(0, eol + 1), "utf8") : eol + 1;
        where.set(filePath, { path: filePath, at: offset + pendingBytes + skip, length: length - skip });
      }
    }
    pending.push(line, typeof line === "string" ? "\n" : NEWLINE);
    pendingBytes += length + 1;
    if (pendingBytes >= 1 << 20) void flush();
  };
  /** The hash of every byte written so far; once `sealed`, the trailer holding it is written and nothing after. */
  const hash = createHash("sha256");
  let sealed = false;
  /** Writes what is pending, then the trailer line with the hash of all before it. */
  const seal = () => {
    if (sealed) return writing;
    void flush();
    sealed = true;
    append(JSON.stringify({ sha256: hash.digest("hex") }), null);
    return flush();
  };
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  const line: CacheHeader = { format: CACHE_FORMAT, extractorVersion: header.extractorVersion, includeTestCode: header.includeTestCode, repo: header.repo, sha: header.sha, ...(header.manifests === undefined ? {} : { manifests: header.manifests }) };
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
      synced ??= seal().then(() => handle.sync());
      return synced;
    },
    async commit() {
      synced ??= seal().then(() => handle.sync());
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

