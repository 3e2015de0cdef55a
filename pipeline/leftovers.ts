/**
 * What killed runs leave behind: a run writes to temporary names ending in its process id (the
 * extraction cache's `<file>.tmp-<pid>`, a version's `.staging-<version>-<pid>` folder, the
 * index's `versions.json.tmp-<pid>`) and renames them into place at the end, so a run killed
 * midway leaves them. Nothing reads them; the next run removes those whose process is gone, and
 * the version folders its index does not name (`removeUnlisted`).
 * Effects: the file system.
 */
import { readdir, rm } from "node:fs/promises";
import path from "node:path";

/**
 * Removes the entries of `dir` whose names start with one of `prefixes` and end in `-<pid>` of a
 * process that no longer runs; returns their names. Another run's (a live process, this one
 * included) are left alone. A folder that cannot be read has none.
 */
export async function removeLeftovers(dir: string, prefixes: readonly string[]): Promise<string[]> {
  const names = await entriesOf(dir);
  const removed: string[] = [];
  for (const name of names.sort()) {
    if (!prefixes.some((prefix) => name.startsWith(prefix))) continue;
    const pid = Number(/-(\d+)$/.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isSafeInteger(pid) || pid <= 0 || running(pid)) continue;
    await rm(path.join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** The names in `dir`; none when it cannot be read. */
async function entriesOf(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

/** A version folder's name (`0003-2c06be351006`). */
const VERSION_FOLDER = /^\d{4,}-[0-9a-f]{12}$/;

/**
 * Removes the version folders of `dir` (a repository's output folder) that its index does not
 * name: a run killed between putting its folder in place and writing the index leaves one, whole,
 * which nothing reads. Returns their names. Only a run that holds the folder's lock may call it (a
 * run writing at the same moment would lose its folder).
 */
export async function removeUnlisted(dir: string, listed: readonly string[]): Promise<string[]> {
  const names = await entriesOf(dir);
  const known = new Set(listed);
  const removed = names.filter((name) => VERSION_FOLDER.test(name) && !known.has(name)).sort();
  for (const name of removed) await rm(path.join(dir, name), { recursive: true, force: true });
  return removed;
}

/** True when a process with this id exists (signal 0 tests for it without sending anything). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // Note: EPERM is a process of another user: it runs.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
