/**
 * A parse thread: takes batches of files, answers with their sites.
 */
import { parentPort } from "node:worker_threads";
import { type ExtractOptions, extractFile } from "./extract.js";
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
  port.on("message", async (batch: Batch) => {
    const results: FileSites[] = [];
    for (const file of batch.files) results.push(await extractFile(file, batch.options));
    port.postMessage({ results } satisfies BatchResult);
  });
}
