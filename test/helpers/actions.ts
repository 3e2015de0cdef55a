/**
 * A small stand-in for a GitHub Actions runner, enough for this repository's workflow and action:
 * steps run in order, `run:` with bash as GitHub runs it (`bash -e -o pipefail`), `uses:` by
 * handlers the test gives, `${{ … }}` and `if:` evaluated from a context the test gives, with
 * GITHUB_OUTPUT and GITHUB_ENV files between steps. An expression it cannot read fails the test.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";

/** One step of a job or of a composite action. */
export interface Step {
  readonly name?: string;
  readonly id?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly with?: Readonly<Record<string, string | number | boolean>>;
  readonly env?: Readonly<Record<string, string>>;
  readonly shell?: string;
}

/** A job of a workflow. */
export interface Job {
  readonly needs?: string | readonly string[];
  readonly if?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly outputs?: Readonly<Record<string, string>>;
  readonly strategy?: { readonly "fail-fast"?: boolean; readonly matrix?: Readonly<Record<string, string>> };
  readonly permissions?: Readonly<Record<string, string>>;
  readonly steps: readonly Step[];
}

/** A workflow file. */
export interface Workflow {
  readonly on: Readonly<Record<string, unknown>>;
  readonly env?: Readonly<Record<string, string>>;
  readonly permissions?: Readonly<Record<string, string>>;
  readonly jobs: Readonly<Record<string, Job>>;
}

/** An action.yml. */
export interface Action {
  readonly inputs: Readonly<Record<string, { readonly description?: string; readonly default?: string }>>;
  readonly runs: { readonly using: string; readonly steps: readonly Step[] };
}

/** Reads a workflow or action file. */
export function readYaml<T>(file: string): T {
  return parse(readFileSync(file, "utf8")) as T;
}

/** Values of `${{ … }}` names (`env.CATALOG_OUT`, `matrix.target.repo`, `steps.run.outcome`, …). */
export type Context = Readonly<Record<string, string>>;

/** The value of one expression: a name of `context`, a quoted string, `format(…)`, `a || b` (the first non-empty). */
export function evaluate(expr: string, context: Context): string {
  const e = expr.trim();
  if (e.includes("||")) return e.split("||").map((part) => evaluate(part, context)).find((v) => v !== "") ?? "";
  if (e.includes("&&")) return e.split("&&").every((part) => truthy(evaluate(part, context))) ? "true" : "";
  const comparison = /^(.+?)\s*(==|!=)\s*(.+)$/.exec(e);
  if (comparison) {
    const [, a, op, b] = comparison as unknown as [string, string, string, string];
    return (evaluate(a, context) === evaluate(b, context)) === (op === "==") ? "true" : "";
  }
  if (e === "!cancelled()") return "true";
  const quoted = /^'(.*)'$/.exec(e);
  if (quoted) return quoted[1]!;
  const format = /^format\('([^']*)',\s*(.+)\)$/.exec(e);
  if (format) return format[1]!.replace("{0}", evaluate(format[2]!, context));
  if (!(e in context)) throw new Error(`the test runner does not know \`${e}\`: add it to the context`);
  return context[e]!;
}

function truthy(value: string): boolean {
  return value !== "" && value !== "false" && value !== "0";
}

/** `text` with each `${{ … }}` replaced by its value. */
export function expand(text: string, context: Context): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expr: string) => evaluate(expr, context));
}

/** What a `uses:` step does here: given its `with:` (expanded) and the step's environment; returns false for a failure. */
export type UsesHandler = (inputs: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv) => boolean;

/** How `runSteps` runs a list of steps. */
export interface StepRun {
  readonly cwd: string;
  /** The environment of every step (the runner's, the workflow's and the job's). */
  readonly env: NodeJS.ProcessEnv;
  /** Context names besides `env.*`, `steps.*` (filled as steps run). */
  readonly context: Context;
  /** Handlers by action name without its version (`actions/cache`). */
  readonly uses: Readonly<Record<string, UsesHandler>>;
  /** `run:` commands not run here (the install), each returned as skipped. */
  readonly skip?: (command: string) => boolean;
  /** A file for GITHUB_OUTPUT and GITHUB_ENV, per step (any temp dir). */
  readonly temp: string;
}

/** What a list of steps did. */
export interface StepsResult {
  readonly failed: boolean;
  readonly outcomes: Readonly<Record<string, "success" | "failure" | "skipped">>;
  readonly outputs: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Each run step's stderr, by step name, for failure messages. */
  readonly stderr: Readonly<Record<string, string>>;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Runs `steps` in order, as a runner does: a step without `if:` runs while nothing failed; a step
 * with one when it holds. Returns each step's outcome and outputs.
 */
export function runSteps(steps: readonly Step[], options: StepRun): StepsResult {
  let env: NodeJS.ProcessEnv = { ...options.env };
  let failed = false;
  const outcomes: Record<string, "success" | "failure" | "skipped"> = {};
  const outputs: Record<string, Record<string, string>> = {};
  const stderr: Record<string, string> = {};
  steps.forEach((step, i) => {
    const key = step.id ?? `step-${i}`;
    const context: Context = { ...options.context, ...Object.fromEntries(Object.entries(env).map(([k, v]) => [`env.${k}`, v ?? ""])), ...Object.fromEntries(Object.entries(outcomes).map(([k, v]) => [`steps.${k}.outcome`, v])), ...Object.fromEntries(Object.entries(outputs).flatMap(([id, o]) => Object.entries(o).map(([k, v]) => [`steps.${id}.outputs.${k}`, v]))) };
    const runs = step.if === undefined ? !failed : truthy(evaluate(step.if.replace(/^\$\{\{(.*)\}\}$/s, "$1"), context));
    if (!runs || (step.run !== undefined && options.skip?.(step.run))) {
      outcomes[key] = "skipped";
      return;
    }
    const stepEnv: NodeJS.ProcessEnv = { ...env, ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(String(v), context)])) };
    let ok: boolean;
    if (step.uses !== undefined) {
      const name = step.uses.replace(/@.*$/, "");
      const handler = options.uses[name];
      if (handler === undefined) throw new Error(`the test runner has no handler for ${step.uses}`);
      ok = handler(Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, expand(String(v), context)])), stepEnv);
    } else {
      const outputFile = path.join(options.temp, `output-${key}`);
      const envFile = path.join(options.temp, `env-${key}`);
      writeFileSync(outputFile, "");
      writeFileSync(envFile, "");
      const r = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", expand(step.run!, context)], { cwd: options.cwd, env: { ...stepEnv, GITHUB_OUTPUT: outputFile, GITHUB_ENV: envFile }, encoding: "utf8" });
      ok = r.status === 0;
      stderr[step.name ?? key] = r.stderr;
      outputs[key] = keyValues(readFileSync(outputFile, "utf8"));
      env = { ...env, ...keyValues(readFileSync(envFile, "utf8")) };
    }
    outcomes[key] = ok ? "success" : "failure";
    if (!ok) failed = true;
  });
  return { failed, outcomes, outputs, stderr, env };
}

/** `NAME=value` lines (GITHUB_OUTPUT, GITHUB_ENV), without the multi-line form. */
function keyValues(text: string): Record<string, string> {
  return Object.fromEntries(text.split("\n").filter((l) => l.includes("=")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
}
