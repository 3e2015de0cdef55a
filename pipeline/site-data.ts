/**
 * The data the site's search reads, shared by the stage that writes it (site.ts) and the script
 * that reads it in the browser (site/search.ts). Types and one constant, no code.
 */
import type { CatalogRecord } from "./schema-types.generated.js";

/** The name of the script global the search data sets (assets/search-data.js). */
export const SEARCH_GLOBAL = "ERROR_CATALOG_SEARCH";

/**
 * What assets/search-data.js holds, each thing once: the file paths, the records (the fields
 * `matchPanic` tests, the page's address), and per version its envelopes as a record's index
 * and its occurrences, so the page matches against the same versions `error-catalog match` reads.
 */
export interface SearchData {
  readonly selected: string;
  readonly files: readonly string[];
  readonly records: readonly SearchRecord[];
  readonly versions: readonly { readonly version: string; readonly envelopes: readonly SearchEnvelope[] }[];
}

/** An envelope of a version: the index of its record in `records`, and its occurrences. */
export type SearchEnvelope = readonly [record: number, occurrences: readonly SearchOccurrence[]];

/** An occurrence: the index of its file in `files`, its line, and its permalink for a record without a page. */
export type SearchOccurrence = readonly [file: number, line: number, githubUrl?: string];

/** A record as the search reads it. */
export interface SearchRecord {
  /** What names the record when its message has no text of its own (site.ts `recordTitle`); absent otherwise. */
  readonly title?: string;
  readonly record: Pick<CatalogRecord, "id" | "errorMessage" | "messagePattern" | "errorClass">;
  /** The record's page, relative to the site's root; null for a record the rendered version does not hold. */
  readonly page: string | null;
}
