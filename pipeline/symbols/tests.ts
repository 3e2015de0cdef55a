/**
 * A repository's `#[should_panic]` tests as the symbol index reads them, and the records whose
 * patterns accept their expected texts: the one reading of those tests, for the analyze stage's
 * reproductions and for the oracle script (scripts/oracle.ts). Pure.
 *
 * Note: Rust's `should_panic(expected = "…")` passes when the panic message CONTAINS the expected
 *   text, so an expected text is matched as a fragment of a record's messages (`matchPanic`, the
 *   `match` command's own matching), as well as a whole message.
 */
import { type DatasetVersion, type Match, matchPanic, panicLocation } from "../match.js";
import type { Envelope } from "../schema-types.generated.js";
import type { FileSymbols, FunctionSymbol } from "./file.js";

/** A `#[should_panic]` test. */
export interface PanicTest {
  readonly path: string;
  readonly line: number;
  /** The test function's name. */
  readonly name: string;
  /** The `expected` text; "" for a `#[should_panic]` without one. */
  readonly expected: string;
  readonly fn: FunctionSymbol;
}

/** The `#[should_panic]` tests of a file, in line order. */
export function panicTests(path: string, symbols: FileSymbols | undefined): PanicTest[] {
  return (symbols?.functions ?? []).flatMap((fn) => (fn.expected === undefined ? [] : [{ path, line: fn.line, name: fn.name, expected: fn.expected, fn }]));
}

/**
 * The panic records whose pattern accepts `expected` as a whole message or as a part of one, best
 * first (`matchPanic`'s order); none for an empty text.
 * Note: only records whose pattern holds one of the text's words (3 or more letters, digits or `_`)
 *   as written are matched: a text none of whose words the record writes is mostly what the
 *   record's holes print, which says nothing of the record; and the matching is costly.
 */
export function recordsExpecting(expected: string, version: DatasetVersion): Match[] {
  if (expected === "") return [];
  const words = expected.match(/\w{3,}/g);
  // Note: a record's matches do not depend on the other records, but for a location in the text
  //   (which the records' files resolve): without one, records that are no panics are left out before.
  const panics = panicLocation(expected) === null;
  const holding = words === null ? null : recordsWriting(version.envelopes, words);
  const candidates = { version: version.version, envelopes: version.envelopes.filter((e, i) => (holding === null || holding.has(i)) && (!panics || e.record.errorType === "panic")) };
  return matchPanic(expected, [candidates], version.version).matches.filter((m) => (m.how === "whole" || m.how === "fragment") && m.record.errorType === "panic");
}

/** The envelopes' patterns joined by NULs, with the envelope each offset is in, and the envelopes found for each word so far (`recordsWriting`), by envelopes. */
const joinedPatterns = new WeakMap<readonly Envelope[], { readonly text: string; readonly owner: Int32Array; readonly byWord: Map<string, readonly number[]> }>();

/** The indices of the envelopes whose pattern holds one of `words` (each of word characters only) as written. */
function recordsWriting(envelopes: readonly Envelope[], words: readonly string[]): Set<number> {
  let joined = joinedPatterns.get(envelopes);
  if (joined === undefined) {
    const text = envelopes.map((e) => e.record.messagePattern).join("\0");
    const owner = new Int32Array(text.length);
    let at = 0;
    envelopes.forEach((e, i) => {
      owner.fill(i, at, at + e.record.messagePattern.length + 1);
      at += e.record.messagePattern.length + 1;
    });
    joined = { text, owner, byWord: new Map() };
    joinedPatterns.set(envelopes, joined);
  }
  const { text, owner, byWord } = joined;
  const out = new Set<number>();
  for (const w of words) {
    let found = byWord.get(w);
    if (found === undefined) {
      const list: number[] = [];
      // Note: a word is of word characters only, so no occurrence spans the NUL between two patterns.
      for (let at = text.indexOf(w); at >= 0; at = text.indexOf(w, at + 1)) if (list.at(-1) !== owner[at]) list.push(owner[at]!);
      byWord.set(w, (found = list));
    }
    for (const i of found) out.add(i);
  }
  return out;
}
