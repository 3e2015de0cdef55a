/**
 * Checks a dataset version on disk as a reader would trust it: the manifest and every envelope
 * against the schemas, records sorted by id with unique ids, occurrences consistent with their
 * record and the manifest, and the index entry that names the version. Reads files, writes none;
 * returns one `file:line: problem` line per problem instead of throwing.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Envelope, Manifest, VersionsIndex } from "./schema-types.generated.js";
import { validate } from "./validate.js";

/** The problems found (empty when the version is sound) and how many records were read. */
export interface VerifyResult {
  readonly problems: string[];
  readonly records: number;
}

/**
 * Verifies the version folder `dir` (`<out>/<owner>/<name>/<version>`), whose index is
 * `../versions.json`. Each problem names the file (as `label` joined with the file name) and,
 * for records, the line. Never throws for bad data; only an unexpected I/O failure propagates.
 */
export async function verifyVersion(dir: string, label: string = dir): Promise<VerifyResult> {
  const problems: string[] = [];
  const where = (file: string) => path.join(label, file);
  const manifestFile = where("manifest.json");
  const recordsFile = where("records.jsonl");
  const indexFile = path.join(path.dirname(label), "versions.json");

  const manifest = await readJson<Manifest>(path.join(dir, "manifest.json"), manifestFile, problems);
  if (manifest !== undefined) {
    const m = validate("manifest", manifest, manifestFile);
    if (!m.ok) problems.push(...m.errors);
    else if (manifest.version !== path.basename(dir)) problems.push(`${manifestFile} /version: ${JSON.stringify(manifest.version)} is not the folder's name ${JSON.stringify(path.basename(dir))}`);
  }
  const valid = manifest !== undefined && problems.length === 0 ? manifest : undefined;

  let text: string | undefined;
  try {
    const bytes = await readFile(path.join(dir, "records.jsonl"));
    text = bytes.toString("utf8");
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    if (valid?.recordsSha256 !== undefined && sha256 !== valid.recordsSha256) {
      problems.push(`${recordsFile}: its SHA-256 is ${sha256}, not the ${valid.recordsSha256} of ${manifestFile}: the file changed after it was written`);
    }
  } catch (error) {
    problems.push(`${recordsFile}: cannot read: ${reason(error)}`);
  }
  let records = 0;
  if (text !== undefined) {
    if (text !== "" && !text.endsWith("\n")) problems.push(`${recordsFile}: the last line has no newline (was the write cut short?)`);
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    const seen = new Map<string, number>();
    let previousId: string | undefined;
    lines.forEach((line, i) => {
      const at = `${recordsFile}:${i + 1}`;
      records++;
      let envelope: Envelope;
      try {
        envelope = JSON.parse(line) as Envelope;
      } catch (error) {
        problems.push(`${at}: invalid JSON: ${reason(error)}`);
        return;
      }
      const checked = validate("envelope.v2", envelope, at);
      if (!checked.ok) {
        problems.push(...checked.errors);
        return;
      }
      const id = envelope.record.id;
      const first = seen.get(id);
      if (first !== undefined) problems.push(`${at} /record/id: duplicate id ${id} (also on line ${first})`);
      else seen.set(id, i + 1);
      if (previousId !== undefined && id < previousId) problems.push(`${at} /record/id: ${id} comes after ${previousId}; records must be sorted by id`);
      previousId = id;
      problems.push(...consistency(envelope, at, valid));
    });
    if (valid !== undefined && valid.counts.records !== records) {
      problems.push(`${manifestFile} /counts/records: says ${valid.counts.records} records; ${recordsFile} has ${records}`);
    }
  }

  if (valid !== undefined) problems.push(...(await checkIndex(path.dirname(dir), indexFile, valid, records)));
  return { problems, records };
}

/** What the schema cannot say about one envelope: its parts agree with each other and the manifest. */
function consistency(e: Envelope, at: string, manifest: Manifest | undefined): string[] {
  const r = e.record;
  const out: string[] = [];
  const first = e.occurrences[0];
  if (first !== undefined && (first.filePath !== r.filePath || first.lineNumber !== r.lineNumber)) {
    out.push(`${at} /occurrences/0: ${first.filePath}:${first.lineNumber} is not the record's own location ${r.filePath}:${r.lineNumber}`);
  }
  const places = new Set<string>();
  e.occurrences.forEach((o, i) => {
    const place = `${o.filePath}:${o.lineNumber}:${o.kind}`;
    if (places.has(place)) out.push(`${at} /occurrences/${i}: ${place} is listed twice`);
    places.add(place);
    if (!o.githubUrl.includes(`/blob/${r.analyzedSha}/`)) out.push(`${at} /occurrences/${i}/githubUrl: does not point at the analysed commit ${r.analyzedSha}`);
  });
  if (r.lineNumber < r.sourceCodeStart || r.lineNumber > r.sourceCodeEnd) out.push(`${at} /record/lineNumber: ${r.lineNumber} is outside the excerpt ${r.sourceCodeStart}..${r.sourceCodeEnd}`);
  if (r.sourceCode.split("\n").length !== r.sourceCodeEnd - r.sourceCodeStart + 1) out.push(`${at} /record/sourceCode: has ${r.sourceCode.split("\n").length} lines; sourceCodeStart..sourceCodeEnd says ${r.sourceCodeEnd - r.sourceCodeStart + 1}`);
  if (!r.githubUrl.includes(`/blob/${r.analyzedSha}/`) || !r.githubUrl.endsWith(`#L${r.sourceCodeStart}-L${r.sourceCodeEnd}`)) out.push(`${at} /record/githubUrl: does not link the excerpt's lines at the analysed commit`);
  if (manifest !== undefined) {
    if (r.repo !== manifest.repo) out.push(`${at} /record/repo: ${r.repo} is not the manifest's ${manifest.repo}`);
    if (r.analyzedSha !== manifest.sha) out.push(`${at} /record/analyzedSha: ${r.analyzedSha} is not the manifest's sha ${manifest.sha}`);
    if (e.datasetVersion !== manifest.datasetVersion) out.push(`${at} /datasetVersion: ${e.datasetVersion} is not the manifest's ${manifest.datasetVersion}`);
  }
  return out;
}

/** The index names the version, agrees with its manifest, and its parent is the previous commit. */
async function checkIndex(repoFolder: string, indexFile: string, manifest: Manifest, records: number): Promise<string[]> {
  const problems: string[] = [];
  const index = await readJson<VersionsIndex>(path.join(repoFolder, "versions.json"), indexFile, problems);
  if (index === undefined) return problems;
  const v = validate("versions", index, indexFile);
  if (!v.ok) return v.errors;
  const at = index.versions.findIndex((e) => e.version === manifest.version);
  const entry = index.versions[at];
  if (entry === undefined) return [`${indexFile}: names no version ${manifest.version} (a folder the index does not name is the leftover of an interrupted run)`];
  const pointer = `${indexFile} /versions/${at}`;
  const expect = (field: string, actual: unknown, wanted: unknown) => {
    if (actual !== wanted) problems.push(`${pointer}/${field}: ${JSON.stringify(actual)} but the manifest says ${JSON.stringify(wanted)}`);
  };
  expect("sha", entry.sha, manifest.sha);
  expect("datasetVersion", entry.datasetVersion, manifest.datasetVersion);
  expect("configHash", entry.configHash, manifest.configHash);
  expect("pipelineVersion", entry.pipelineVersion, manifest.pipelineVersion);
  if (entry.records !== records) problems.push(`${pointer}/records: ${entry.records} but records.jsonl has ${records}`);
  const parent = entry.parent === null ? null : index.versions.find((e) => e.version === entry.parent);
  if (entry.parent !== null && parent === undefined) problems.push(`${pointer}/parent: names ${entry.parent}, which is not in the index`);
  else if ((parent?.sha ?? null) !== manifest.parentSha) problems.push(`${pointer}/parent: ${entry.parent} is at ${parent?.sha ?? null} but the manifest's parentSha is ${manifest.parentSha}`);
  return problems;
}

async function readJson<T>(file: string, label: string, problems: string[]): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    problems.push(`${label}: cannot read: ${reason(error)}`);
    return undefined;
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    problems.push(`${label}: invalid JSON: ${reason(error)}`);
    return undefined;
  }
}

function reason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code === "ENOENT") return "no such file";
  return e.message ?? String(error);
}
