/**
 * The token thread: takes chunks of files' texts, answers with their token pass (`tokenFacts`).
 */
import { parentPort } from "node:worker_threads";
import { type TokenFacts, tokenFacts } from "./token-pass.js";

/** What the thread is sent: a chunk of texts, numbered. */
export interface TokenChunk {
  readonly seq: number;
  readonly texts: readonly string[];
}

/** What the thread answers: the token pass of each text of chunk `seq`, in order. */
export interface TokenAnswer {
  readonly seq: number;
  readonly facts: readonly TokenFacts[];
}

const port = parentPort;
if (port !== null) {
  port.on("message", (chunk: TokenChunk) => {
    port.postMessage({ seq: chunk.seq, facts: chunk.texts.map(tokenFacts) } satisfies TokenAnswer);
  });
}
