/**
 * How the tool runs git: every call with the same protocol allow-list, and every source (a URL
 * or a local path, from `--source` or a config's `url`) checked before git sees it.
 * Effects: git processes; `checkSource` reads the file system (never the network).
 */
import { execFile } from "node:child_process";
import { open, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PipelineError } from "./errors.js";

/** The transports git may use for this tool: local paths and `file://`, `https://`, `ssh://` (and `user@host:path`), `git://`. */
export const GIT_PROTOCOLS = ["file", "git", "https", "ssh"] as const;

/**
 * The environment of every git process: this one's, with `GIT_ALLOW_PROTOCOL` set to
 * `GIT_PROTOCOLS`.
 * Note: git then uses no other transport whatever its config says (`protocol.allow`,
 *   `protocol.<name>.allow`); `-c protocol.allow=never` would not be enough, as a user's
 *   `protocol.ext.allow = always` outranks it.
 */
export function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_ALLOW_PROTOCOL: GIT_PROTOCOLS.join(":") };
}

/**
 * Runs `git <args>` (with `gitEnv`) and returns its stdout. Rejects with an Error whose message
 * is git's stderr (or how it ended), and E_GIT when git cannot be started.
 */
export function git(args: readonly string[], options: { maxBuffer?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", [...args], { env: gitEnv(), maxBuffer: options.maxBuffer ?? 1 << 26, encoding: "utf8" }, (error, stdout, stderr) => {
      if (error === null) return resolve(stdout);
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return reject(new PipelineError("E_GIT", "could not start git", { hint: "install git and make sure it is on PATH", cause: error }));
      const text = stderr.trim();
      reject(new Error(text === "" ? `git ${args[0] ?? ""} failed (${error.code ?? error.signal ?? "no status"})` : text, { cause: error }));
    });
  });
}

/** A source as git will be given it: a local path (absolute) or a URL of an allowed transport. */
export type Source = { readonly kind: "local"; readonly path: string } | { readonly kind: "url"; readonly url: string };

/**
 * Why git must not be given `source`, or null when it may (its form only; `checkSource` also
 * looks at a local path). Pure.
 * Note: the forms are git's own (`transport.c`, `connect.c`): `<name>::<address>` runs the remote
 *   helper `git-remote-<name>` (`ext::` runs any command), `<scheme>://` picks a transport by its
 *   scheme, `[user@]host:path` with no `/` before the first `:` is ssh, anything else a path.
 */
export function sourceProblem(source: string): string | null {
  if (source.trim() === "") return "is empty";
  if (source.startsWith("-")) return "starts with '-', which git would read as an option";
  const helper = /^([A-Za-z][A-Za-z0-9+.-]*)::/.exec(source);
  if (helper) return `uses git's ${JSON.stringify(helper[1])} transport (a remote helper), which error-catalog does not allow`;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(source)?.[1]?.toLowerCase();
  if (scheme !== undefined && !URL_SCHEMES.has(scheme)) return `uses the ${JSON.stringify(scheme)} protocol, which error-catalog does not allow`;
  return null;
}

/** The URL schemes of the allowed transports (`git+ssh` and `ssh+git` are git's names for ssh). */
const URL_SCHEMES = new Set(["file", "git", "https", "ssh", "git+ssh", "ssh+git"]);

/** The hint of every source problem. */
const SOURCE_HINT = `give the path of a git repository (a mirror, a bare repository or a work tree) or a URL git can clone with ${GIT_PROTOCOLS.join(", ")} (https://…, ssh://…, user@host:path, git://…, file://…)`;

/**
 * Checks `source` before any git runs and returns it as git will be given it. A refused form
 * (`sourceProblem`), a local path that does not exist or is not a git repository (nor a bundle)
 * throws E_INPUT naming `label` (`--source`, a config's url). A URL is not contacted.
 * Note: a local repository is recognised as git does (`is_git_directory`): `HEAD`, `objects/` and
 *   `refs/` in the folder or in its `.git` (or a `.git` file pointing elsewhere, as a linked work
 *   tree has); no git runs on it, so nothing in it (its config, its hooks) can act.
 */
export async function checkSource(source: string, label: string): Promise<Source> {
  const problem = sourceProblem(source);
  if (problem !== null) throw new PipelineError("E_INPUT", `${label} ${JSON.stringify(source)} ${problem}`, { hint: SOURCE_HINT });
  const local = localPath(source);
  if (local === null) return { kind: "url", url: source };
  const found = await stat(local).catch(() => null);
  if (found === null) throw new PipelineError("E_INPUT", `${label} ${source} does not exist`, { hint: SOURCE_HINT });
  if (!(found.isDirectory() ? (await isGitDir(local)) || (await isGitDir(path.join(local, ".git"))) || (await isGitFile(path.join(local, ".git"))) : await isBundle(local))) {
    throw new PipelineError("E_INPUT", `${label} ${source} is not a git repository`, { hint: SOURCE_HINT });
  }
  // Note: a file:// URL goes to git as it is: git clones it through its transport, not as a path (no hard links).
  return /^file:\/\//i.test(source) ? { kind: "url", url: source } : { kind: "local", path: local };
}

/** The absolute path a local source names (a path, or a `file://` URL), or null for a URL of another transport. */
function localPath(source: string): string | null {
  if (/^file:\/\//i.test(source)) {
    try {
      return fileURLToPath(source);
    } catch {
      return null;
    }
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(source)) return null;
  // Note: git's rule (`url_is_local_not_ssh`): a path has no `:`, or a `/` before its first one.
  const colon = source.indexOf(":");
  const slash = source.indexOf("/");
  return colon < 0 || (slash >= 0 && slash < colon) ? path.resolve(source) : null;
}

async function isGitDir(dir: string): Promise<boolean> {
  const [head, objects, refs] = await Promise.all(["HEAD", "objects", "refs"].map((n) => stat(path.join(dir, n)).catch(() => null)));
  return head?.isFile() === true && objects?.isDirectory() === true && refs?.isDirectory() === true;
}

async function isGitFile(file: string): Promise<boolean> {
  return (await head(file, 8)) === "gitdir: ";
}

/** True for a git bundle (`git bundle create`), which git clones like a repository. */
async function isBundle(file: string): Promise<boolean> {
  return /^# v[23] git bundle\n/.test(await head(file, 16));
}

/** The first `bytes` bytes of a file as Latin-1 text; "" when it cannot be read. */
async function head(file: string, bytes: number): Promise<string> {
  const handle = await open(file, "r").catch(() => null);
  if (handle === null) return "";
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(bytes), 0, bytes, 0);
    return buffer.toString("latin1", 0, bytesRead);
  } catch {
    return "";
  } finally {
    await handle.close();
  }
}

/** The first non-empty line of an error's message (git's first line of stderr). */
export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.trim().split("\n").find((l) => l.trim() !== "")?.trim() ?? text;
}
