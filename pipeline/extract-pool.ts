/**
 * Extraction over many files, on one or more threads. The result is the same, in the same order,
 * whatever the number of threads: each file's sites depend on its text alone.
 */
import { availableParallelism } from "node:os";
import { type ResourceLimits, Worker } from "node:worker_threads";
import { createParser, type ExtractOptions, extractFile, extractUnparsed, hasCandidates, LIBRARY_ONLY } from "./extract.js";
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

/** The default number of parse threads for this machine: its parallelism, at most 4. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
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
  /** Called once before the threads start (not when the calling thread extracts alone). */
  readonly beforeStart?: () => void;
}

/** Starts `threads` parse threads (1: parse on the calling thread, no worker). */
export function startPool(threads: number = defaultThreads(), options: ExtractOptions = LIBRARY_ONLY, settings: ThreadSettings = {}): ExtractPool {
  if (threads <= 1) return inThread(options);
  settings.beforeStart?.();
  return onWorkers(threads, options, settings.heap ?? THREAD_HEAP, settings.log ?? (() => {}));
}

/** Files without candidate text are answered at once, without a parse; the others are returned as indices. */
function triage(files: readonly FileInput[], results: FileSites[]): number[] {
  const pending: number[] = [];
  files.forEach((file, i) => {
    if (hasCandidates(file.text)) pending.push(i);
    else results[i] = extractUnparsed(file);
  });
  return pending;
}

function inThread(options: ExtractOptions): ExtractPool {
  let parser: ReturnType<typeof createParser> | undefined;
  return {
    async extract(files, progress) {
      const results: FileSites[] = new Array(files.length);
      const pending = triage(files, results);
      const parserOf = () => (parser ??= createParser());
      for (const [k, i] of pending.entries()) {
        results[i] = extractFile(files[i]!, parserOf, options);
        if (k % 8 === 7) {
          progress?.(files.length - pending.length + k + 1);
          // Note: tree-sitter frees trees only when the event loop turns; yielding keeps memory
          //   flat, and lets the next blobs in: git waits while the pipe is full (every 32 files
          //   instead: about 50 ms more waiting for blobs on burn).
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
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

function onWorkers(threads: number, options: ExtractOptions, heap: ResourceLimits, log: (line: string) => void): ExtractPool {
  const queue: Job[] = [];
  const idle: Worker[] = [];
  const running = new Map<Worker, Job>();
  const workers = new Set<Worker>();
  let broken: unknown = null;
  /** Extracts a job's files on the calling thread: the jobs no thread could hold. */
  let parser: ReturnType<typeof createParser> | undefined;
  const here = (job: Job) => {
    try {
      job.resolve(job.files.map((file) => extractFile(file, (parser ??= createParser()), options)));
    } catch (error) {
      job.reject(error);
    }
  };
  const dispatch = () => {
    while (idle.length > 0 && queue.length > 0) {
      const worker = idle.pop()!;
      const job = queue.shift()!;
      running.set(worker, job);
      worker.postMessage({ files: job.files, options } satisfies Batch);
    }
    // Note: when every thread ran out of memory, the calling thread takes what is left.
    if (workers.size === 0) for (const job of queue.splice(0)) here(job);
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
        if (job !== undefined) here(job);
        const at = idle.indexOf(worker);
        if (at >= 0) idle.splice(at, 1);
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
      const pending = triage(files, results);
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
      await Promise.all(
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
      return results;
    },
    close: async () => {
      await Promise.all([...workers].map((w) => w.terminate()));
    },
  };
}
