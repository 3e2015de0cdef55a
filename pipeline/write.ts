/**
 * Stage 6, write: a dataset version on disk, atomically. Effects: the file system only.
 *
 * Layout: `<out>/<owner>/<name>/versions.json` (the index, newest last) and
 * `<out>/<owner>/<name>/<version>/{manifest.json,records.jsonl}`. The index is the truth: a
 * version folder it does not name is the leftover of an interrupted run and is never read; the
 * staging folders and temporary indexes of killed runs are removed (leftovers.ts).
 */
import { createHash, type Hash } from "node:crypto";
import { open, readdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { parseJson } from "./config.js";
import { PipelineError } from "./errors.js";
import { removeLeftovers } from "./leftovers.js";
import { checkRepo, makeDir, within } from "./paths.js";
import type { Envelope, Manifest, VersionEntry, VersionsIndex } from "./schema-types.generated.js";
import { validate } from "./validate.js";

/**
 * The folder of one repository's datasets, `<outDir>/<owner>/<name>`. Throws E_INPUT when `repo`
 * is not a safe `owner/name` (`checkRepo`) or the folder would not lie inside `outDir`.
 * Never touches the disk.
 */
export function repoDir(outDir: string, repo: string): string {
  checkRepo(repo);
  return within(outDir, path.join(outDir, ...repo.split("/")), "the output folder of the repository");
}

/** A version's name: a sequence number of 4 digits or more and 12 hex of its SHA. */
const VERSION_NAME = /^\d{4,}-[0-9a-f]{12}$/;

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

/**
 * The index of a repository's versions, or an empty one when there is none yet. Throws E_INPUT
 * naming the file (and line) when it is not JSON, not an index (schema `versions`), the index of
 * another repository, or names a version twice; E_IO when it cannot be read.
 */
export async function readIndex(outDir: string, repo: string): Promise<VersionsIndex> {
  const file = path.join(repoDir(outDir, repo), "versions.json");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { repo, versions: [] };
    throw new PipelineError("E_IO", `could not read ${file}: ${(error as Error).message}`, { cause: error });
  }
  const damaged = (message: string, details: readonly string[] = []) =>
    new PipelineError("E_INPUT", message, { details: details.slice(0, 20), hint: "restore it (e.g. from the previous CI artifact); the version folders beside it are not changed by this, and without an index the next run starts again at version 1" });
  const parsed = parseJson(text, file);
  if (!parsed.ok) throw damaged(parsed.errors[0]!, parsed.errors.slice(1));
  const checked = validate<VersionsIndex>("versions", parsed.value, file);
  if (!checked.ok) throw damaged(`${file} is not an index of dataset versions: ${unlabelled(file, checked.errors[0]!)}`, checked.errors.slice(1));
  const index = checked.value;
  if (index.repo !== repo) throw damaged(`${file} is the index of ${index.repo}, not of ${repo}`);
  const numbers = new Map<number, string>();
  for (const v of index.versions) {
    if (!VERSION_NAME.test(v.version)) throw damaged(`${file} names a version ${JSON.stringify(v.version)}, which is not NNNN-<12 hex>`);
    const n = Number(v.version.slice(0, v.version.indexOf("-")));
    const earlier = numbers.get(n);
    if (earlier !== undefined) throw damaged(`${file} lists two versions numbered ${n}: ${earlier} and ${v.version}`);
    numbers.set(n, v.version);
  }
  return index;
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
  if (!VERSION_NAME.test(version) || entry.version !== version) throw new PipelineError("E_INPUT", `${JSON.stringify(version)} is not a version name (NNNN-<12 hex>) or not the index entry's`, { hint: "this is a bug in error-catalog: please report it" });
  const target = within(dir, path.join(dir, version), "the version folder");
  const staging = within(dir, path.join(dir, `.staging-${version}-${process.pid}`), "the staging folder");
  const indexFile = path.join(dir, "versions.json");
  let placed = false;
  try {
    await removeLeftovers(dir, [".staging-", "versions.json.tmp-"]);
    await makeDir(staging);
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

/**
 * Reads a version folder back: its manifest and envelopes, each checked (`readVersionFiles`, and
 * every envelope against schema envelope.v2). Throws E_INPUT naming the file and line of the
 * first problems, and what to do.
 */
export async function readVersion(dir: string): Promise<Dataset> {
  const { manifest, lines } = await readVersionLines(dir);
  return { manifest, envelopes: lines.map((l) => l.envelope) };
}

/**
 * A version folder read as `readVersion` reads it, every envelope with its line of records.jsonl
 * (its bytes as written, without the line break); the same checks and errors.
 */
export async function readVersionLines(dir: string): Promise<{ manifest: Manifest; lines: { readonly envelope: Envelope; readonly line: Buffer }[] }> {
  const { manifest, records } = await readVersionFiles(dir);
  const file = path.join(dir, "records.jsonl");
  const lines = parseRecordLines(records, file);
  const problems: string[] = [];
  lines.forEach(({ envelope }, i) => {
    if (problems.length >= 20) return;
    const checked = validate("envelope.v2", envelope, `${file}:${i + 1}`);
    if (!checked.ok) problems.push(...checked.errors);
  });
  if (problems.length > 0) throw damagedVersion(dir, problems[0]!, problems.slice(1));
  return { manifest, lines };
}

/**
 * A version folder's manifest, checked against schema `manifest` and the folder's name (when that
 * is a version's name), and its records.jsonl as bytes, checked against the manifest's SHA-256 (so
 * they are the bytes error-catalog validated and wrote), not parsed (`parseRecordLines`). Throws
 * E_INPUT when the folder or a file is missing, the manifest is not JSON (with its line and
 * column) or not a manifest, or the records are not the manifest's; E_IO when a file cannot be read.
 */
export async function readVersionFiles(dir: string): Promise<{ manifest: Manifest; records: Buffer }> {
  const manifestFile = path.join(dir, "manifest.json");
  const recordsFile = path.join(dir, "records.jsonl");
  const [manifestBytes, records] = await Promise.all([versionFile(dir, manifestFile), versionFile(dir, recordsFile)]);
  const parsed = parseJson(manifestBytes.toString("utf8"), manifestFile);
  if (!parsed.ok) throw damagedVersion(dir, parsed.errors[0]!, parsed.errors.slice(1));
  const checked = validate<Manifest>("manifest", parsed.value, manifestFile);
  if (!checked.ok) throw damagedVersion(dir, `${manifestFile} is not a dataset manifest: ${unlabelled(manifestFile, checked.errors[0]!)}`, checked.errors.slice(1));
  const manifest = checked.value;
  // Note: a version folder copied elsewhere under another name (match --version) may be read.
  if (VERSION_NAME.test(path.basename(dir)) && manifest.version !== path.basename(dir)) throw damagedVersion(dir, `${manifestFile} is the manifest of version ${manifest.version}, not of ${path.basename(dir)}`);
  // Note: a manifest written before the hash was recorded has none to check against.
  const sha256 = manifest.recordsSha256 === undefined ? undefined : createHash("sha256").update(records).digest("hex");
  if (sha256 !== manifest.recordsSha256) {
    // Note: the line at fault, when one is (cut short, not JSON, not an envelope), says more than the hash.
    parseRecordLines(records, recordsFile);
    throw damagedVersion(dir, `${recordsFile} is not the file its manifest was written with (its SHA-256 is ${sha256}, the manifest's ${manifest.recordsSha256}): it was changed after it was written`);
  }
  return { manifest, records };
}

/** The bytes of a file of the version folder `dir`; E_INPUT when it (or the folder) is missing, E_IO when it cannot be read. */
async function versionFile(dir: string, file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw new PipelineError("E_IO", `could not read ${file}: ${(error as Error).message}`, { cause: error });
    const folder = await readdir(dir).then(() => true, () => false);
    throw damagedVersion(dir, folder ? `${file} is missing` : `the version folder ${dir} is missing`);
  }
}

/** The envelopes of records.jsonl's bytes (`parseRecordLines`). */
export function parseRecords(records: Buffer, file = "records.jsonl"): Envelope[] {
  return parseRecordLines(records, file).map((r) => r.envelope);
}

/**
 * The envelopes of records.jsonl's bytes, each with its line (its bytes, without the line break).
 * Throws E_INPUT naming `file` and the line when the last line has no line end (the file was cut
 * short), or a line is not JSON or not shaped like an envelope (an object with a `record` whose
 * `id` is 16 hex, and `occurrences`); the envelopes are not validated further (`readVersion` does).
 */
export function parseRecordLines(records: Buffer, file = "records.jsonl"): { readonly envelope: Envelope; readonly line: Buffer }[] {
  const out: { envelope: Envelope; line: Buffer }[] = [];
  const dir = path.dirname(file);
  let number = 0;
  for (let start = 0; start < records.length; ) {
    const eol = records.indexOf(10, start);
    const end = eol < 0 ? records.length : eol;
    number++;
    if (eol < 0) throw damagedVersion(dir, `${file}:${number}: the last line has no line end: the file was cut short`);
    if (end > start) {
      const line = records.subarray(start, end);
      let envelope: unknown;
      try {
        envelope = JSON.parse(line.toString("utf8"));
      } catch (error) {
        throw damagedVersion(dir, `${file}:${number}: not JSON (${(error as Error).message.replace(/ in JSON at position \d+.*$/s, "")})`);
      }
      const e = envelope as { record?: { id?: unknown }; occurrences?: unknown } | null;
      if (typeof e !== "object" || e === null || typeof e.record !== "object" || e.record === null || typeof e.record.id !== "string" || !/^[0-9a-f]{16}$/.test(e.record.id) || !Array.isArray(e.occurrences)) {
        throw damagedVersion(dir, `${file}:${number}: not a record envelope (an object with record.id, 16 hex, and occurrences)`);
      }
      out.push({ envelope: envelope as Envelope, line });
    }
    start = end + 1;
  }
  return out;
}

/** A line of `validate` about `file` (`<file> /pointer: problem`) without the file's name. */
function unlabelled(file: string, line: string): string {
  return line.startsWith(`${file} `) ? line.slice(file.length + 1) : line;
}

/** The error of a version whose files are damaged or foreign: what is wrong, and how to recover. */
function damagedVersion(dir: string, message: string, details: readonly string[] = []): PipelineError {
  const version = path.basename(dir);
  return new PipelineError("E_INPUT", message, {
    details: details.slice(0, 20),
    hint: VERSION_NAME.test(version) ? `restore ${dir} (e.g. from the previous CI artifact), or remove the version ${version} from ${path.join(path.dirname(dir), "versions.json")}` : `restore ${dir}, or point at another version folder`,
  });
}
