/**
 * The `run` command over a config's targets: one named target, or every target in config order,
 * a failing one not stopping the others. Returns a report of what each wrote (`run --json`,
 * schemas/run-report.schema.json); `diff --run` reads it back. Effects: those of `run` (run.ts), per target.
 */
import { readFile } from "node:fs/promises";
import { exitCode, formatError, PipelineError } from "../errors.js";
import { run, type RunOptions } from "../run.js";
import type { RunReport, TargetReport } from "../schema-types.generated.js";
import { validate } from "../validate.js";
import path from "node:path";
import { resolveTarget } from "../config.js";
import { loadValidConfig } from "../settings.js";

/**
 * Runs `options.target`, or every target of the config when none is named, in config order; a
 * target that throws is reported as failed (and the next one runs). Throws only when the config
 * itself cannot be read (E_CONFIG), a named target is not in it or `sha` is given for several
 * targets (E_USAGE).
 */
export async function runTargets(options: RunOptions & { readonly debug?: boolean }): Promise<RunReport> {
  const config = await loadValidConfig(path.resolve(options.configPath ?? "config.json"));
  const named = resolveTarget(config, options.target);
  if (options.target !== undefined && !named.ok) throw new PipelineError("E_USAGE", named.errors[0] ?? "unknown target");
  const repos = options.target !== undefined ? [options.target] : config.targets.map((t) => t.repo);
  if (options.target === undefined && options.sha !== undefined && repos.length > 1) {
    throw new PipelineError("E_USAGE", "--sha names one commit, and the config has several targets", { hint: "pass --target <owner/name> with --sha" });
  }
  const targets: TargetReport[] = [];
  for (const repo of repos) {
    try {
      const result = await run({ ...options, target: repo });
      targets.push({ repo, status: result.status, version: result.version, previous: result.previous, sha: result.sha, dir: result.dir, ...(result.manifest === null ? {} : { counts: result.manifest.counts }), error: null, exitCode: 0 });
    } catch (error) {
      targets.push({ repo, status: "failed", version: null, previous: null, sha: null, dir: null, error: formatError(error, options.debug ?? false), exitCode: exitCode(error) });
    }
  }
  return { targets, failed: targets.filter((t) => t.status === "failed").length };
}

/** The exit status of a report: 0, or the highest of the failed targets' (2 bad input, 3 another failure). */
export function reportExitCode(report: RunReport): number {
  return Math.max(0, ...report.targets.map((t) => t.exitCode));
}

/** One line per target, as `run` prints them without `--json`. */
export function reportLines(report: RunReport): string[] {
  return report.targets.map((t) => {
    if (t.status === "failed") return `${t.repo}: failed (exit ${t.exitCode}): ${t.error!.split("\n")[0]}`;
    if (t.status === "up-to-date") return `${t.repo} ${t.version}: up to date, nothing written`;
    const c = t.counts!;
    return `${t.repo} ${t.version}: ${c.records} records from ${c.sites} sites in ${c.filesRead} files → ${t.dir}`;
  });
}

/** A report `run --json` wrote, read from `file`; E_INPUT when it is not one. */
export async function readRunReport(file: string): Promise<RunReport> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new PipelineError("E_INPUT", `cannot read the run report ${file}: ${(error as Error).message}`, { hint: "give the file `error-catalog run --json` wrote" });
  }
  const checked = validate<RunReport>("run-report", data, file);
  if (!checked.ok) throw new PipelineError("E_INPUT", `${file} is not a run report`, { details: checked.errors.slice(0, 20), hint: "give the file `error-catalog run --json` wrote" });
  return checked.value;
}
