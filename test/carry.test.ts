/**
 * carry.ts: a version in which no record changed, from the previous version's bytes (when
 * records count as unchanged: test/versions.test.ts).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import { rebasedRecords } from "../pipeline/carry.js";
import type { Manifest } from "../pipeline/schema-types.generated.js";

const S1 = "1".repeat(40);
const S2 = "2".repeat(40);
const T1 = "2026-02-01T10:00:00.000Z";
const T2 = "2026-02-02T10:00:00.000Z";

/** records.jsonl text at `sha` and `time`: one line per id, with `occurrences` links each, and `extra` in each message. */
function recordsText(sha: string, time: string, ids: readonly string[], occurrences: number, extra = ""): string {
  return ids
    .map((id) => {
      const links = Array.from({ length: occurrences }, (_, k) => `{"filePath":"src/é.rs","lineNumber":${k + 2},"githubUrl":"https://github.com/o/r/blob/${sha}/src/%C3%A9.rs#L${k + 2}"}`);
      return `{"record":{"id":"${id}","errorMessage":"ünïcode ${id}${extra}","githubUrl":"https://github.com/o/r/blob/${sha}/src/%C3%A9.rs#L1-L9","analyzedSha":"${sha}"},"occurrences":[${links.join(",")}],"datasetVersion":"${time}","facts":{}}\n`;
    })
    .join("");
}

function manifestOf(text: string, sha = S1, time = T1): Manifest {
  return { sha, datasetVersion: time, recordsSha256: createHash("sha256").update(text).digest("hex") } as Manifest;
}

describe("rebasedRecords", () => {
  test("replaces the commit and the dataset version, and nothing else", () => {
    const before = recordsText(S1, T1, ["a", "b", "c"], 2);
    const after = rebasedRecords(Buffer.from(before), manifestOf(before), 3, 6, { sha: S2, datasetVersion: T2 });
    assert.ok(after !== null);
    assert.equal(after.toString("utf8"), recordsText(S2, T2, ["a", "b", "c"], 2));
    // The bytes given are left as they were.
    assert.equal(rebasedRecords(Buffer.from(before), manifestOf(before), 3, 6, { sha: S1, datasetVersion: T1 })?.toString("utf8"), before);
  });

  test("a file of thousands of records", () => {
    const ids = Array.from({ length: 6000 }, (_, i) => i.toString(16).padStart(16, "0"));
    const before = recordsText(S1, T1, ids, 3);
    const bytes = Buffer.from(before);
    const after = rebasedRecords(bytes, manifestOf(before), ids.length, 3 * ids.length, { sha: S2, datasetVersion: T2 });
    assert.equal(after?.toString("utf8"), recordsText(S2, T2, ids, 3));
    assert.equal(bytes.toString("utf8"), before);
  });

  test("gives null when the bytes are not the ones the manifest recorded, or it recorded none", () => {
    const before = recordsText(S1, T1, ["a", "b"], 1);
    const other = recordsText(S1, T1, ["a", "c"], 1);
    assert.equal(rebasedRecords(Buffer.from(other), manifestOf(before), 2, 2, { sha: S2, datasetVersion: T2 }), null);
    const { recordsSha256: _, ...unhashed } = manifestOf(before);
    assert.equal(rebasedRecords(Buffer.from(before), unhashed as Manifest, 2, 2, { sha: S2, datasetVersion: T2 }), null);
  });

  test("gives null when the commit stands anywhere else than the records put it, or the counts are not the records'", () => {
    // A message that quotes the previous commit: replacing it would change what the record says.
    const quoting = recordsText(S1, T1, ["a", "b"], 1, ` (seen at ${S1})`);
    assert.equal(rebasedRecords(Buffer.from(quoting), manifestOf(quoting), 2, 2, { sha: S2, datasetVersion: T2 }), null);
    const before = recordsText(S1, T1, ["a", "b"], 1);
    assert.equal(rebasedRecords(Buffer.from(before), manifestOf(before), 2, 3, { sha: S2, datasetVersion: T2 }), null, "one occurrence more than the file has");
    assert.equal(rebasedRecords(Buffer.from(before), manifestOf(before), 3, 0, { sha: S2, datasetVersion: T2 }), null, "as many links, but not as many records");
    assert.equal(rebasedRecords(Buffer.from(before), manifestOf(before, S1, T2), 2, 2, { sha: S2, datasetVersion: T2 }), null, "a dataset version the lines do not hold");
    assert.equal(rebasedRecords(Buffer.from(before), manifestOf(before), 2, 2, { sha: S2, datasetVersion: "+012026-02-02T10:00:00.000Z" }), null, "a time of another length");
  });
});
