/**
 * The data the site's search reads, shared by the stage that writes it (site.ts) and the script
 * that reads it in the browser (site/search.ts). Types and one constant, no code.
 */
import type { CatalogRecord } from "./schema-types.generated.js";

/** The name of the script global the search data sets (assets/search-data.js). */
export const SEARCH_GLOBAL = "ERROR_CATALOG_SEARCH";

/**
 * What assets/search-data.js holds: every distinct record once, as `matchPanic` reads it (the
 * fields it tests and the page's address), and per version the indexes of its records, so the
 * page matches against the same versions `error-catalog match` reads.
 */
export interface SearchData {
  readonly selected: string;
  readonly records: readonly SearchRecord[];
  readonly versions: readonly { readonly version: string; readonly records: readonly number[] }[];
}

/** A record as the search reads it: an envelope cut to what matching and listing use. */
export interface SearchRecord {
  /** What names the record when its message has no text of its own (site.ts `recordTitle`); absent otherwise. */
  readonly title?: string;
  readonly record: Pick<CatalogRecord, "id" | "errorMessage" | "messagePattern" | "errorClass">;
  /** Where it is raised; the permalink only for a record without a page. */
  readonly occurrences: readonly { readonly filePath: string; readonly lineNumber: number; readonly githubUrl?: string }[];
  /** The record's page, relative to the site's root; null for a record the rendered version does not hold. */
  readonly page: string | null;
}

