/**
 * The contract between the stages: what each one takes and returns.
 * Records, envelopes, manifests and config shapes come from the JSON Schemas (see
 * `schema-types.generated.ts`); the types here are the pipeline's own intermediate values.
 */

/**
 * A piece of a runtime message: literal text, a hole filled in at run time (any text, newlines
 * included), a gap where rustc's pretty printer may or may not put white space, or the end of
 * the message (a line break or the end of the text must follow).
 */
export type MessagePart = { readonly lit: string } | { readonly wild: true } | { readonly gap: true } | { readonly eol: true };

import type { MessageSource, SiteContext, SiteFacts, SiteKind, SkipReason } from "./schema-types.generated.js";

export type { MessageSource, SiteContext, SiteFacts, SiteKind, SkipReason };

/** Why a site itself has no record (a site in excluded code is counted apart, at build time). */
export type SiteSkip = Exclude<SkipReason, "excluded-context">;

/** One file of the tree at the pinned SHA, read from the object database. */
export interface SourceFile {
  readonly path: string;
  /** The git blob id: the cache key of everything derived from the file's text alone. */
  readonly blob: string;
  readonly text: string;
}

/** A panic site as the syntax tree shows it: no I/O, no clock. */
export interface Site {
  readonly kind: SiteKind;
  readonly path: string;
  /** 1-based line and column of the macro's (or method's) name. */
  readonly line: number;
  readonly column: number;
  /** True when the site sits inside another macro's token tree (`macro_rules!`, `quote!`, …). */
  readonly inTokenTree: boolean;
  readonly context: SiteContext;
  /** The message as written in the source (escapes decoded, placeholders verbatim), or null. */
  readonly message: string | null;
  /** What the user sees at run time, as literal text and holes; null when the site has no record. */
  readonly runtime: readonly MessagePart[] | null;
  /** Set when `runtime` is null: why the site is counted but not catalogued. */
  readonly skip: SiteSkip | null;
  /**
   * What the syntax tree proves about the site (analyze/facts.ts); null for sites without a record.
   * Note: optional so that sites made elsewhere (tests, older caches) stay valid; analyze treats absent as empty.
   */
  readonly facts?: SiteFacts | null;
  /**
   * Where the message comes from when it is written away from the site (sources/): a `let` or
   * `const` the panic reads, a wrapper function called with a literal, a declared call. Absent
   * for a message the site's own arguments write.
   */
  readonly source?: MessageSource;
}

/**
 * A function whose parameter becomes a panic's message: what a call of it with a literal makes
 * the user see (sources/wrappers.ts). Found in the file that defines it; its calls may be anywhere.
 */
export interface WrapperFact {
  readonly name: string;
  /** True when it takes `self`: called as `.name(…)`; false: as `name(…)` or `path::name(…)`. */
  readonly method: boolean;
  /**
   * The type of the `impl` (or the `trait`) it is defined in: a call of it that is not a method
   * call names that type (`Owner::name(…)`, `Self::name(…)` in its file). Absent for a free function.
   */
  readonly owner?: string;
  /** How many parameters it takes, `self` not counted. */
  readonly arity: number;
  /** Which of them (0-based, `self` not counted) the panic prints. */
  readonly param: number;
  /** The panic's runtime text cut where the parameter's text goes: one more piece than places. */
  readonly pieces: readonly (readonly MessagePart[])[];
  /** 1-based line of the panic site. */
  readonly line: number;
}

/** What extraction yields for one file. */
export interface FileSites {
  readonly path: string;
  readonly blob: string;
  readonly sites: readonly Site[];
  /** True when tree-sitter reported ERROR or MISSING nodes; sites are still extracted. */
  readonly parseErrors: boolean;
  /** False when the file had no candidate text and was never parsed. */
  readonly parsed: boolean;
  /** The test-only modules the file declares in files of their own (`#[cfg(test)] mod tests;`). */
  readonly testModules: readonly string[];
  /**
   * The calls the file makes with a literal or `format!` argument, by the key the message sources
   * look them up by (`name`, `Path::name`, `.name`; sources/calls.ts), sorted; absent when none.
   */
  readonly calls?: readonly string[];
  /** The functions the file defines whose parameter becomes a panic's message; absent when none. */
  readonly wrappers?: readonly WrapperFact[];
}
