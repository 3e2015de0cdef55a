/**
 * A parse thread: takes batches of files, answers with their sites. One parser per thread.
 * Note: answering per batch lets the thread's event loop turn, which is when tree-sitter frees
 * the trees of the batch; memory stays flat however many files pass through.
 */
import { parentPort } from "node:worker_threads";
import { createParser, type ExtractOptions, extractFile } from "./extract.js";
import type { FileSites } from "./types.js";

/** What a thread is sent: files with their text, and what to parse of them. */
export interface Batch {
  readonly files: readonly { readonly path: string; readonly blob: string; readonly text: string }[];
  readonly options: ExtractOptions;
}

/** What a thread answers: the sites of each file of the batch, in order. */
export interface BatchResult {
  readonly results: readonly FileSites[];
}

const port = parentPort;
if (port !== null) {
  const parser = createParser();
  port.on("message", (batch: Batch) => {
    const answer: BatchResult = { results: batch.files.map((file) => extractFile(file, parser, batch.options)) };
    port.postMessage(answer);
  });
}
