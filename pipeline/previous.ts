/**
 * The newest version of a repository as a run reads it back: what the new version may take from
 * it (timestamps always; excerpts, analyses and whole records when the carry plan says so).
 * Effects: reads the version folder once. Everything it lends has been checked first: its manifest
 * against the schema and the index entry, its records.jsonl against the SHA-256 the manifest
 * recorded when the file was written and validated.
 */
import path from "node:path";
import { PipelineError } from "./errors.js";
import type { Envelope, Manifest, VersionEntry } from "./schema-types.generated.js";
import { parseRecordLines, readVersionFiles, repoDir } from "./write.js";

/** A previous version whose files passed their checks. */
export interface PreviousVersion {
  readonly entry: VersionEntry;
  readonly manifest: Manifest;
  /** Its records.jsonl as bytes, as the manifest's `recordsSha256` says they were written. */
  readonly records: Buffer;
  /** Its envelopes by record id, parsed when first asked for (a version carried whole never asks). */
  envelopes(): ReadonlyMap<string, Envelope>;
  /** The line of records.jsonl of an envelope `envelopes()` gave (its bytes, without the line break). */
  lineOf(envelope: Envelope): Buffer | undefined;
}

/**
 * Reads and checks the version `entry` names. Throws E_INPUT, naming the file and what to do, when
 * a file is missing or damaged (write.ts `readVersionFiles`), the manifest is not the entry's or
 * records no SHA-256, or records.jsonl is not the file the manifest recorded (edited, truncated or
 * replaced): nothing is taken from such a version.
 */
export async function readPrevious(outDir: string, repo: string, entry: VersionEntry): Promise<PreviousVersion> {
  const dir = path.join(repoDir(outDir, repo), entry.version);
  // Note: the reader checks the manifest against the schema and the records against its SHA-256, and names the remedy.
  const files = await readVersionFiles(dir);
  const damaged = (what: string) =>
    new PipelineError("E_INPUT", `the previous dataset version ${path.join(dir, "manifest.json")} ${what}`, {
      hint: `restore the folder ${entry.version} (e.g. from the previous CI artifact), or remove its entry from versions.json`,
    });
  if (files.manifest.sha !== entry.sha || files.manifest.version !== entry.version) throw damaged(`is not the manifest of ${entry.version} at ${entry.sha}`);
  if (files.manifest.recordsSha256 === undefined) throw damaged("records no SHA-256 of its records.jsonl (an older error-catalog wrote it), so nothing in it can be checked");
  let parsed: Map<string, Envelope> | undefined;
  const lines = new Map<Envelope, Buffer>();
  return {
    entry,
    ...files,
    envelopes() {
      parsed ??= new Map(parseRecordLines(files.records, path.join(dir, "records.jsonl")).map(({ envelope, line }) => (lines.set(envelope, line), [envelope.record.id, envelope])));
      return parsed;
    },
    lineOf: (envelope) => lines.get(envelope),
  };
}
