/**
 * The token thread: takes parts of files' texts, answers with their token pass (`tokenFacts`),
 * a few files at a time, for each text it claims before the calling thread does.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type TokenFacts, tokenFacts } from "./token-pass.js";

/**
 * What the thread is sent: a part's texts, numbered, and a claim per text (0: unclaimed; the
 * token thread sets 1, the calling thread 2, each with a compare-and-swap, so each text is read
 * once).
 */
export interface TokenPart {
  readonly seq: number;
  readonly texts: readonly string[];
  readonly claims: Int32Array;
}

/** What the thread answers: the token pass of some texts of part `seq`, by their index in it. */
export interface TokenAnswer {
  readonly seq: number;
  readonly facts: readonly (readonly [index: number, facts: TokenFacts])[];
}

/** Texts of about this many characters (or `ANSWER_FILES`) are answered at a time. */
const ANSWER_CHARS = 32 * 1024;
const ANSWER_FILES = 8;

/** The claim values of `TokenPart.claims`. */
export const UNCLAIMED = 0;
export const THREAD = 1;
export const CALLER = 2;

/** The `workerData` of the token thread: only there does this module answer messages. */
export const TOKEN_THREAD = "error-catalog token thread";

const port = parentPort;
if (port !== null && workerData === TOKEN_THREAD) {
  port.on("message", ({ seq, texts, claims }: TokenPart) => {
    let facts: [number, TokenFacts][] = [];
    let chars = 0;
    texts.forEach((text, k) => {
      if (Atomics.compareExchange(claims, k, UNCLAIMED, THREAD) !== UNCLAIMED) return;
      facts.push([k, tokenFacts(text)]);
      chars += text.length;
      if (facts.length >= ANSWER_FILES || chars >= ANSWER_CHARS) {
        port.postMessage({ seq, facts } satisfies TokenAnswer);
        (facts = []), (chars = 0);
      }
    });
    if (facts.length > 0) port.postMessage({ seq, facts } satisfies TokenAnswer);
  });
}
