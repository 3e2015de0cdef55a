/**
 * Stage 6, write: a dataset version on disk, atomically. Effects: the file system only.
 *
 * Layout: `<out>/<owner>/<name>/versions.json` (the index, newest last) and
 * `<out>/<owner>/<name>/<version>/{manifest.json,records.jsonl}`. The index is the truth: a
 * version folder it does not name is the leftover of an interrupted run and is never read; the
 * staging folders and temporary indexes of killed runs are removed (leftovers.ts).
 */
import { createHash, type Hash } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { PipelineError } from "./errors.js";
import { removeLeftovers } from "./leftovers.js";
import type { Envelope, Manifest, VersionEntry, VersionsIndex } from "./schema-types.generated.js";
import { validate } from "./validate.js";

/** The folder of one repository's datasets. */
export function repoDir(outDir: string, repo: string): string {
  return path.join(outDir, ...repo.split("/"));
}

/** Stable JSON text: 2-space indent and a trailing newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * One envelope per line, in the order given, as UTF-8 in parts of about 1 MB (so the dataset is
 * never one string: joining it would copy it once more). `carried` gives the line of an envelope
 * that need not be serialised again (its bytes, without the line break), or null.
 * Note: each part is encoded once, here: hashing and writing a string would each encode it.
 */
export function* jsonlParts(envelopes: readonly Envelope[], carried: (e: Envelope) => Buffer | null = () => null): Generator<Buffer> {
  let lines: (string | Buffer)[] = [];
  let length = 0;
  let bytes = false;
  /** The lines so far as one part. */
  const part = () => (bytes ? Buffer.concat(lines.map((l) => (typeof l === "string" ? Buffer.from(l) : l))) : Buffer.from(lines.join("")));
  for (const e of envelopes) {
    const line = carried(e);
    if (line === null) {
      const text = `${JSON.stringify(e)}\n`;
      lines.push(text);
      length += text.length;
    } else {
      lines.push(line, NEWLINE);
      length += line.length + 1;
      bytes = true;
    }
    if (length >= 1 << 20) {
      yield part();
      (lines = []), (length = 0), (bytes = false);
    }
  }
  if (lines.length > 0) yield part();
}

const NEWLINE = Buffer.from("\n");

/** The index of a repository's versions, or an empty one when there is none yet. */
export async function readIndex(outDir: string, repo: string): Promise<VersionsIndex> {
  const file = path.join(repoDir(outDir, repo), "versions.json");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { repo, versions: [] };
    throw new PipelineError("E_IO", `could not read ${file}`, { cause: error });
  }
  try {
    return JSON.parse(text) as VersionsIndex;
  } catch (error) {
    throw new PipelineError("E_INPUT", `${file} is not valid JSON: ${(error as Error).message}`, {
      hint: "restore it from the previous CI artifact, or delete the repository's output folder to start over",
    });
  }
}

/**
 * The name of the next version: a 4-digit sequence number and the first 12 hex of the SHA
 * (`0003-2c06be351006`), so folder names sort like the index. Skips numbers used by leftover
 * folders, so an interrupted run's debris is never overwritten or deleted.
 */
export async function nextVersionName(outDir: string, repo: string, index: VersionsIndex, sha: string): Promise<string> {
  let names: string[] = [];
  try {
    names = await readdir(repoDir(outDir, repo));
  } catch {
    // no folder yet
  }
  const used = [...index.versions.map((v) => v.version), ...names]
    .map((n) => /^(\d{4,})-/.exec(n)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
  const next = used.length === 0 ? 1 : Math.max(...used) + 1;
  return `${String(next).padStart(4, "0")}-${sha.slice(0, 12)}`;
}

/** What one version holds. */
export interface Dataset {
  readonly manifest: Manifest;
  readonly envelopes: readonly Envelope[];
}

/**
 * What a version is written from: its manifest, without `recordsSha256` (`writeVersion` fills
 * it in), and the text of records.jsonl in parts (`jsonlParts`, or bytes carried over).
 */
export interface VersionFiles {
  readonly manifest: Manifest;
  readonly records: Iterable<string | Uint8Array>;
}

/**
 * Writes the version folder under a temporary name, flushes it, renames it into place, then
 * replaces the index the same way. Until the index is renamed, readers see the previous state;
 * a crash at any point leaves every earlier version and the index as they were.
 */
export async function writeVersion(outDir: string, files: VersionFiles, entry: VersionEntry): Promise<string> {
  const { repo, version } = files.manifest;
  const dir = repoDir(outDir, repo);
  const target = path.join(dir, version);
  const staging = path.join(dir, `.staging-${version}-${process.pid}`);
  const indexFile = path.join(dir, "versions.json");
  let placed = false;
  try {
    await removeLeftovers(dir, [".staging-", "versions.json.tmp-"]);
    await mkdir(staging, { recursive: true });
    const hash = createHash("sha256");
    await writeDurably(path.join(staging, "records.jsonl"), hashed(files.records, hash));
    const manifest: Manifest = { ...files.manifest, recordsSha256: hash.digest("hex") };
    const valid = validate("manifest", manifest, "manifest.json");
    if (!valid.ok) throw invalidDataset(valid.errors);
    await writeDurably(path.join(staging, "manifest.json"), jsonText(manifest));
    await rename(staging, target);
    placed = true;
    const index = await readIndex(outDir, repo);
    const next: VersionsIndex = { repo, versions: [...index.versions, entry] };
    await replaceFile(indexFile, jsonText(next));
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    // Note: a folder the index does not name is never read, but one this call made and could not
    // index is removed, so only a crash (not an error) leaves debris behind.
    if (placed) await rm(target, { recursive: true, force: true });
    if (error instanceof PipelineError) throw error;
    throw new PipelineError("E_IO", `could not write dataset version ${version} under ${dir}`, {
      hint: "check that the output folder is writable and the disk has room; earlier versions are untouched",
      details: [(error as Error).message],
    });
  }
  return target;
}

/** The error of a dataset that failed validation: a bug, as what the pipeline writes is its own. */
export function invalidDataset(errors: readonly string[]): PipelineError {
  return new PipelineError("E_SCHEMA", "the dataset failed validation; nothing was written", { details: errors.slice(0, 20), hint: "this is a bug in error-catalog: please report it with these lines" });
}

/** The parts as given, each added to `hash` (strings as their UTF-8, as they are written). */
function* hashed<T extends string | Uint8Array>(parts: Iterable<T>, hash: Hash): Generator<T> {
  for (const part of parts) {
    hash.update(part);
    yield part;
  }
}

/** Writes the text (one string, or parts of it in order, text or bytes) to `file` and flushes it to disk. */
export async function writeDurably(file: string, text: string | Iterable<string | Uint8Array>): Promise<void> {
  const handle = await open(file, "w");
  try {
    // Note: the two branches pick `write`'s overloads for text and for bytes.
    for (const part of typeof text === "string" ? [text] : text) await (typeof part === "string" ? handle.write(part) : handle.write(part));
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `file` atomically: the text goes to a temporary file beside it, is flushed, and is
 * renamed over it, so readers see the old file or the new one, never a part. The temporary file
 * is removed when anything fails, and the error is thrown on.
 */
export async function replaceFile(file: string, text: string | Iterable<string>): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    await writeDurably(tmp, text);
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true }).catch(() => {});
    throw error;
  }
}

/** Reads a version folder back: its manifest and envelopes. */
export async function readVersion(dir: string): Promise<Dataset> {
  const { manifest, records } = await readVersionFiles(dir);
  return { manifest, envelopes: parseRecords(records) };
}

/** A version folder's manifest, and its records.jsonl as bytes. */
export async function readVersionFiles(dir: string): Promise<{ manifest: Manifest; records: Buffer }> {
  const manifest = JSON.parse(await readFile(path.join(dir, "manifest.json"), "utf8")) as Manifest;
  return { manifest, records: await readFile(path.join(dir, "records.jsonl")) };
}

/** The envelopes of records.jsonl's bytes; throws on a line that is not JSON. */
export function parseRecords(records: Buffer): Envelope[] {
  return parseRecordLines(records).map((r) => r.envelope);
}

/** The envelopes of records.jsonl's bytes, each with its line (its bytes, without the line break); throws on a line that is not JSON. */
export function parseRecordLines(records: Buffer): { readonly envelope: Envelope; readonly line: Buffer }[] {
  const out: { envelope: Envelope; line: Buffer }[] = [];
  for (let start = 0; start < records.length; ) {
    const eol = records.indexOf(10, start);
    const end = eol < 0 ? records.length : eol;
    if (end > start) {
      const line = records.subarray(start, end);
      out.push({ envelope: JSON.parse(line.toString("utf8")) as Envelope, line });
    }
    start = end + 1;
  }
  return out;
}
