/**
 * The token pass of many files (`tokenFacts`) on a thread of its own, beside the calling thread
 * while it lays out the files and tree-sitter parses them. The answers are the same whichever
 * thread reads a file: the token pass is a function of its text alone.
 */
import { type ResourceLimits, Worker } from "node:worker_threads";
import { PipelineError } from "./errors.js";
import { type TokenFacts, tokenFacts } from "./token-pass.js";
import type { TokenAnswer, TokenChunk } from "./token-worker.js";

/** Files' token passes, read beside the calling thread. */
export interface TokenPass {
  /** Queues texts for the thread, as soon as they are read; gives each one's ticket, in order. */
  add(texts: readonly string[]): number[];
  /**
   * The token pass of each ticket, in order (each ticket taken once). Texts the thread has not
   * been sent yet are read on the calling thread, so neither thread waits for the other long.
   * Rejects with E_THREAD when the thread failed.
   */
  take(tickets: readonly number[]): Promise<TokenFacts[]>;
  /** Stops the thread. */
  close(): Promise<void>;
}

/** How the token thread starts: its heap, where to say it ran out of it, and (for tests) its script. */
export interface TokenThreadSettings {
  readonly heap: ResourceLimits;
  readonly log: (line: string) => void;
  readonly script?: URL;
}

/** Lets the event loop turn (the thread's answers are taken, and it is sent its next chunk). */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Texts of about this many characters (or `CHUNK_FILES`) go to the thread at a time. */
const CHUNK_CHARS = 48 * 1024;
const CHUNK_FILES = 16;

/**
 * Chunks sent to the thread before it answers the first: one to read, one waiting.
 * Note: the queue is held back on the calling thread, so that what the thread has not reached
 *   when the calling thread needs it is read there instead of waited for.
 */
const CHUNKS_AHEAD = 2;

interface Chunk {
  readonly tickets: readonly number[];
  readonly texts: readonly string[];
  readonly answered: Promise<void>;
  readonly settle: (error?: unknown) => void;
}

/**
 * Starts the token thread. Out of its heap (a huge file), it is gone and the calling thread reads
 * the rest itself (`log` says so); any other failure (it could not start, it stopped) rejects the
 * `take` calls waiting and every later one with E_THREAD.
 */
export function startTokenThread({ heap, log, script = new URL("./token-worker.js", import.meta.url) }: TokenThreadSettings): TokenPass {
  const worker = new Worker(script, { resourceLimits: heap });
  const queued = new Map<number, string>();
  const sent = new Map<number, Chunk>();
  const chunks = new Map<number, Chunk>();
  const answers = new Map<number, TokenFacts>();
  let tickets = 0;
  let seq = 0;
  /** Whether the thread still takes chunks; why not, when it failed. */
  let running = true;
  let failure: PipelineError | null = null;
  let closing = false;

  const dispatch = () => {
    while (running && chunks.size < CHUNKS_AHEAD && queued.size > 0) {
      const ids: number[] = [];
      const texts: string[] = [];
      let chars = 0;
      for (const [id, text] of queued) {
        if (ids.length >= CHUNK_FILES || (ids.length > 0 && chars + text.length > CHUNK_CHARS)) break;
        ids.push(id);
        texts.push(text);
        chars += text.length;
      }
      let settle!: (error?: unknown) => void;
      const answered = new Promise<void>((resolve, reject) => (settle = (error) => (error === undefined ? resolve() : reject(error))));
      // Note: a chunk nobody waits for yet must not fail the process when the thread does.
      answered.catch(() => {});
      const chunk: Chunk = { tickets: ids, texts, answered, settle };
      const n = seq++;
      chunks.set(n, chunk);
      for (const id of ids) (queued.delete(id), sent.set(id, chunk));
      worker.postMessage({ seq: n, texts } satisfies TokenChunk);
    }
  };
  /** Ends the thread's share: its chunks go back to the queue (read on the calling thread), or fail with `error`. */
  const stop = (error: PipelineError | null) => {
    if (!running) return;
    running = false;
    failure = error;
    for (const chunk of chunks.values()) {
      if (error === null) chunk.tickets.forEach((id, k) => (sent.delete(id), queued.set(id, chunk.texts[k]!)));
      chunk.settle(error ?? undefined);
    }
    chunks.clear();
  };
  worker.on("message", (answer: TokenAnswer) => {
    const chunk = chunks.get(answer.seq);
    if (chunk === undefined) return;
    chunks.delete(answer.seq);
    chunk.tickets.forEach((id, k) => (sent.delete(id), answers.set(id, answer.facts[k]!)));
    chunk.settle();
    dispatch();
  });
  worker.on("error", (error) => {
    if ((error as NodeJS.ErrnoException).code === "ERR_WORKER_OUT_OF_MEMORY") {
      log(`the token thread ran out of its ${heap.maxOldGenerationSizeMb ?? "default"} MB heap; the calling thread reads the rest`);
      stop(null);
      return;
    }
    stop(new PipelineError("E_THREAD", `the token thread of extraction failed: ${error.message}`, { hint: "run again; if it fails again, report it with the trace ERROR_CATALOG_DEBUG=1 prints", cause: error }));
  });
  worker.on("exit", (code) => {
    if (!closing) stop(new PipelineError("E_THREAD", `the token thread of extraction stopped (exit code ${code})`, { hint: "run again; if it fails again, report it with the trace ERROR_CATALOG_DEBUG=1 prints" }));
  });

  return {
    add(texts) {
      const ids = texts.map((text) => {
        const id = tickets++;
        queued.set(id, text);
        return id;
      });
      dispatch();
      return ids;
    },
    async take(ids) {
      if (failure !== null) throw failure;
      // Note: what the thread was not sent is read here first, from the last text back, while the
      //   thread is sent the first ones as it answers (the event loop turns after each text read).
      const local = new Map<number, TokenFacts>();
      for (let k = ids.length - 1; k >= 0; k--) {
        const text = queued.get(ids[k]!);
        if (text === undefined) continue;
        queued.delete(ids[k]!);
        local.set(ids[k]!, tokenFacts(text));
        await turn();
      }
      const out: TokenFacts[] = [];
      for (const id of ids) {
        let facts = local.get(id) ?? answers.get(id);
        while (facts === undefined) {
          const chunk = sent.get(id);
          if (chunk !== undefined) await chunk.answered;
          else if (queued.has(id)) {
            // The thread is gone: its chunk came back to the queue.
            const text = queued.get(id)!;
            queued.delete(id);
            local.set(id, tokenFacts(text));
          } else if (failure !== null) throw failure;
          else throw new Error(`token pass: ticket ${id} was never queued, or taken twice`);
          facts = local.get(id) ?? answers.get(id);
        }
        answers.delete(id);
        out.push(facts);
      }
      return out;
    },
    async close() {
      closing = true;
      running = false;
      await worker.terminate();
    },
  };
}
