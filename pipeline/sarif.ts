/**
 * The records a diff adds as a SARIF 2.1.0 log, for code scanning: one result per added record at
 * its site (file and line, the message as text, a link to the record's permalink), one rule per
 * kind of site. Pure: a `Diff` in, a SARIF object out.
 *
 * Note: a rule per kind (`expect`, `panic`, `assert-eq`, …) rather than per record: a rule is what
 *   code scanning filters, groups and lets a maintainer dismiss by, and a record's own identity
 *   across runs is its fingerprint (`recordId/v1`), so alerts follow a record without a rule
 *   each.
 */
import type { Diff, DiffRecord, SiteKind } from "./schema-types.generated.js";

/** The SARIF 2.1.0 schema's address, as the log's `$schema`. */
export const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

/** What each kind of site is, as its rule says. */
const KINDS: Readonly<Record<SiteKind, string>> = {
  panic: "a `panic!` the user can reach",
  unreachable: "an `unreachable!` the user can reach",
  todo: "a `todo!` the user can reach",
  unimplemented: "an `unimplemented!` the user can reach",
  assert: "an `assert!` whose failure panics",
  "assert-eq": "an `assert_eq!` whose failure panics",
  "assert-ne": "an `assert_ne!` whose failure panics",
  "debug-assert": "a `debug_assert!` whose failure panics in debug builds",
  "debug-assert-eq": "a `debug_assert_eq!` whose failure panics in debug builds",
  "debug-assert-ne": "a `debug_assert_ne!` whose failure panics in debug builds",
  expect: "an `.expect(…)` that panics on `None` or `Err`",
  "expect-err": "an `.expect_err(…)` that panics on `Ok`",
  "error-attribute": "an error type's `#[error(…)]` text a caller sees",
  "display-impl": "an error type's `Display` text a caller sees",
  "err-return": "an `Err(…)` returned with text a caller sees",
  "ok-or": "an `.ok_or(…)` error with text a caller sees",
  "map-err": "a `.map_err(…)` error with text a caller sees",
  "wrapper-call": "a call of a function that panics with the text it is given",
  "declared-call": "a call the configuration declares as raising the text it is given",
};

/** A SARIF log (the subset written here). */
export interface SarifLog {
  readonly $schema: string;
  readonly version: "2.1.0";
  readonly runs: readonly SarifRun[];
}

interface SarifRun {
  readonly tool: { readonly driver: { readonly name: string; readonly version: string; readonly rules: readonly SarifRule[] } };
  readonly automationDetails: { readonly id: string };
  readonly results: readonly SarifResult[];
}

interface SarifRule {
  readonly id: string;
  readonly name: string;
  readonly shortDescription: { readonly text: string };
  readonly defaultConfiguration: { readonly level: "warning" };
}

interface SarifResult {
  readonly ruleId: string;
  readonly ruleIndex: number;
  readonly level: "warning";
  readonly message: { readonly text: string };
  readonly locations: readonly [{ readonly physicalLocation: { readonly artifactLocation: { readonly uri: string; readonly uriBaseId: "%SRCROOT%" }; readonly region: { readonly startLine: number } } }];
  readonly partialFingerprints: { readonly "recordId/v1": string };
  readonly properties: { readonly recordId: string; readonly githubUrl: string; readonly sites: number };
}

/**
 * The added records of `diff` as a SARIF log of one run by `error-catalog` at `toolVersion`:
 * results sorted by file, line and id, rules sorted by id (only the kinds that occur). Pure.
 */
export function renderSarif(diff: Diff, toolVersion: string): SarifLog {
  const added = [...diff.added].sort((x, y) => compare(x.filePath, y.filePath) || x.lineNumber - y.lineNumber || compare(x.id, y.id));
  const kinds = [...new Set(added.map((r) => r.kind))].sort(compare);
  const rules: SarifRule[] = kinds.map((kind) => ({ id: kind, name: ruleName(kind), shortDescription: { text: `Adds ${KINDS[kind]}.` }, defaultConfiguration: { level: "warning" } }));
  const results = added.map((r): SarifResult => ({
    ruleId: r.kind,
    ruleIndex: kinds.indexOf(r.kind),
    level: "warning",
    message: { text: resultText(r) },
    locations: [{ physicalLocation: { artifactLocation: { uri: r.filePath, uriBaseId: "%SRCROOT%" }, region: { startLine: r.lineNumber } } }],
    partialFingerprints: { "recordId/v1": r.id },
    properties: { recordId: r.id, githubUrl: r.githubUrl, sites: r.occurrences },
  }));
  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [{ tool: { driver: { name: "error-catalog", version: toolVersion, rules } }, automationDetails: { id: `error-catalog/${diff.repo}/` }, results }],
  };
}

/** `Adds a panic: "text". Record <id>: <permalink>`; the pattern stands in for a message without text. */
function resultText(r: DiffRecord): string {
  const text = r.errorMessage.trim() !== "" ? `"${r.errorMessage.replace(/\s+/g, " ").trim()}"` : `text matching /${r.messagePattern}/`;
  const sites = r.occurrences > 1 ? ` (raised at ${r.occurrences} sites)` : "";
  return `Adds a user-facing ${r.kind} site: ${text}${sites}. Record ${r.id}: ${r.githubUrl}`;
}

/** `assert-eq` → `AssertEq`: SARIF's `name` is an identifier-like word. */
function ruleName(kind: string): string {
  return kind.replace(/(^|-)([a-z])/g, (_, _dash: string, c: string) => c.toUpperCase());
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
