/**
 * The newest version of a repository as a run reads it back: what the new version may take from
 * it (timestamps always; excerpts, analyses and whole records when the carry plan says so).
 * Effects: reads the version folder once. Everything it lends has been checked first: its manifest
 * against the schema and the index entry, its records.jsonl against the SHA-256 the manifest
 * recorded when the file was written and validated.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { PipelineError } from "./errors.js";
import type { Envelope, Manifest, VersionEntry } from "./schema-types.generated.js";
import { validate } from "./validate.js";
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
 * a file cannot be read, the manifest is not the entry's or not valid, or records.jsonl is not the
 * file the manifest recorded (edited, truncated or replaced): nothing is taken from such a version.
 */
export async function readPrevious(outDir: string, repo: string, entry: VersionEntry): Promise<PreviousVersion> {
  const dir = path.join(repoDir(outDir, repo), entry.version);
  const damaged = (file: string, what: string) =>
    new PipelineError("E_INPUT", `the previous dataset version ${path.join(dir, file)} ${what}`, {
      hint: `restore the folder ${entry.version} (e.g. from the previous CI artifact), or remove its entry from versions.json; \`error-catalog validate ${dir}\` lists its problems`,
    });
  let files: { manifest: Manifest; records: Buffer };
  try {
    files = await readVersionFiles(dir);
  } catch (error) {
    throw damaged("", `could not be read: ${(error as Error).message}`);
  }
  const checked = validate("manifest", files.manifest, "manifest.json");
  if (!checked.ok) throw damaged("manifest.json", `is not a valid manifest: ${checked.errors[0]}`);
  if (files.manifest.sha !== entry.sha || files.manifest.version !== entry.version) throw damaged("manifest.json", `is not the manifest of ${entry.version} at ${entry.sha}`);
  if (createHash("sha256").update(files.records).digest("hex") !== files.manifest.recordsSha256) throw damaged("records.jsonl", "is not the file its manifest recorded (its SHA-256 differs)");
  let parsed: Map<string, Envelope> | undefined;
  const lines = new Map<Envelope, Buffer>();
  return {
    entry,
    ...files,
    envelopes() {
      parsed ??= new Map(parseRecordLines(files.records).map(({ envelope, line }) => (lines.set(envelope, line), [envelope.record.id, envelope])));
      return parsed;
    },
    lineOf: (envelope) => lines.get(envelope),
  };
}
