/**
 * Extraction over many files, on one or more threads: the calling thread, and from two threads on
 * parse threads (workers) beside it. The result is the same, in the same order, whatever the
 * number of threads: each file's sites depend on its text alone.
 *
 * `extractTree` schedules a whole tree: blobs streamed from git in parts, the cache's entries
 * taken where path and blob match, each fresh result handed to the cache writer in tree order.
 */
import { type ResourceLimits, Worker } from "node:worker_threads";
import { type Excerpt, excerptOfText, recordKey } from "./build.js";
import { type CacheWriter, cached, type ExtractCache } from "./cache.js";
import { inCatalogue } from "./counts.js";
import { PipelineError } from "./errors.js";
import type { BlobReader, TreeEntry } from "./read.js";
import { lineStartsOf } from "./tree-view.js";
import { candidateHits, type ExtractOptions, type Extraction, extractFile, extractUnparsed, LIBRARY_ONLY, startFile, unparsedSites } from "./extract.js";
import type { Hit } from "./layout.js";
import type { Batch, BatchResult } from "./extract-worker.js";
import type { FlatTree } from "./parse.js";
import { type TreeSites, withTokenFacts } from "./token-pass.js";
import { startTokenThread, type TokenPass } from "./token-thread.js";
import type { FileSites, PlaceText, Site } from "./types.js";

type FileInput = Batch["files"][number];

/** Parse threads that take files and give back their sites. */
export interface ExtractPool {
  /**
   * The sites of every file, in the order given; `progress` gets the number of these files done.
   * Calls may overlap: their batches share one queue, so the threads never wait between calls.
   * Note: a result extracted on the calling thread may hold slices of its file's text (a
   * thread's answer is a copy): what is kept after the text should be copied (`keptOf`).
   */
  extract(files: readonly FileInput[], progress?: (done: number) => void): Promise<FileSites[]>;
  /** Stops the threads. */
  close(): Promise<void>;
}

/** Files of about this many characters go to a thread at a time. */
const BATCH_CHARS = 64 * 1024;

/**
 * The heap of each parse thread. A thread holds one batch at a time, and a bounded heap keeps
 * the process's memory flat: without a limit, V8 lets each thread's heap grow to several times
 * what it holds (8 times burn on two threads: 315–330 MiB in all, against 250–275 with these,
 * in the same time; 48 MB instead of 128 saves nothing more).
 * A batch that does not fit is extracted on the calling thread: a single file of about 10 MB
 * (5 MB fits; with 48 MB, 3 MB does not).
 */
export const THREAD_HEAP: ResourceLimits = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 8 };

/** How parse threads are started: each one's heap, and where to say that one ran out of it. */
export interface ThreadSettings {
  readonly heap?: ResourceLimits;
  readonly log?: (line: string) => void;
  /** With one thread: the token pass of the files runs there (`startTokenThread`), not on the calling thread. */
  readonly tokens?: TokenPass;
}

/**
 * Extraction on `threads` threads: the calling thread and `threads - 1` parse threads (1: the
 * calling thread alone, no parse thread; the token pass on `settings.tokens` when given).
 * Note: the calling thread extracts too, rather than only reading blobs and handing out batches:
 *   with two parse threads beside it, a 2-core machine ran three JavaScript threads, each with its
 *   own heap and compiler jobs. With one parse thread beside it, 4 and 8 times burn take the same
 *   time (2.61 s against 2.64 s; 4.33 s against 4.34 s, medians of 4 in turns) and peak 10–20 MiB
 *   lower (167–175 MiB against 177–187; 181–185 against 198–206).
 */
export function startPool(threads = 1, options: ExtractOptions = LIBRARY_ONLY, settings: ThreadSettings = {}): ExtractPool {
  if (threads <= 1) return settings.tokens === undefined ? inThread(options) : withTokenThread(options, settings.tokens);
  return beside(threads - 1, options, settings.heap ?? THREAD_HEAP, settings.log ?? (() => {}));
}

/** A file with candidate text: its index among the files given, and its candidates. */
interface Pending {
  readonly i: number;
  readonly file: FileInput;
  readonly hits: readonly Hit[];
}

/**
 * Files without candidate text are answered at once (`unparsed`), without a parse; the others are returned.
 * Note: each text is scanned once; its candidates go on to the lexer.
 */
function triage<T>(files: readonly FileInput[], results: T[], unparsed: (file: FileInput) => T): Pending[] {
  const pending: Pending[] = [];
  files.forEach((file, i) => {
    const hits = candidateHits(file.text);
    if (hits.length > 0) pending.push({ i, file, hits });
    else results[i] = unparsed(file);
  });
  return pending;
}

/** Lets the event loop turn (blobs from git come in, a parse thread's answer is taken). */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Parses in flight on the thread pool while the calling thread lays out the next files.
 * Note: 3 rather than 2 since the parse threads are batch threads (parse.c): 683 against 687 ms,
 *   613 against 622 in one process (medians of 15 and 11, in turns).
 */
const PARSES_AHEAD = 3;

/**
 * Extracts `files` on the calling thread, each parse overlapping the layout of the files after
 * it; `done(k, sites)` gets each file's sites, in the order given. The event loop turns every 8
 * files (every 32 instead: about 50 ms more waiting for blobs on burn; git waits while the pipe
 * is full).
 */
async function extractInOrder(files: readonly Pending[], options: ExtractOptions, done: (k: number, extraction: Extraction, tree: FlatTree | null) => void): Promise<void> {
  const open: { readonly k: number; readonly extraction: Extraction }[] = [];
  const settle = async () => {
    const { k, extraction } = open.shift()!;
    done(k, extraction, extraction.tree === null ? null : await extraction.tree);
  };
  for (const [k, { file, hits }] of files.entries()) {
    open.push({ k, extraction: startFile(file, options, undefined, hits) });
    while (open.length > 0 && (open[0]!.extraction.tree === null || open.length > PARSES_AHEAD)) await settle();
    if (k % 8 === 7) await turn();
  }
  while (open.length > 0) await settle();
}

function inThread(options: ExtractOptions): ExtractPool {
  return {
    async extract(files, progress) {
      const results: FileSites[] = new Array(files.length);
      await extractEach(files, options, results, extractUnparsed, (extraction, tree) => extraction.finish(tree), progress);
      return results;
    },
    close: async () => {},
  };
}

/**
 * Extracts `files` on the calling thread into `results` (`unparsed` for a file without candidate
 * text, `finish` for the others, in order), saying how many are done.
 */
async function extractEach<T>(files: readonly FileInput[], options: ExtractOptions, results: T[], unparsed: (file: FileInput) => T, finish: (extraction: Extraction, tree: FlatTree | null) => T, progress?: (done: number) => void): Promise<void> {
  const pending = triage(files, results, unparsed);
  const before = files.length - pending.length;
  await extractInOrder(pending, options, (k, extraction, tree) => {
    results[pending[k]!.i] = finish(extraction, tree);
    if (k % 8 === 7) progress?.(before + k + 1);
  });
  progress?.(files.length);
}

/**
 * The calling thread with the token pass beside it (`tokens`): each call's texts go to the token
 * thread first, and its answers are joined to the sites the calling thread read.
 */
function withTokenThread(options: ExtractOptions, tokens: TokenPass): ExtractPool {
  return {
    async extract(files, progress) {
      const tickets = tokens.add(files.map((f) => f.text));
      const read: TreeSites[] = new Array(files.length);
      await extractEach(files, options, read, unparsedSites, (extraction, tree) => extraction.read(tree), progress);
      const facts = await tokens.take(tickets);
      return read.map((sites, i) => withTokenFacts(sites, facts[i]!));
    },
    close: () => tokens.close(),
  };
}

interface Job {
  readonly files: readonly FileInput[];
  readonly resolve: (results: readonly FileSites[]) => void;
  readonly reject: (error: unknown) => void;
}

/** The calling thread and `threads` parse threads, taking batches from one queue. */
function beside(threads: number, options: ExtractOptions, heap: ResourceLimits, log: (line: string) => void): ExtractPool {
  const queue: Job[] = [];
  const idle: Worker[] = [];
  const running = new Map<Worker, Job>();
  const workers = new Set<Worker>();
  let broken: unknown = null;
  /** The jobs no thread could hold: the calling thread takes them first. */
  const mine: Job[] = [];
  const dispatch = () => {
    while (idle.length > 0 && queue.length > 0) {
      const worker = idle.pop()!;
      const job = queue.shift()!;
      running.set(worker, job);
      worker.postMessage({ files: job.files, options } satisfies Batch);
    }
    // Note: when every thread ran out of memory, the calling thread takes what is left.
    if (workers.size === 0) void takeShare();
  };
  /**
   * The calling thread's share: the jobs no thread could hold, then the last batch of the queue
   * (the smallest, as each call queues the largest first) while there is one, a file at a time.
   * Note: the event loop turns after each file, so a parse thread's answer is taken, and the
   *   thread sent its next batch, within a file's time (after each batch instead: 4.62 s against
   *   4.42 at 8 times burn, the thread waiting while the calling thread finished its batch).
   */
  let extracting = false;
  const takeShare = async () => {
    if (extracting) return;
    extracting = true;
    try {
      for (let job = mine.pop() ?? queue.pop(); job !== undefined; job = mine.pop() ?? queue.pop()) {
        const out: FileSites[] = [];
        try {
          for (const file of job.files) {
            out.push(await extractFile(file, options));
            await turn();
          }
        } catch (error) {
          job.reject(error);
          continue;
        }
        job.resolve(out);
      }
    } finally {
      extracting = false;
    }
  };
  for (let k = 0; k < threads; k++) {
    const worker = new Worker(new URL("./extract-worker.js", import.meta.url), { resourceLimits: heap });
    workers.add(worker);
    worker.on("message", (answer: BatchResult) => {
      const job = running.get(worker)!;
      running.delete(worker);
      idle.push(worker);
      job.resolve(answer.results);
      dispatch();
    });
    worker.on("error", (error) => {
      workers.delete(worker);
      const job = running.get(worker);
      running.delete(worker);
      // A batch too big for a thread's heap: the thread is gone, the calling thread extracts it.
      if ((error as NodeJS.ErrnoException).code === "ERR_WORKER_OUT_OF_MEMORY") {
        log(`a parse thread ran out of its ${heap.maxOldGenerationSizeMb ?? "default"} MB heap; ${workers.size === 0 ? "the calling thread extracts the rest" : "its files are extracted on the calling thread"}`);
        if (job !== undefined) mine.push(job);
        const at = idle.indexOf(worker);
        if (at >= 0) idle.splice(at, 1);
        void takeShare();
        dispatch();
        return;
      }
      broken = error;
      for (const pending of [...running.values(), ...queue.splice(0), ...(job ? [job] : [])]) pending.reject(error);
      running.clear();
    });
    idle.push(worker);
  }

  return {
    async extract(files, progress) {
      if (broken !== null) throw broken;
      const results: FileSites[] = new Array(files.length);
      const pending = triage(files, results, extractUnparsed).map((p) => p.i);
      let done = files.length - pending.length;
      // Largest first, so no thread is left with one big file at the end of the queue.
      pending.sort((a, b) => files[b]!.text.length - files[a]!.text.length || a - b);
      const batches: number[][] = [];
      let batch: number[] = [];
      let chars = 0;
      for (const i of pending) {
        batch.push(i);
        chars += files[i]!.text.length;
        if (chars >= BATCH_CHARS || batch.length >= 32) (batches.push(batch), (batch = []), (chars = 0));
      }
      if (batch.length > 0) batches.push(batch);
      const answered = Promise.all(
        batches.map(
          (indices) =>
            new Promise<void>((resolve, reject) => {
              queue.push({
                files: indices.map((i) => files[i]!),
                resolve: (answer) => {
                  answer.forEach((r, k) => (results[indices[k]!] = r));
                  done += indices.length;
                  progress?.(done);
                  resolve();
                },
                reject,
              });
              dispatch();
            }),
        ),
      );
      void takeShare();
      await answered;
      return results;
    },
    close: async () => {
      await Promise.all([...workers].map((w) => w.terminate()));
    },
  };
}

/** How `extractTree` runs. */
export interface TreeOptions {
  /** Threads to extract on (`startPool`); default 1. */
  readonly threads?: number;
  /** Progress of the files done, for a bar. */
  readonly progress?: (stage: string, done: number, total: number) => void;
  /** Called once before extracting a tree of `LARGE_TREE_FILES` files or more. */
  readonly beforeLargeTree?: () => void;
  readonly log: (line: string) => void;
  /** Lines of source kept on each side of an excerpt. */
  readonly contextLines: number;
}

/** From how many files to extract on, the token pass has a thread of its own (`startTokenThread`). */
export const TOKEN_THREAD_FILES = 128;

/** From how many files to extract on, a tree is large (`TreeOptions.beforeLargeTree`). */
export const LARGE_TREE_FILES = 3072;

/** How many files' texts are read from git at a time. */
const PART_FILES = 128;

/** What extraction of a whole tree gave, and how much of it came from the cache. */
export interface TreeExtraction {
  /** Per-file sites before `applyTestModules`, in tree order; without facts when `writer` has them. The cache's entries are read here. */
  all(): FileSites[];
  /** What the message sources noted in each file of the tree (its wrappers and calls), in tree order, without reading the cache's sites. */
  sourceFacts(): Pick<FileSites, "path" | "calls" | "wrappers" | "modules" | "constants" | "constantsRead">[];
  /** Each file's symbols and test-module declarations, in tree order, without reading the cache's sites. */
  symbolFacts(): Pick<FileSites, "path" | "testModules" | "symbols">[];
  /** Those of the files extracted in this run (not in the cache), in tree order. */
  readonly fresh: readonly FileSites[];
  /** Files parsed with tree-sitter in this run. */
  readonly parsed: number;
  /** Files taken from the cache. */
  readonly reused: number;
  /**
   * The excerpts of the first sites that took facts in this run, one per pattern (those that are
   * the records' first sites), by `<path>:<line>`, cut while their file's text was at hand.
   */
  readonly excerpts: ReadonlyMap<string, Excerpt>;
}

/**
 * Extracts every file, taking what it can from `cache` (path and blob must match) and sending
 * the rest to the parse threads. Blobs are streamed from `reader` in parts, so only a part's
 * texts are in memory at a time; each result goes to the cache `writer` in tree order as soon as
 * it and the files before it are done, and is kept without its facts (null writer: kept whole).
 */
export async function extractTree(
  entries: readonly TreeEntry[],
  cache: ExtractCache,
  writer: CacheWriter | null,
  reader: BlobReader,
  { threads, progress, beforeLargeTree, log, contextLines }: TreeOptions,
): Promise<TreeExtraction> {
  // Note: an entry of the cache is read when the run asks for all files' sites (`all`), if ever.
  const results: (FileSites | null)[] = entries.map(() => null);
  const misses = entries.flatMap((e, i) => (cached(cache, e) ? [] : [i]));
  const fresh = new Set(misses);
  const reused = entries.length - misses.length;
  // Note: by default the calling thread extracts every file, with tree-sitter's parse on libuv's
  //   thread pool beside it: a parse thread (a worker) costs its own start and JIT warm-up and
  //   competes with that pool for the second core. 4 and 8 times burn: 1.88–1.94 s against
  //   1.99–2.17 s on two threads, 3.30–3.57 s against 3.61–3.77 s, and 154–162 MiB against
  //   164–170, 171–177 against 181–183 (3 runs each, in turns).
  if (misses.length >= LARGE_TREE_FILES) beforeLargeTree?.();
  // Note: on one thread, the token pass runs on a thread of its own beside it, from enough files
  //   on to pay for the thread's start (with parse threads, each reads its files' token pass).
  const tokens = (threads ?? 1) <= 1 && misses.length >= TOKEN_THREAD_FILES ? startTokenThread({ heap: THREAD_HEAP, log }) : undefined;
  const pool = startPool(threads ?? 1, { includeTestCode: cache.includeTestCode }, { log, tokens });
  /** For each pattern, the first of its sites that took facts (in tree order) and its excerpt. */
  const firsts = new Map<string, { readonly at: number; readonly line: number; readonly key: string; readonly excerpt: Excerpt }>();
  /**
   * Keeps the excerpt of each pattern's first site that took facts, copied away from its file's
   * text (`at`: the file's index in the tree): that site is its record's first, unless a
   * declaration elsewhere makes it test code (its file is then read again).
   * Note: 1042 excerpts for burn's 6538 sites, 1.38 M characters, its 1037 records' among them;
   *   so no file is read from git again for them (303 files, 5.7 MB, whose reading the run waited
   *   for: 705 against 746 ms, medians of 11 in turns). One per pattern: 8 times burn keeps as many.
   */
  const keepExcerpts = (r: FileSites, text: string, at: number) => {
    let starts: number[] | undefined;
    for (const s of r.sites) {
      const pattern = s.facts == null ? null : recordKey(s);
      if (pattern === null) continue;
      const known = firsts.get(pattern);
      if (known !== undefined && (known.at < at || (known.at === at && known.line <= s.line))) continue;
      starts ??= lineStartsOf(text);
      const excerpt = excerptOfText(text, starts, s.line, contextLines);
      firsts.set(pattern, { at, line: s.line, key: `${r.path}:${s.line}`, excerpt: { ...excerpt, code: structuredClone(excerpt.code) } });
    }
  };
  /** Results up to this index have gone to the writer. */
  let next = 0;
  const handOver = (through: number) => {
    for (; next <= through; next++) {
      if (!fresh.has(next)) {
        // Note: an entry taken from the cache is written as it was read.
        writer?.carry(entries[next]!.path, cache.lines.get(entries[next]!.path)!);
        continue;
      }
      const r = results[next]!;
      if (writer === null) {
        // Note: kept whole, so copied away from the file's text (`ExtractPool.extract`).
        results[next] = structuredClone(r);
        continue;
      }
      // Note: a fresh one is kept without what the run does not need.
      writer.add(r);
      results[next] = { ...r, sites: r.sites.map((s) => keptOf(s, cache.includeTestCode, r.path)) };
    }
  };
  try {
    let done = reused;
    let parsed = 0;
    // Note: parts are read from git one after another, the next asked for as soon as one arrives,
    // and handed to the threads at once; at most three parts' texts are alive, so memory does not
    // grow with the size of the tree.
    const inFlight: { readonly last: number; readonly done: Promise<void> }[] = [];
    const readPart = (k: number) => (k < misses.length ? reader.read(misses.slice(k, k + PART_FILES).map((i) => entries[i]!.blob)) : Promise.resolve([]));
    let nextTexts = readPart(0);
    for (let k = 0; k < misses.length; k += PART_FILES) {
      const part = misses.slice(k, k + PART_FILES);
      const texts = await nextTexts;
      nextTexts = readPart(k + PART_FILES);
      const files = part.map((i, j) => ({ ...entries[i]!, text: texts[j]! }));
      let reported = 0;
      const extracting = pool
        .extract(files, (n) => {
          done += n - reported;
          reported = n;
          progress?.("extract", done, entries.length);
        })
        .then((fresh) => {
          fresh.forEach((r, j) => {
            results[part[j]!] = r;
            keepExcerpts(r, files[j]!.text, part[j]!);
          });
          parsed += fresh.filter((r) => r.parsed).length;
        });
      inFlight.push({ last: part.at(-1)!, done: extracting });
      if (inFlight.length >= 2) {
        const oldest = inFlight.shift()!;
        await oldest.done;
        handOver(oldest.last);
      }
    }
    for (const { last, done: extracting } of inFlight) {
      await extracting;
      handOver(last);
    }
    handOver(entries.length - 1);
    const excerpts = new Map([...firsts.values()].map((f) => [f.key, f.excerpt]));
    return {
      all: () => results.map((r, i) => r ?? cache.entry(entries[i]!.path)!),
      sourceFacts: () => entries.map((e, i) => results[i] ?? cache.heads.get(e.path)!),
      symbolFacts: () => entries.map((e, i) => results[i] ?? cache.heads.get(e.path)!),
      fresh: misses.map((i) => results[i]!),
      parsed,
      reused,
      excerpts,
    };
  } finally {
    await pool.close();
  }
}

/**
 * What the run keeps of a site of the file at `path` once the cache file has it whole: no facts (a
 * record's first site gets its facts back from the file), and for a site that can never be
 * catalogued (test, bench or example code, unless catalogued), only what the counts read: its
 * message, runtime parts and error class go.
 * Note: most sites are test code; so memory grows with the tree by a small object per site. Its
 * strings are shared: a site copied from a thread has copies of its own of its kind, path and
 * context. Its message, runtime parts and error class are copied, as they may be slices of the file's text.
 */
function keptOf(site: Site, includeTestCode: boolean, path: string): Site {
  const { message, runtime, place, owner, errorClass, constantReads } =
    inCatalogue(site, includeTestCode) && (site.message !== null || site.runtime !== null || site.place != null)
      ? structuredClone({ message: site.message, runtime: site.runtime, place: site.place ?? null, owner: site.owner ?? "", errorClass: site.errorClass, constantReads: site.constantReads })
      : // Note: that a site has a place's record is what its count reads (`siteCounts`), not the place's text.
        { message: null, runtime: null, place: site.place == null ? null : SOME_PLACE, owner: "", errorClass: null, constantReads: undefined };
  return {
    kind: shared(site.kind),
    path,
    line: site.line,
    column: site.column,
    inTokenTree: site.inTokenTree,
    context: shared(site.context),
    message,
    runtime,
    skip: site.skip === null ? null : shared(site.skip),
    place,
    owner,
    facts: null,
    ...(errorClass == null ? {} : { errorClass }),
    ...(site.source === undefined ? {} : { source: structuredClone(site.source) }),
    ...(constantReads === undefined ? {} : { constantReads }),
  };
}

/** The place a site outside the catalogue is kept with: it has one, whose text no record needs. */
const SOME_PLACE: PlaceText = Object.freeze({ message: "", runtime: Object.freeze([]) });

/** One copy of each of the few words sites repeat (kinds, contexts, skip reasons). */
const words = new Map<string, string>();
function shared<T extends string>(word: T): T {
  const known = words.get(word);
  if (known !== undefined) return known as T;
  words.set(word, word);
  return word;
}

/**
 * The records' groups of sites, each site with the facts extraction found for it (the first of
 * its message in its file has some): read back from the cache file, where the run dropped them
 * (sites extracted in this run; the analysis reads no others).
 */
export async function withFirstFacts(groups: ReadonlyMap<string, Site[]>, writer: CacheWriter, cacheFile: string): Promise<Map<string, Site[]>> {
  // Note: every site of a record is asked for: the first lends the record its facts, the others
  //   (the first of the message in their own files) their path conditions (`facts.otherSites`).
  const wanted = [...groups.values()].flat().filter((s) => s.facts == null);
  if (wanted.length === 0) return new Map(groups);
  const facts = await writer.factsOf(wanted).catch((error: Error) => {
    throw new PipelineError("E_IO", `could not write the extraction cache ${cacheFile}, which holds the facts of this run's sites`, {
      hint: "check that the cache folder is writable and the disk has room; earlier versions are untouched",
      details: [error.message],
    });
  });
  return new Map(
    [...groups].map(([pattern, group]) => [pattern, group.map((s) => {
      const f = facts.get(s);
      return f === undefined ? s : { ...s, facts: f };
    })]),
  );
}
