/**
 * Reads `config.json`: JSON syntax, then the config schema (defaults filled in), then the rules a
 * schema cannot say (unique target repos, urls of allowed transports). Returns a result with one
 * readable line per problem.
 */
import { readFile } from "node:fs/promises";
import { PipelineError } from "./errors.js";
import { sourceProblem } from "./git.js";
import type { Config, Target } from "./schema-types.generated.js";
import { validate, type Validation } from "./validate.js";

/**
 * Loads and validates the config file at `file` (path as given; it labels every message).
 * Returns the config with the schema's defaults filled in, or the problems: bad JSON (with
 * `file:line:column`), schema issues (with JSON pointers), duplicate target repos, urls git must
 * not be given (`sourceProblem`). Throws E_CONFIG only when there is no file to read (missing, a
 * folder, unreadable): a config that is not there is not an invalid one. Paths inside the config
 * are returned as written, not resolved.
 */
export async function loadConfig(file: string): Promise<Validation<Config>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new PipelineError("E_CONFIG", `the config file ${file} does not exist`, { hint: "pass --config with the path of config.json, or run in the folder that holds it" });
    const reason = code === "EISDIR" ? "it is a folder" : (error as Error).message;
    throw new PipelineError("E_CONFIG", `cannot read the config file ${file}: ${reason}`, { hint: "pass --config with the path of config.json" });
  }
  const parsed = parseJson(text, file);
  if (!parsed.ok) return parsed;
  const checked = validate<Config>("config", parsed.value, file);
  const rules = [...duplicateRepos(parsed.value, file), ...refusedUrls(parsed.value, file)];
  if (!checked.ok) return { ok: false, errors: [...checked.errors, ...rules] };
  if (rules.length > 0) return { ok: false, errors: rules };
  return checked;
}

/**
 * The target for `repo`, or the first target when `repo` is not given. When `repo` names no
 * target, the error lists the repos the config has.
 */
export function resolveTarget(config: Config, repo?: string): Validation<Target> {
  const target = repo === undefined ? config.targets[0] : config.targets.find((candidate) => candidate.repo === repo);
  if (target) return { ok: true, value: target };
  const available = config.targets.map((candidate) => candidate.repo).join(", ") || "(none)";
  const what = repo === undefined ? "the config has no targets" : `no target ${JSON.stringify(repo)} in the config`;
  return { ok: false, errors: [`${what}; available repos: ${available}`] };
}

/** `/targets/<i>/repo` lines for every repo already named by an earlier target. */
function duplicateRepos(data: unknown, file: string): string[] {
  const targets = (data as { targets?: unknown } | null)?.targets;
  if (!Array.isArray(targets)) return [];
  const first = new Map<string, number>();
  const errors: string[] = [];
  targets.forEach((target: unknown, index) => {
    const repo = (target as { repo?: unknown } | null)?.repo;
    if (typeof repo !== "string") return;
    const earlier = first.get(repo);
    if (earlier === undefined) first.set(repo, index);
    else errors.push(`${file} /targets/${index}/repo: duplicate repo ${JSON.stringify(repo)} (also at /targets/${earlier})`);
  });
  return errors;
}

/** `/targets/<i>/url` lines for every url git must not be given (`sourceProblem`: `ext::…`, an unknown protocol). */
function refusedUrls(data: unknown, file: string): string[] {
  const targets = (data as { targets?: unknown } | null)?.targets;
  if (!Array.isArray(targets)) return [];
  return targets.flatMap((target: unknown, index) => {
    const url = (target as { url?: unknown } | null)?.url;
    const problem = typeof url === "string" && url !== "" ? sourceProblem(url) : null;
    return problem === null ? [] : [`${file} /targets/${index}/url: ${JSON.stringify(url)} ${problem}`];
  });
}

/** JSON.parse with a `file:line:column: invalid JSON: …` line instead of an exception. */
export function parseJson(text: string, file: string): Validation<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const message = (error as Error).message;
    const offset = errorOffset(text, message);
    const before = text.slice(0, offset).split("\n");
    const line = before.length;
    const column = (before[before.length - 1]?.length ?? 0) + 1;
    const reason = message
      .replace(/ in JSON at position \d+.*$/s, "")
      .replace(/^(Unexpected token '.*?'), .* is not valid JSON$/s, "$1");
    return { ok: false, errors: [`${file}:${line}:${column}: invalid JSON: ${reason}`] };
  }
}

/**
 * The offset of a JSON syntax error. Uses the position in V8's message when it has one.
 * Note: node 20 leaves it out of "Unexpected token" messages, so then the offset is the end of the
 * shortest prefix that is already invalid, found by bisection (a prefix of valid-so-far text fails
 * only at its end; once invalid, every longer prefix is invalid too).
 */
function errorOffset(text: string, message: string): number {
  const position = /at position (\d+)/.exec(message);
  if (position?.[1] !== undefined) return Math.min(Number(position[1]), text.length);
  if (/Unexpected end of JSON input/.test(message)) return text.length;
  const invalid = (length: number): boolean => {
    try {
      JSON.parse(text.slice(0, length));
      return false;
    } catch (error) {
      const reason = (error as Error).message;
      if (/Unexpected end of JSON input/.test(reason)) return false;
      const at = /at position (\d+)/.exec(reason);
      return at?.[1] === undefined || Number(at[1]) < length;
    }
  };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (invalid(middle)) high = middle;
    else low = middle + 1;
  }
  return Math.max(0, low - 1);
}
