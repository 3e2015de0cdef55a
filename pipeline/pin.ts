/**
 * `pin`: moves a target's pinned SHA in `config.json`, so "regenerate at a new SHA" is one
 * reviewed one-line commit. Effects: git (`ls-remote`, only for `--ref`) and the config file,
 * rewritten atomically. Only the SHA's 40 characters change: comments-free JSON keeps its
 * indentation, key order and line breaks exactly.
 */
import { readFile } from "node:fs/promises";
import { isDeepStrictEqual } from "node:util";
import { loadConfig, resolveTarget } from "./config.js";
import { PipelineError } from "./errors.js";
import { checkSource, firstLine, git } from "./git.js";
import { replaceFile } from "./write.js";

/** What to pin, and where. */
export interface PinOptions {
  /** Path of config.json. */
  readonly configPath: string;
  /** `owner/name` of the target to pin (default: the first). */
  readonly target?: string;
  /** The commit to pin: 40 hex digits. */
  readonly sha?: string;
  /** A branch, tag or full ref name, resolved on the target's url (or `source`). */
  readonly ref?: string;
  /** Resolve `ref` here instead of the target's url (a local mirror works offline). */
  readonly source?: string;
}

/** What `pin` did. */
export interface PinResult {
  readonly repo: string;
  readonly previous: string;
  readonly sha: string;
  /** False when the target was already pinned at `sha` (the file is not touched). */
  readonly changed: boolean;
}

/**
 * Pins the target at `sha`, or at what `ref` names on the remote. Throws E_USAGE for a bad
 * command line, E_CONFIG for a config it cannot read, E_INPUT when the ref does not exist or
 * is ambiguous, E_GIT when `git ls-remote` fails.
 */
export async function pin(options: PinOptions): Promise<PinResult> {
  if ((options.sha === undefined) === (options.ref === undefined)) {
    throw new PipelineError("E_USAGE", "give exactly one of --sha and --ref", { hint: "e.g. error-catalog pin --ref v0.21.0, or --sha <40 hex digits>" });
  }
  const loaded = await loadConfig(options.configPath);
  if (!loaded.ok) throw new PipelineError("E_CONFIG", `${options.configPath} is not a valid configuration`, { details: loaded.errors });
  const resolved = resolveTarget(loaded.value, options.target);
  if (!resolved.ok) throw new PipelineError("E_USAGE", resolved.errors[0] ?? "unknown target");
  const target = resolved.value;

  let sha: string;
  if (options.sha !== undefined) {
    sha = options.sha.toLowerCase();
    if (!/^[0-9a-f]{40}$/.test(sha)) throw new PipelineError("E_USAGE", `--sha ${options.sha} is not a full commit SHA`, { hint: "give all 40 hex digits, or use --ref with a branch or tag" });
  } else {
    sha = await resolveRef(options.source ?? target.url, options.ref!, options.source === undefined ? `the url of ${target.repo} in ${options.configPath}` : "--source");
  }
  if (sha === target.sha) return { repo: target.repo, previous: target.sha, sha, changed: false };

  const text = await readFile(options.configPath, "utf8");
  const index = loaded.value.targets.indexOf(target);
  const next = replaceSha(text, index, sha);
  if (next === null) {
    throw new PipelineError("E_CONFIG", `could not find the "sha" of target ${target.repo} in ${options.configPath}`, { hint: `edit its "sha" by hand to ${sha}` });
  }
  // Note: the rewrite must change that one value and nothing else; check before writing.
  const before = JSON.parse(text) as { targets: { sha: string }[] };
  const after = JSON.parse(next) as { targets: { sha: string }[] };
  before.targets[index]!.sha = sha;
  if (!isDeepStrictEqual(before, after)) {
    throw new PipelineError("E_CONFIG", `rewriting ${options.configPath} would change more than the sha of ${target.repo}; nothing was written`, { hint: `edit its "sha" by hand to ${sha}` });
  }
  await writeAtomically(options.configPath, next);
  const check = await loadConfig(options.configPath);
  if (!check.ok) throw new PipelineError("E_CONFIG", `${options.configPath} no longer validates after pinning`, { details: check.errors });
  return { repo: target.repo, previous: target.sha, sha, changed: true };
}

/**
 * `text` with the `index`-th `"sha": "<40 hex>"` value replaced by `sha`, or null when the text
 * does not have one such pair per target in order. Pure.
 * Note: only targets have a `sha` key in the config schema, so in document order the n-th pair
 * belongs to the n-th target; `pin` re-parses the result to prove it.
 */
export function replaceSha(text: string, index: number, sha: string): string | null {
  const pairs = [...text.matchAll(/"sha"\s*:\s*"([0-9a-fA-F]{40})"/g)];
  const match = pairs[index];
  if (match === undefined || match.index === undefined) return null;
  const start = match.index + match[0].length - 41;
  return `${text.slice(0, start)}${sha}${text.slice(start + 40)}`;
}

/**
 * The commit a ref names on `url`, by `git ls-remote`. A tag is peeled to its commit; a short
 * name may be a branch or a tag but not both. `label` names the url in messages (`--source`).
 * Throws E_INPUT for a url that is refused, or a local path that is not a repository
 * (`checkSource`), or a ref that is not there; E_GIT when git fails.
 */
export async function resolveRef(url: string, ref: string, label = "the url"): Promise<string> {
  if (ref.startsWith("-")) throw new PipelineError("E_USAGE", `--ref ${ref} is not a branch or tag name`, { hint: "give a branch or tag (e.g. main, v0.21.0) or a full ref name (refs/…)" });
  const checked = await checkSource(url, label);
  const source = checked.kind === "local" ? checked.path : checked.url;
  let out: string;
  try {
    // Note: a pattern matches a ref's tail, and a peeled tag's tail is `<tag>^{}`: ask for both.
    out = await git(["ls-remote", "--", source, ref, `${ref}^{}`]);
  } catch (error) {
    if (error instanceof PipelineError) throw error;
    throw new PipelineError("E_GIT", `git ls-remote ${url} failed`, { hint: "check the url (or --source) and the network", details: [firstLine(error)] });
  }
  const refs = new Map<string, string>();
  for (const line of out.split("\n")) {
    const [sha, name] = line.trim().split(/\s+/);
    if (sha && name) refs.set(name, sha);
  }
  const names = ref.startsWith("refs/") ? [ref] : [`refs/heads/${ref}`, `refs/tags/${ref}`];
  const found = names.filter((n) => refs.has(n));
  if (found.length === 0) throw new PipelineError("E_INPUT", `${url} has no branch or tag ${ref}`, { hint: "check the name (git ls-remote <url> lists them), or pin with --sha" });
  if (found.length > 1) throw new PipelineError("E_INPUT", `${ref} is both a branch and a tag on ${url}`, { hint: `say which: --ref refs/heads/${ref} or --ref refs/tags/${ref}` });
  const name = found[0]!;
  return (refs.get(`${name}^{}`) ?? refs.get(name)!).toLowerCase();
}

async function writeAtomically(file: string, text: string): Promise<void> {
  try {
    await replaceFile(file, text);
  } catch (error) {
    throw new PipelineError("E_IO", `could not write ${file}: ${(error as Error).message}`);
  }
}
