/**
 * carry.ts: records taken from the previous version as bytes, the commit's values written again
 * (when records count as unchanged: test/versions.test.ts).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { commitMarks } from "../pipeline/build.js";
import { rebasable, rebased } from "../pipeline/carry.js";

const S1 = "1".repeat(40);
const S2 = "2".repeat(40);
const T1 = "2026-02-01T10:00:00.000Z";
const T2 = "2026-02-02T10:00:00.000Z";

/** records.jsonl text at `sha` and `time`: one line per id, with `occurrences` links each, and `extra` in each message. */
function recordsText(sha: string, time: string, ids: readonly string[], occurrences: number, extra = ""): string {
  return ids
    .map((id) => {
      const links = Array.from({ length: occurrences }, (_, k) => `{"filePath":"src/é.rs","lineNumber":${k + 2},"githubUrl":"https://github.com/o/r/blob/${sha}/src/%C3%A9.rs#L${k + 2}"}`);
      return `{"record":{"id":"${id}","errorMessage":"ünïcode ${id}${extra}","githubUrl":"https://github.com/o/r/blob/${sha}/src/%C3%A9.rs#L1-L9","analyzedSha":"${sha}","analyzedAt":"${T1}"},"occurrences":[${links.join(",")}],"datasetVersion":"${time}","facts":{}}\n`;
    })
    .join("");
}

describe("rebased", () => {
  test("replaces the commit and the dataset version, and nothing else", () => {
    const before = Buffer.from(recordsText(S1, T1, ["a", "b", "c"], 2));
    assert.ok(rebasable(before, S1));
    const after = rebased(before, { sha: S1, datasetVersion: T1 }, { sha: S2, datasetVersion: T2 });
    // analyzedAt keeps T1: only `datasetVersion` is the version's time.
    assert.equal(after.toString("utf8"), recordsText(S2, T2, ["a", "b", "c"], 2));
    assert.equal(before.toString("utf8"), recordsText(S1, T1, ["a", "b", "c"], 2), "the bytes given are left as they were");
  });

  test("a file of thousands of records", () => {
    const ids = Array.from({ length: 6000 }, (_, i) => i.toString(16).padStart(16, "0"));
    const after = rebased(Buffer.from(recordsText(S1, T1, ids, 3)), { sha: S1, datasetVersion: T1 }, { sha: S2, datasetVersion: T2 });
    assert.equal(after.toString("utf8"), recordsText(S2, T2, ids, 3));
  });

  test("a dataset version of another length is written whole", () => {
    const later = "+012026-02-02T10:00:00.000Z";
    const after = rebased(Buffer.from(recordsText(S1, T1, ["a"], 1)), { sha: S1, datasetVersion: T1 }, { sha: S2, datasetVersion: later });
    assert.equal(after.toString("utf8"), recordsText(S2, later, ["a"], 1));
  });
});

describe("rebasable", () => {
  test("false when the commit stands anywhere else than a link or analyzedSha", () => {
    // A message that quotes the previous commit: replacing it would change what the record says.
    assert.equal(rebasable(Buffer.from(recordsText(S1, T1, ["a", "b"], 1, ` (seen at ${S1})`)), S1), false);
    // A field of its own holding the commit (as a future one might): not rewritten.
    const withField = recordsText(S1, T1, ["a"], 1).replace(`"facts":{}`, `"facts":{"seenAt":"${S1}"}`);
    assert.equal(rebasable(Buffer.from(withField), S1), false);
    assert.equal(rebasable(Buffer.from(recordsText(S1, T1, ["a", "b"], 2)), S1), true);
  });

  test("the marks are what build writes", () => {
    // Hand-written: a permalink's path segment and the analyzedSha field, as JSON.stringify prints them.
    assert.deepEqual(commitMarks(S1), [`/blob/${S1}/`, `"analyzedSha":"${S1}"`]);
  });
});
