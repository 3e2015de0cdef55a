/**
 * The token pass of many files (`tokenFacts`) on a thread of its own, beside the calling thread
 * while it lays out the files and tree-sitter parses them. The answers are the same whichever
 * thread reads a file: the token pass is a function of its text alone.
 */
import { type ResourceLimits, Worker } from "node:worker_threads";
import { PipelineError } from "./errors.js";
import { type TokenFacts, tokenFacts } from "./token-pass.js";
import { CALLER, THREAD, TOKEN_THREAD, type TokenAnswer, type TokenPart, UNCLAIMED } from "./token-worker.js";

/** Files' token passes, read beside the calling thread. */
export interface TokenPass {
  /** Sends texts to the thread, as soon as they are read; gives each one's ticket, in order. */
  add(texts: readonly string[]): number[];
  /**
   * The token pass of each ticket, in order (each ticket taken once). Texts the thread has not
   * reached are read on the calling thread, so neither thread waits for the other long.
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

/** Lets the event loop turn (the thread's answers are taken). */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A ticket: its part's claims and its index there, and its text while it is not taken. */
interface Ticket {
  readonly claims: Int32Array;
  readonly index: number;
  readonly seq: number;
  readonly text: string;
}

/**
 * Starts the token thread. Out of its heap (a huge file), it is gone and the calling thread reads
 * the rest itself (`log` says so); any other failure (it could not start, it stopped) rejects the
 * `take` calls waiting and every later one with E_THREAD.
 * Note: each part's texts go to the thread at once, and either thread claims a text before reading
 *   it (`TokenPart.claims`): the thread from the first, the calling thread, when it needs the part,
 *   from the last back. So the thread never waits for the calling thread to send it more, and no
 *   text is read twice.
 */
export function startTokenThread({ heap, log, script = new URL("./token-worker.js", import.meta.url) }: TokenThreadSettings): TokenPass {
  const worker = new Worker(script, { resourceLimits: heap, workerData: TOKEN_THREAD });
  const waiting = new Map<number, Ticket>();
  /** The thread's answers, by part and index. */
  const answers = new Map<string, TokenFacts>();
  let tickets = 0;
  let seq = 0;
  /** Whether the thread still reads; why not, when it failed. */
  let running = true;
  let failure: PipelineError | null = null;
  let closing = false;
  /** Settled at the thread's next answer, or when it stops. */
  let answered = signal();

  const stop = (error: PipelineError | null) => {
    if (!running) return;
    running = false;
    failure = error;
    answered.settle();
  };
  worker.on("message", (answer: TokenAnswer) => {
    for (const [index, facts] of answer.facts) answers.set(`${answer.seq}:${index}`, facts);
    answered.settle();
    answered = signal();
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
  /** The calling thread's reading of a ticket: claimed here, or left by a thread that is gone. */
  const readHere = (ticket: Ticket): TokenFacts | undefined => {
    const claimed = Atomics.compareExchange(ticket.claims, ticket.index, UNCLAIMED, CALLER);
    return claimed === UNCLAIMED || (claimed === THREAD && !running && failure === null && !answers.has(`${ticket.seq}:${ticket.index}`)) ? tokenFacts(ticket.text) : undefined;
  };

  return {
    add(texts) {
      const part = seq++;
      const claims = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, texts.length)));
      if (running) worker.postMessage({ seq: part, texts, claims } satisfies TokenPart);
      return texts.map((text, index) => {
        const id = tickets++;
        waiting.set(id, { claims, index, seq: part, text });
        return id;
      });
    },
    async take(ids) {
      if (failure !== null) throw failure;
      const mine = ids.map((id) => {
        const ticket = waiting.get(id);
        if (ticket === undefined) throw new Error(`token pass: ticket ${id} was never given, or taken twice`);
        waiting.delete(id);
        return ticket;
      });
      // Note: the texts the thread has not claimed are read here, from the last back; the event
      //   loop turns after each, so the thread's answers are taken meanwhile.
      const out: (TokenFacts | undefined)[] = new Array(mine.length);
      for (let k = mine.length - 1; k >= 0; k--) {
        out[k] = readHere(mine[k]!);
        if (out[k] !== undefined) await turn();
      }
      // Note: a thread that failed fails the run, even when the calling thread read every text itself.
      if (failure !== null) throw failure;
      for (const [k, ticket] of mine.entries()) {
        const key = `${ticket.seq}:${ticket.index}`;
        for (;;) {
          if (out[k] !== undefined) break;
          if (answers.has(key)) {
            out[k] = answers.get(key)!;
            answers.delete(key);
            break;
          }
          if (failure !== null) throw failure;
          out[k] = readHere(ticket);
          if (out[k] === undefined) await answered.done;
        }
      }
      return out as TokenFacts[];
    },
    async close() {
      closing = true;
      running = false;
      await worker.terminate();
    },
  };
}

/** A promise settled once, with its settling function. */
function signal(): { readonly done: Promise<void>; readonly settle: () => void } {
  let settle!: () => void;
  const done = new Promise<void>((resolve) => (settle = resolve));
  return { done, settle };
}
