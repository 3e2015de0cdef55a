/**
 * The `match` command's reading: the dataset version to match against and, when the pasted text
 * names a location, the repository's other versions, to say which of them have a site there
 * (match.ts does the matching). Effects: reads config.json (only when needed), the index and the
 * versions' files.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { PipelineError } from "../errors.js";
import type { DatasetVersion } from "../match.js";
import { type OutputOptions, resolveOutput } from "../output.js";
import type { Envelope, VersionsIndex } from "../schema-types.generated.js";
import { readIndex, readVersion, repoDir } from "../write.js";

/** Where to read a dataset from: a version folder, or the newest (or a named) version of a repo under an output folder. */
export interface DatasetLocation extends OutputOptions {
  /** A version folder (holding records.jsonl), or a version name under `<out>/<repo>/`. */
  readonly version?: string;
}

/**
 * Reads the envelopes of one dataset version. Throws E_INPUT when the dataset is not there,
 * E_CONFIG when the config is needed and invalid.
 */
export async function loadDataset(where: DatasetLocation): Promise<{ dir: string; envelopes: Envelope[] }> {
  const dir = await versionDir(where);
  return { dir, envelopes: await readEnvelopes(dir) };
}

/**
 * The versions `matchPanic` reads: the selected one (as `loadDataset` finds it) and, with
 * `all`, every version of its index (in index order, the selected one among them). A version
 * folder given directly brings the versions beside it when its parent folder holds their index.
 */
export async function loadVersions(where: DatasetLocation, all: boolean): Promise<{ versions: DatasetVersion[]; selected: string }> {
  const dir = await versionDir(where);
  const selected = path.basename(dir);
  const index = all ? await readIndexBeside(dir) : null;
  const names = index?.includes(selected) ? index : [selected];
  const versions: DatasetVersion[] = [];
  for (const name of names) versions.push({ version: name, envelopes: await readEnvelopes(path.join(path.dirname(dir), name)) });
  return { versions, selected };
}

/** The folder of the version `where` names. */
async function versionDir(where: DatasetLocation): Promise<string> {
  if (where.version !== undefined && (await isDir(path.resolve(where.version))) && (await isFile(path.join(path.resolve(where.version), "records.jsonl")))) {
    return path.resolve(where.version);
  }
  const { outDir, repo } = await resolveOutput(where);
  const index = await readIndex(outDir, repo);
  const entry = where.version === undefined ? index.versions.at(-1) : index.versions.find((v) => v.version === where.version);
  if (entry === undefined) {
    const what = where.version === undefined ? `no dataset version of ${repo}` : `no version ${JSON.stringify(where.version)} of ${repo}`;
    throw new PipelineError("E_INPUT", `${what} under ${outDir}`, { hint: "run `error-catalog run` first, or pass --out/--repo/--version to point at a dataset" });
  }
  return path.join(repoDir(outDir, repo), entry.version);
}

/** The version names of the index (versions.json) in the folder above a version folder, or null when there is none or it does not parse. */
async function readIndexBeside(dir: string): Promise<string[] | null> {
  const text = await readFile(path.join(path.dirname(dir), "versions.json"), "utf8").catch(() => null);
  if (text === null) return null;
  try {
    return (JSON.parse(text) as VersionsIndex).versions.map((v) => v.version);
  } catch {
    return null;
  }
}

/** A version's envelopes; the reader's errors name the damaged file and the remedy. */
async function readEnvelopes(dir: string): Promise<Envelope[]> {
  return [...(await readVersion(dir)).envelopes];
}

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isDirectory() ?? false;
}

async function isFile(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isFile() ?? false;
}

/** Reads all of a stream as UTF-8 text (the CLI passes stdin). */
export async function readAll(stream: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}
