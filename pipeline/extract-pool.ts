/**
 * Extraction over many files, on one or more threads: the calling thread, and from two threads on
 * parse threads (workers) beside it. The result is the same, in the same order, whatever the
 * number of threads: each file's sites depend on its text alone.
 */
import { type ResourceLimits, Worker } from "node:worker_threads";
import { candidateHits, type ExtractOptions, type Extraction, extractFile, extractUnparsed, LIBRARY_ONLY, startFile } from "./extract.js";
import type { Hit } from "./layout.js";
import type { Batch, BatchResult } from "./extract-worker.js";
import type { FileSites } from "./types.js";

type FileInput = Batch["files"][number];

/** Parse threads that take files and give back their sites. */
export interface ExtractPool {
  /**
   * The sites of every file, in the order given; `progress` gets the number of these files done.
   * Calls may overlap: their batches share one queue, so the threads never wait between calls.
   * Note: a result extracted on the calling thread may hold slices of its file's text (a
   * thread's answer is a copy): what is kept after the text should be copied (`keptOf` in run.ts).
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
}

/**
 * Extraction on `threads` threads: the calling thread and `threads - 1` parse threads (1: the
 * calling thread alone, no worker).
 * Note: the calling thread extracts too, rather than only reading blobs and handing out batches:
 *   with two parse threads beside it, a 2-core machine ran three JavaScript threads, each with its
 *   own heap and compiler jobs. With one parse thread beside it, 4 and 8 times burn take the same
 *   time (2.61 s against 2.64 s; 4.33 s against 4.34 s, medians of 4 in turns) and peak 10–20 MiB
 *   lower (167–175 MiB against 177–187; 181–185 against 198–206).
 */
export function startPool(threads = 1, options: ExtractOptions = LIBRARY_ONLY, settings: ThreadSettings = {}): ExtractPool {
  if (threads <= 1) return inThread(options);
  return beside(threads - 1, options, settings.heap ?? THREAD_HEAP, settings.log ?? (() => {}));
}

/** A file with candidate text: its index among the files given, and its candidates. */
interface Pending {
  readonly i: number;
  readonly file: FileInput;
  readonly hits: readonly Hit[];
}

/**
 * Files without candidate text are answered at once, without a parse; the others are returned.
 * Note: each text is scanned once; its candidates go on to the lexer.
 */
function triage(files: readonly FileInput[], results: FileSites[]): Pending[] {
  const pending: Pending[] = [];
  files.forEach((file, i) => {
    const hits = candidateHits(file.text);
    if (hits.length > 0) pending.push({ i, file, hits });
    else results[i] = extractUnparsed(file);
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
async function extractInOrder(files: readonly Pending[], options: ExtractOptions, done: (k: number, sites: FileSites) => void): Promise<void> {
  const open: { readonly k: number; readonly extraction: Extraction }[] = [];
  const settle = async () => {
    const { k, extraction } = open.shift()!;
    done(k, extraction.finish(extraction.tree === null ? null : await extraction.tree));
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
      const pending = triage(files, results);
      const before = files.length - pending.length;
      await extractInOrder(pending, options, (k, sites) => {
        results[pending[k]!.i] = sites;
        if (k % 8 === 7) progress?.(before + k + 1);
      });
      progress?.(files.length);
      return results;
    },
    close: async () => {},
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
      const pending = triage(files, results).map((p) => p.i);
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
