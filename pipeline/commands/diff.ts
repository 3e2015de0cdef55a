/**
 * The `diff` command: two versions of a repository's datasets compared (diff.ts), by default the
 * newest and its parent. Effects: reads the index and the two versions.
 */
import path from "node:path";
import { diffDatasets, hasDifferences } from "../diff.js";
import { renderMarkdown } from "../diff-markdown.js";
import { renderSarif, SARIF_SCHEMA, type SarifLog } from "../sarif.js";
import { readRunReport } from "./run.js";
import { PipelineError } from "../errors.js";
import { findVersion, type OutputOptions, resolveOutput } from "../output.js";
import type { Diff } from "../schema-types.generated.js";
import { validate } from "../validate.js";
import { readIndex, readVersion, repoDir } from "../write.js";

/** Which two versions `diffVersions` compares. */
export interface DiffOptions extends OutputOptions {
  /** The older version: a version name or a unique prefix of one, or null for none (default: the parent of `new`). */
  readonly old?: string | null;
  /** The newer version (default: the newest). */
  readonly new?: string;
}

/**
 * Compares two versions of a repository's datasets; by default the newest and its parent. With no
 * parent, everything in it is `added`. Throws E_INPUT when there is no version or a
 * name matches none.
 */
export async function diffVersions(options: DiffOptions): Promise<Diff> {
  if (options.old === undefined && options.new !== undefined) {
    throw new PipelineError("E_USAGE", "give OLD too when giving NEW", { hint: "error-catalog diff OLD NEW; with no names it compares the two newest versions" });
  }
  const { outDir, repo } = await resolveOutput(options);
  const index = await readIndex(outDir, repo);
  if (index.versions.length === 0) throw new PipelineError("E_INPUT", `there is no dataset version of ${repo} in ${outDir}`, { hint: "run `error-catalog run` first, or pass --out with the folder that holds the datasets" });
  const newer = options.new === undefined ? index.versions.length - 1 : findVersion(index.versions, options.new, outDir);
  // Note: by default a version is compared with its parent (the newest earlier version of its own history), not with the one run before it.
  const parent = index.versions[newer]!.parent;
  const older = options.old === null ? -1 : options.old !== undefined ? findVersion(index.versions, options.old, outDir) : options.new === undefined && parent !== null ? index.versions.findIndex((v) => v.version === parent) : -1;
  const load = async (i: number) => {
    const entry = index.versions[i]!;
    return { version: entry.version, ...(await readVersion(path.join(repoDir(outDir, repo), entry.version))) };
  };
  const diff = diffDatasets({ old: older < 0 ? null : await load(older), new: await load(newer) });
  const checked = validate("diff", diff, "diff");
  if (!checked.ok) throw new PipelineError("E_SCHEMA", "the diff failed validation", { details: checked.errors.slice(0, 20), hint: "this is a bug in error-catalog: please report it with these lines" });
  return diff;
}

/** The classes `--fail-on` can name; `any` is all of them. */
export const FAIL_ON = ["added", "removed", "reworded", "changed", "moved", "any"] as const;
export type FailOn = (typeof FAIL_ON)[number];

/** How `diffReport` renders. */
export interface ReportOptions extends DiffOptions {
  readonly format: "markdown" | "json" | "sarif";
  /** A report `run --json` wrote: compare what each target's run wrote with the newest version before it. */
  readonly run?: string;
  /** Markdown for a pull request comment (diff-markdown.ts). */
  readonly compact?: boolean;
  readonly maxEntries?: number;
  /** The tool version a SARIF log names. */
  readonly toolVersion: string;
}

/** The text to print, and the diffs it shows (for `--exit-code` and `--fail-on`). */
export interface Report {
  readonly text: string;
  readonly diffs: readonly Diff[];
}

/**
 * The diff of two versions, or with `run`, of each target a run report names (those of `repo`
 * only when given): a written version against the newest one before it; a target that wrote
 * nothing or failed says so in markdown and has no diff. JSON is one diff (E_USAGE when a report
 * has several targets and no `repo`); SARIF has one run per diff.
 */
export async function diffReport(options: ReportOptions): Promise<Report> {
  const parts: { diff: Diff | null; markdown: string }[] = [];
  if (options.run === undefined) {
    parts.push({ diff: await diffVersions(options), markdown: "" });
  } else {
    if (options.old !== undefined) throw new PipelineError("E_USAGE", "--run says which versions to compare; give no OLD or NEW with it");
    const report = await readRunReport(options.run);
    const targets = report.targets.filter((t) => options.repo === undefined || t.repo === options.repo);
    if (targets.length === 0) throw new PipelineError("E_INPUT", `${options.run} reports no run${options.repo === undefined ? "" : ` of ${options.repo}`}`, { hint: `targets in it: ${report.targets.map((t) => t.repo).join(", ") || "(none)"}` });
    for (const t of targets) {
      if (t.status === "written") parts.push({ diff: await diffVersions({ ...options, repo: t.repo, old: t.previous, new: t.version! }), markdown: "" });
      else if (t.status === "up-to-date") parts.push({ diff: null, markdown: `## error-catalog: ${t.repo}\n\nNothing written: version ${t.version} (\`${t.sha!.slice(0, 12)}\`) is up to date with the pinned commit, the config and the pipeline, so there is no new diff.\n` });
      else parts.push({ diff: null, markdown: `## error-catalog: ${t.repo}\n\n**The run failed** (exit ${t.exitCode}); nothing was written:\n\n\`\`\`\n${t.error}\n\`\`\`\n` });
    }
  }
  const diffs = parts.flatMap((p) => (p.diff === null ? [] : [p.diff]));
  if (options.format === "sarif") return { text: `${JSON.stringify(mergeSarif(diffs.map((d) => renderSarif(d, options.toolVersion)), options.toolVersion), null, 2)}\n`, diffs };
  if (options.format === "json") {
    if (parts.length > 1) throw new PipelineError("E_USAGE", `${options.run} reports ${parts.length} targets; JSON is one diff`, { hint: "pass --repo <owner/name>" });
    if (diffs.length === 0) throw new PipelineError("E_INPUT", `${options.run}: the run wrote no version, so there is no diff`, { hint: "use --format markdown to show what the run did" });
    return { text: `${JSON.stringify(diffs[0], null, 2)}\n`, diffs };
  }
  return { text: parts.map((p) => (p.diff === null ? p.markdown : renderMarkdown(p.diff, { compact: options.compact, maxEntries: options.maxEntries }))).join("\n"), diffs };
}

/** One SARIF log holding every log's runs (an empty run when there are none, so an upload has a file). */
function mergeSarif(logs: readonly SarifLog[], toolVersion: string): SarifLog {
  if (logs.length === 1) return logs[0]!;
  return { $schema: SARIF_SCHEMA, version: "2.1.0", runs: logs.length === 0 ? [{ tool: { driver: { name: "error-catalog", version: toolVersion, rules: [] } }, automationDetails: { id: "error-catalog/" }, results: [] }] : logs.flatMap((l) => l.runs) };
}

/** True when a diff has records of a class `failOn` names. */
export function failsOn(diffs: readonly Diff[], failOn: readonly FailOn[]): boolean {
  return diffs.some((d) => failOn.some((c) => (c === "any" ? hasDifferences(d) : d.counts[c] > 0)));
}
