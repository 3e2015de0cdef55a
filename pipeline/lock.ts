/**
 * Locks on folders, between processes: one run at a time writes a target's output folder, one
 * clones or fetches into a cached repository. Effects: the file system.
 *
 * A lock is proper-lockfile's: a folder `<dir>/<name>` made with mkdir (atomic), whose mtime the
 * holder touches every `staleMs / 5`; a lock not touched for `staleMs` is its dead holder's and
 * is taken over. Beside it, `<dir>/<name>-owner` says who holds it (process, host, command, since),
 * for the message of a run that gives up waiting. A holder that exits (normally, by an exception,
 * SIGINT or SIGTERM) removes its lock; one that is killed (SIGKILL, power loss) leaves it stale.
 */
import { hostname } from "node:os";
import path from "node:path";
import { readFile, rm, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import lockfile from "proper-lockfile";
import { PipelineError } from "./errors.js";
import { makeDir } from "./paths.js";

/** How a lock is waited for and when it counts as stale. */
export interface LockOptions {
  /** The lock's name in the folder (default `.lock`). */
  readonly name?: string;
  /**
   * How long to wait for another process's lock, in milliseconds (default: `ERROR_CATALOG_LOCK_WAIT`
   * seconds when set, else `DEFAULT_WAIT_MS`).
   */
  readonly waitMs?: number;
  /** After how long without being touched a lock is its dead holder's, in milliseconds (default 10 s; at least 2 s). */
  readonly staleMs?: number;
  /** Told once when the lock is held by another process and this one waits. */
  readonly log?: (line: string) => void;
}

/** How long a run waits for a lock by default: long enough for another whole run, clone included. */
export const DEFAULT_WAIT_MS = 5 * 60_000;

const DEFAULT_STALE_MS = 10_000;

/** A lock held by this process. */
export interface FolderLock extends AsyncDisposable {
  /** Removes the lock. Throws E_LOCK when it was taken over while held (its holder stalled for longer than `staleMs`). */
  release(): Promise<void>;
}

/**
 * Takes the lock `name` on the folder `dir` (made when missing), waiting while another process
 * holds it, and taking it over when its holder died. `what` names the folder in messages ("the
 * output folder"). Throws E_LOCK (one line: the folder, its holder, what to do) when the wait
 * runs out, E_INPUT when the folder cannot be made where it was asked for (a path under a file,
 * a folder that cannot be written), E_IO on another file system error.
 */
export async function lockFolder(dir: string, what: string, options: LockOptions = {}): Promise<FolderLock> {
  const name = options.name ?? ".lock";
  const lockPath = path.join(dir, name);
  const ownerPath = `${lockPath}-owner`;
  const waitMs = options.waitMs ?? envWaitMs() ?? DEFAULT_WAIT_MS;
  const staleMs = Math.max(options.staleMs ?? DEFAULT_STALE_MS, 2000);
  await makeDir(dir).catch((error: NodeJS.ErrnoException) => {
    throw folderError(error, what, dir);
  });
  let compromised: Error | null = null;
  const deadline = Date.now() + waitMs;
  let told = false;
  let unlock: () => Promise<void>;
  for (;;) {
    try {
      unlock = await lockfile.lock(lockPath, {
        lockfilePath: lockPath,
        realpath: false,
        stale: staleMs,
        update: staleMs / 5,
        retries: 0,
        onCompromised: (error) => void (compromised = error),
      });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw folderError(error as NodeJS.ErrnoException, what, dir);
      if (Date.now() >= deadline) {
        throw new PipelineError("E_LOCK", `${what} ${dir} is locked by ${await owner(ownerPath)}; gave up after ${Math.round(waitMs / 1000)} s: try again when it has finished, or set ERROR_CATALOG_LOCK_WAIT=<seconds> to wait longer`);
      }
      if (!told) options.log?.(`waiting for ${what} ${dir}, locked by ${await owner(ownerPath)}`);
      told = true;
      // Note: a short random pause, so that waiters do not retry in step.
      await sleep(Math.min(100 + Math.random() * 200, Math.max(0, deadline - Date.now())));
    }
  }
  // Note: who holds it is only for messages: a lock without this file (its holder had just made it) is still a lock.
  await writeFile(ownerPath, `${JSON.stringify({ pid: process.pid, host: hostname(), command: command(), since: new Date().toISOString() })}\n`).catch(() => {});
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    if (compromised === null) {
      await rm(ownerPath, { force: true }).catch(() => {});
      await unlock().catch(() => {});
    }
    if (compromised !== null) {
      throw new PipelineError("E_LOCK", `the lock on ${what} ${dir} was taken over by another process while this one held it (${compromised.message}); check what this run wrote with error-catalog validate`);
    }
  };
  return { release, [Symbol.asyncDispose]: release };
}

/** Runs `fn` holding the lock `name` on `dir` (`lockFolder`), and releases it however `fn` ends. */
export async function withLock<T>(dir: string, what: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lock = await lockFolder(dir, what, options);
  let result: T;
  try {
    result = await fn();
  } catch (error) {
    await lock.release().catch(() => {});
    throw error;
  }
  await lock.release();
  return result;
}

/** `ERROR_CATALOG_LOCK_WAIT` in milliseconds, or undefined when unset; E_USAGE when it is not a number of seconds. */
function envWaitMs(): number | undefined {
  const text = process.env.ERROR_CATALOG_LOCK_WAIT;
  if (text === undefined || text === "") return undefined;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds < 0) throw new PipelineError("E_USAGE", `ERROR_CATALOG_LOCK_WAIT=${text} is not a number of seconds`, { hint: "set it to how long a run may wait for another one, e.g. ERROR_CATALOG_LOCK_WAIT=600" });
  return seconds * 1000;
}

/** Who holds a lock, from its owner file: `process 123 on host (error-catalog run …, since …)`. */
async function owner(ownerPath: string): Promise<string> {
  try {
    const o = JSON.parse(await readFile(ownerPath, "utf8")) as { pid?: unknown; host?: unknown; command?: unknown; since?: unknown };
    return `process ${String(o.pid)}${o.host === hostname() ? "" : ` on ${String(o.host)}`} (${String(o.command)}, since ${String(o.since)})`;
  } catch {
    return "another process";
  }
}

/** This process's command line, as an owner file shows it. */
function command(): string {
  const text = ["error-catalog", ...process.argv.slice(2)].join(" ");
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** The error of a folder that cannot be made or locked: the input's (E_INPUT) where the path cannot be a folder of ours, else E_IO. */
function folderError(error: NodeJS.ErrnoException, what: string, dir: string): PipelineError {
  const reason = error.message.replace(/^[A-Z]+: /, "");
  if (INPUT_ERRORS.has(error.code ?? "")) {
    return new PipelineError("E_INPUT", `cannot make ${what} ${dir}: ${reason}`, { hint: "choose a folder that can be created and written (--out, or output and cacheDir in the config)", cause: error });
  }
  return new PipelineError("E_IO", `cannot lock ${what} ${dir}: ${reason}`, { hint: "check that the disk has room and the folder can be written", cause: error });
}

/** Errors of a path that cannot be a writable folder: under a file, in a file system that has none, read-only, not ours. */
const INPUT_ERRORS = new Set(["ENOENT", "ENOTDIR", "EEXIST", "EACCES", "EPERM", "EROFS"]);
