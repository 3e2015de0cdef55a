/**
 * A repository's `#[should_panic]` tests as the symbol index reads them, and the records whose
 * patterns accept their expected texts: the one reading of those tests, for the analyze stage's
 * reproductions and for the oracle script (scripts/oracle.ts). Pure.
 *
 * Note: Rust's `should_panic(expected = "…")` passes when the panic message CONTAINS the expected
 *   text, so an expected text is matched as a fragment of a record's messages (`matchPanic`, the
 *   `match` command's own matching), as well as a whole message.
 */
import { type DatasetVersion, type Match, matchPanic } from "../match.js";
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
  const candidates = words === null ? version : { version: version.version, envelopes: version.envelopes.filter((e) => words.some((w) => e.record.messagePattern.includes(w))) };
  return matchPanic(expected, [candidates], version.version).matches.filter((m) => (m.how === "whole" || m.how === "fragment") && m.record.errorType === "panic");
}
