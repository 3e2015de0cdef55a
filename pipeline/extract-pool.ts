/**
 * Extraction over many files, on one or more threads. The result is the same, in the same order,
 * whatever the number of threads: each file's sites depend on its text alone.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { createParser, extractFile, hasCandidates } from "./extract.js";
import type { Batch, BatchResult } from "./extract-worker.js";
import type { FileSites } from "./types.js";

type FileInput = Batch["files"][number];

export interface PoolOptions {
  /** Parse threads; 1 parses on the calling thread. Default: the machine's parallelism, at most 4. */
  readonly threads?: number;
  /** Called as files are done. */
  readonly progress?: (done: number, total: number) => void;
}

/** The default number of parse threads for this machine. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/**
 * The sites of every file, in the order given. Files without candidate text are answered at
 * once without a parse; the rest go to the threads in batches, largest files first.
 */
export async function extractFiles(files: readonly FileInput[], options: PoolOptions = {}): Promise<FileSites[]> {
  const results: FileSites[] = new Array(files.length);
  const pending: number[] = [];
  files.forEach((file, i) => {
    if (hasCandidates(file.text)) pending.push(i);
    else results[i] = { path: file.path, blob: file.blob, sites: [], parseErrors: false, parsed: false };
  });
  const threads = Math.min(options.threads ?? defaultThreads(), Math.max(1, Math.ceil(pending.length / 8)));
  let done = files.length - pending.length;
  const report = (n: number) => options.progress?.((done += n), files.length);

  if (threads <= 1) {
    const parser = createParser();
    for (const [k, i] of pending.entries()) {
      results[i] = extractFile(files[i]!, parser);
      if (k % 32 === 31) {
        report(32);
        // Note: tree-sitter frees trees only when the event loop turns; yielding keeps memory flat.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    options.progress?.(files.length, files.length);
    return results;
  }

  // Largest first, so no thread is left with one big file at the end.
  pending.sort((a, b) => files[b]!.text.length - files[a]!.text.length || a - b);
  const batches: number[][] = [];
  for (let k = 0; k < pending.length; k += 16) batches.push(pending.slice(k, k + 16));
  let cursor = 0;
  const workers = Array.from({ length: threads }, () => new Worker(new URL("./extract-worker.js", import.meta.url)));
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const next = () => {
              if (cursor >= batches.length) return resolve();
              const id = cursor++;
              worker.postMessage({ id, files: batches[id]!.map((i) => files[i]!) } satisfies Batch);
            };
            worker.on("message", (answer: BatchResult) => {
              const indices = batches[answer.id]!;
              answer.results.forEach((r, k) => (results[indices[k]!] = r));
              report(indices.length);
              next();
            });
            worker.on("error", reject);
            next();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}
