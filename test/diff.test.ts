/**
 * `diff` on the history fixture (see versions.test.ts for what each commit changes): every class
 * once, the markdown a reviewer reads, the JSON against its schema, and `--exit-code`.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { before, describe, test } from "node:test";
import { diffDatasets, hasDifferences, messageSimilarity, renderMarkdown } from "../pipeline/diff.js";
import { packageRoot } from "../pipeline/paths.js";
import { diffVersions } from "../pipeline/commands/diff.js";
import { run } from "../pipeline/run.js";
import type { Diff, Envelope } from "../pipeline/schema-types.generated.js";
import { validate } from "../pipeline/validate.js";
import { readVersion } from "../pipeline/write.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const history = makeRepo([fixture("history", "1"), fixture("history", "2"), fixture("history", "3")]);
const [SHA1, SHA2, SHA3] = history.shas as [string, string, string];
const dir = tempDir("error-catalog-diff-");
const config = path.join(dir, "config.json");
const bin = path.join(packageRoot(), "bin", "error-catalog.js");

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args, "--config", config], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let diff: Diff;
const dirs: string[] = [];

before(async () => {
  writeFileSync(config, JSON.stringify({ output: "out", cacheDir: "cache", contextLines: 2, includeTestCode: false, targets: [{ repo: "example/history", url: history.dir, sha: SHA1, include: ["**/*.rs"], exclude: [] }] }));
  for (const [i, sha] of [SHA1, SHA2, SHA3].entries()) {
    const result = await run({ configPath: config, sha, now: () => new Date(Date.UTC(2026, 1, i + 1)) });
    dirs.push(result.dir);
  }
  diff = await diffVersions({ configPath: config, old: "0001", new: "0002" });
});

describe("diff classes (commit 1 → 2)", () => {
  test("one record per class, each as the fixture's edit says", () => {
    assert.deepEqual(diff.counts, { added: 1, removed: 1, changed: 1, moved: 1, reworded: 1, unchanged: 1 });
    assert.deepEqual(diff.added.map((r) => [r.errorMessage, r.filePath, r.lineNumber]), [["The cache directory must be set", "src/io.rs", 13]]);
    assert.deepEqual(diff.removed.map((r) => [r.errorMessage, r.filePath, r.lineNumber]), [["Could not open the config file.", "src/io.rs", 5]]);
    assert.deepEqual(diff.moved.map((r) => [r.old.errorMessage, r.old.lineNumber, r.new.lineNumber]), [["A shape needs at least one dimension.", 5, 9]]);
    assert.deepEqual(diff.reworded.map((r) => [r.old.errorMessage, r.new.errorMessage, r.old.lineNumber, r.new.lineNumber]), [["Dimension is out of bounds for this shape.", "Dimension is out of range for this shape.", 13, 17]]);
  });

  test("a changed record lists its fields: here the excerpt, old and new text", () => {
    const [changed] = diff.changed;
    assert.ok(changed);
    assert.equal(changed.new.errorMessage, "Reading a listed file must succeed");
    // The excerpt, then whatever the analysis wrote about the renamed variable; never a location field.
    assert.equal(changed.fields[0]!.field, "sourceCode");
    assert.ok(changed.fields.every((f) => !["filePath", "lineNumber", "sourceCodeStart", "sourceCodeEnd", "githubUrl", "analyzedSha", "analyzedAt", "contentChangedAt"].includes(f.field)));
    assert.match(String(changed.fields[0]!.old), /bytes\.expect/);
    assert.match(String(changed.fields[0]!.new), /data\.expect/);
    assert.deepEqual([changed.old.lineNumber, changed.new.lineNumber], [12, 9]);
  });

  test("links go to the old SHA for the old side and the new SHA for the new side", () => {
    const moved = diff.moved[0]!;
    assert.equal(moved.old.githubUrl, `https://github.com/example/history/blob/${SHA1}/src/shape.rs#L3-L7`);
    assert.equal(moved.new.githubUrl, `https://github.com/example/history/blob/${SHA2}/src/shape.rs#L7-L11`);
  });

  test("the JSON validates against schemas/diff.schema.json", () => {
    const result = validate("diff", diff, "diff.json");
    assert.deepEqual(result.ok ? [] : result.errors, []);
  });

  test("a new SHA with the same source is no difference (commit 2 → 3)", async () => {
    const same = await diffVersions({ configPath: config });
    assert.equal(same.new.sha, SHA3);
    assert.deepEqual(same.counts, { added: 0, removed: 0, changed: 0, moved: 0, reworded: 0, unchanged: 5 });
    assert.equal(hasDifferences(same), false);
  });

  test("with one version only, everything in it is added", async () => {
    const first = diffDatasets({ old: null, new: { version: "0001", ...(await readVersion(dirs[0]!)) } });
    assert.deepEqual([first.old.version, first.counts.added, first.new.records], [null, 5, 5]);
  });
});

describe("rewording needs the same place", () => {
  test("a near-identical message elsewhere in the same file is a removal and an addition", async () => {
    const a = await readVersion(dirs[0]!);
    const b = await readVersion(dirs[1]!);
    // Move the reworded record's new side to other code: the excerpts no longer match.
    const elsewhere = b.envelopes.map((e): Envelope => (e.record.errorMessage.startsWith("Dimension") ? { ...e, record: { ...e.record, sourceCode: "fn a() {}\nfn b() {}\n        None => panic!(\"Dimension is out of range for this shape.\"),\nfn c() {}\nfn d() {}" } } : e));
    const d = diffDatasets({ old: { version: "a", ...a }, new: { version: "b", envelopes: elsewhere, manifest: b.manifest } });
    assert.deepEqual([d.counts.reworded, d.counts.added, d.counts.removed], [0, 2, 2]);
  });

  test("message similarity is 1 − edit distance / longer length", () => {
    assert.equal(messageSimilarity("abcd", "abcd"), 1);
    assert.equal(messageSimilarity("abcd", "abxd"), 0.75);
    assert.equal(messageSimilarity("", "abc"), 0);
  });
});

describe("markdown", () => {
  test("a summary table first, then each class with links at both SHAs", () => {
    const md = renderMarkdown(diff);
    const lines = md.split("\n");
    const table = lines.indexOf("| class | records |");
    assert.ok(table > 0 && table < lines.findIndex((l) => l.startsWith("### ")), "the table comes before the sections");
    for (const row of ["| added | 1 |", "| removed | 1 |", "| changed | 1 |", "| moved | 1 |", "| reworded | 1 |", "| unchanged | 1 |"]) assert.ok(lines.includes(row), row);
    const moved = lines.find((l) => l.includes("A shape needs at least one dimension."));
    assert.equal(moved, `- \`A shape needs at least one dimension.\`: [src/shape.rs:5](https://github.com/example/history/blob/${SHA1}/src/shape.rs#L3-L7) → [src/shape.rs:9](https://github.com/example/history/blob/${SHA2}/src/shape.rs#L7-L11)`);
    assert.ok(lines.includes("- `Dimension is out of bounds for this shape.` → `Dimension is out of range for this shape.`: " + `[src/shape.rs:13](https://github.com/example/history/blob/${SHA1}/src/shape.rs#L11-L15) → [src/shape.rs:17](https://github.com/example/history/blob/${SHA2}/src/shape.rs#L15-L19)`));
    // read_all's excerpt: the `let` and `expect` lines differ, and the blank line after the function is new (the file goes on now).
    assert.ok(md.includes("source excerpt (3 of 5 lines new)"));
  });

  test("long lists are cut with a count of what was left out, under the byte budget", () => {
    const many: Diff = { ...diff, added: Array.from({ length: 500 }, (_, i) => ({ ...diff.added[0]!, id: i.toString(16).padStart(16, "0"), lineNumber: i + 1 })) };
    many.counts = { ...many.counts, added: 500 };
    const md = renderMarkdown(many, { maxPerClass: 10 });
    assert.ok(md.includes("### Added (500)"));
    assert.ok(md.includes("- … and 490 more"));
    const small = renderMarkdown(many, { maxBytes: 4000 });
    assert.ok(Buffer.byteLength(small) <= 4000, `${Buffer.byteLength(small)} bytes`);
    assert.match(small, /- … and \d+ more/);
  });
});

describe("error-catalog diff (CLI)", () => {
  test("--exit-code exits 1 on differences and 0 without", () => {
    const differing = cli("diff", "0001", "0002", "--exit-code");
    assert.equal(differing.status, 1, differing.stderr);
    assert.match(differing.stdout, /\| moved \| 1 \|/);
    assert.equal(cli("diff", "--exit-code").status, 0);
    assert.equal(cli("diff", "0001", "0002").status, 0, "without --exit-code differences are not a failure");
  });

  test("--format json prints the diff; an unknown version is exit 2", () => {
    const json = cli("diff", "0001", "0002", "--format", "json");
    assert.equal(json.status, 0);
    assert.deepEqual((JSON.parse(json.stdout) as Diff).counts, diff.counts);
    const missing = cli("diff", "0009");
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /no dataset version 0009/);
  });
});
