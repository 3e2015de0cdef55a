/**
 * Stage 4, build: schema-v2 records from the sites, one per distinct runtime message. Pure: the
 * clock comes in as `now`, the file texts as a lookup.
 */
import { createHash } from "node:crypto";
import { composePattern, slugify } from "./message.js";
import type { CatalogRecord, Envelope, Occurrence } from "./schema-types.generated.js";
import type { Site } from "./types.js";

export interface BuildInput {
  /** `owner/name`. */
  readonly repo: string;
  readonly sha: string;
  /** Lines of source kept on each side of a site. */
  readonly contextLines: number;
  /** The sites to catalogue (those with a runtime message), in any order. */
  readonly sites: readonly Site[];
  /** The text of a file of the tree, by path. */
  readonly textOf: (path: string) => string;
  /** The dataset version being built (ISO 8601): also the analysis time of new content. */
  readonly now: string;
}

/** The envelopes of the dataset, sorted by record id. */
export function buildEnvelopes(input: BuildInput): Envelope[] {
  const groups = new Map<string, Site[]>();
  for (const site of [...input.sites].sort(bySourceOrder)) {
    if (site.runtime === null) continue;
    const pattern = composePattern(site.runtime);
    const group = groups.get(pattern);
    if (group) group.push(site);
    else groups.set(pattern, [site]);
  }
  const envelopes: Envelope[] = [];
  for (const [pattern, sites] of groups) {
    const first = sites[0]!;
    const id = recordId(input.repo, "panic", pattern);
    const excerpt = excerptOf(input.textOf(first.path), first.line, input.contextLines);
    const record: CatalogRecord = {
      id,
      repo: input.repo,
      slug: slugify(first.message ?? pattern, id),
      errorCode: null,
      errorMessage: first.message ?? "",
      messagePattern: pattern,
      errorType: "panic",
      errorClass: null,
      httpStatus: null,
      severity: "error",
      filePath: first.path,
      lineNumber: first.line,
      sourceCode: excerpt.code,
      sourceCodeStart: excerpt.start,
      sourceCodeEnd: excerpt.end,
      githubUrl: permalink(input.repo, input.sha, first.path, excerpt.start, excerpt.end),
      documentation: null,
      triggerScenarios: null,
      commonSituations: null,
      solutions: [],
      exampleFix: null,
      handlingStrategy: null,
      validationCode: null,
      typeGuard: null,
      tryCatchPattern: null,
      preventionTips: [],
      tags: [],
      backgroundTag: null,
      analyzedSha: input.sha,
      analyzedAt: input.now,
      contentChangedAt: input.now,
      schemaVersion: 2,
    };
    const occurrences: Occurrence[] = sites.map((s) => ({
      filePath: s.path,
      lineNumber: s.line,
      githubUrl: permalink(input.repo, input.sha, s.path, s.line),
      kind: s.kind,
      context: s.context,
    }));
    envelopes.push({ record, occurrences, datasetVersion: input.now });
  }
  return envelopes.sort((a, b) => compare(a.record.id, b.record.id));
}

/** 16 hex of SHA-256 over repo, error type and pattern: stable while the code moves around. */
export function recordId(repo: string, errorType: string, pattern: string): string {
  return createHash("sha256").update(`${repo}\0${errorType}\0${pattern}`).digest("hex").slice(0, 16);
}

/** Lines `line - context … line + context` of `text`, clipped to the file, joined by "\n". */
export function excerptOf(text: string, line: number, context: number): { code: string; start: number; end: number } {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  const start = Math.max(1, line - context);
  const end = Math.min(lines.length, line + context);
  return { code: lines.slice(start - 1, end).join("\n"), start, end };
}

/** `https://github.com/<repo>/blob/<sha>/<path>#L<start>[-L<end>]`. */
export function permalink(repo: string, sha: string, path: string, start: number, end?: number): string {
  const encoded = path.split("/").map(encodeURIComponent).join("/");
  return `https://github.com/${repo}/blob/${sha}/${encoded}#L${start}${end === undefined ? "" : `-L${end}`}`;
}

/** Path order (code units, as git sorts), then line, then column. */
export function bySourceOrder(a: Site, b: Site): number {
  return compare(a.path, b.path) || a.line - b.line || a.column - b.column;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
