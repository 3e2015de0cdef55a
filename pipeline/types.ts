/**
 * The contract between the stages: what each one takes and returns.
 * Records, envelopes, manifests and config shapes come from the JSON Schemas (see
 * `schema-types.generated.ts`); the types here are the pipeline's own intermediate values.
 */

/**
 * A piece of a runtime message: literal text, a hole filled in at run time (any text, newlines
 * included), a gap where rustc's pretty printer may or may not put white space, or parts that
 * may be absent (`: <Debug>` after an `.expect` message: a `Result` prints it, an `Option` does
 * not). `composePattern` reads an optional group as such only as the last part, holding literal
 * text and at most a final hole; anywhere else, or holding more, it reads it as a hole.
 */
export type MessagePart = { readonly lit: string } | { readonly wild: true } | { readonly gap: true } | { readonly optional: readonly MessagePart[] };

import type { ModuleScan } from "./workspace/modules.js";
import type { MessageSource, SiteContext, SiteFacts, SiteKind, SkipReason } from "./schema-types.generated.js";
import type { ConstantReads } from "./sources/constants.js";
import type { FileSymbols } from "./symbols/file.js";

export type { MessageSource, SiteContext, SiteFacts, SiteKind, SkipReason };

/** What a site without text of its own prints: std's text, or the format string, and the parts of the whole runtime text. */
export interface PlaceText {
  /** `explicit panic`, ``assertion `left == right` failed``, or the message as written. */
  readonly message: string;
  readonly runtime: readonly MessagePart[];
}

/** Why a site itself has no record (a site in excluded code is counted apart, at build time). */
export type SiteSkip = Exclude<SkipReason, "excluded-context">;

/** One file of the tree at the pinned SHA, read from the object database. */
export interface SourceFile {
  readonly path: string;
  /** The git blob id: the cache key of everything derived from the file's text alone. */
  readonly blob: string;
  readonly text: string;
}

/** A site as the syntax tree shows it (a panic, or where a returned error's text is written): no I/O, no clock. */
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
  /** Set when the site has no record: why it is counted but not catalogued. */
  readonly skip: SiteSkip | null;
  /**
   * For a site without text of its own (`panic!()`, `assert_eq!(a, b)`, `panic!("{}", e)`), whose
   * record is keyed by the place it stands: what it prints. Null or absent for any other site.
   */
  readonly place?: PlaceText | null;
  /**
   * The items around the site in its file, outermost first, as `mod m::impl Type::fn f` names them
   * (`m::Type::f`); "" at the top level. With the path, what names a `place` site's record.
   */
  readonly owner?: string;
  /**
   * What the syntax tree proves about the site (analyze/facts.ts); null for sites without a record.
   * Note: optional so that sites made elsewhere (tests, older caches) stay valid; analyze treats absent as empty.
   */
  readonly facts?: SiteFacts | null;
  /**
   * A returned error's variant or type (`DataError::TypeMismatch`), its record's `errorClass`;
   * null or absent for a bare string and for every panic.
   */
  readonly errorClass?: string | null;
  /**
   * Where the message comes from when it is written away from the site (sources/): a `let` or
   * `const` the panic reads, a wrapper function called with a literal, a declared call. Absent
   * for a message the site's own arguments write.
   */
  readonly source?: MessageSource;
  /**
   * The site's message with a stand-in for each constant of another file it reads
   * (`panic!("{}", crate::error::MESSAGE)`), for the pass over the tree to fill in
   * (sources/constants.ts); absent when it reads none. Never in a record.
   */
  readonly constantReads?: ConstantReads;
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
  /** Its `mod` items and item-wrapping macros (workspace/modules.ts), for the workspace's module tree; absent when none. */
  readonly modules?: ModuleScan;
  /**
   * The calls the file makes with a literal or `format!` argument, by the key the message sources
   * look them up by (`name`, `Path::name`, `.name`; sources/calls.ts), sorted; absent when none.
   */
  readonly calls?: readonly string[];
  /** The functions the file defines whose parameter becomes a panic's message; absent when none. */
  readonly wrappers?: readonly WrapperFact[];
  /** Its string constants (`const NAME: &str = "…";`), `[name, literal, line]` in source order, for other files' messages; absent when none. */
  readonly constants?: readonly (readonly [name: string, value: string, line: number])[];
  /** The names of the constants of other files its sites read (`Site.constantReads`, each path's last segment), sorted; absent when none. */
  readonly constantsRead?: readonly string[];
  /** The file's functions, macros, `use` and `mod` declarations (symbols/file.ts); absent in results made without them (tests). */
  readonly symbols?: FileSymbols;
}
