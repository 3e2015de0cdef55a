/**
 * `diff` on the history fixture (see versions.test.ts for what each commit changes): every class
 * once, the markdown a reviewer reads, the JSON against its schema, and `--exit-code`.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { before, describe, test } from "node:test";
import { diffDatasets, hasDifferences, messageSimilarity } from "../pipeline/diff.js";
import { COMPACT_BUDGET, renderMarkdown } from "../pipeline/diff-markdown.js";
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
  test("a summary table first, then each class: the message as text and one short link", () => {
    const md = renderMarkdown(diff);
    const lines = md.split("\n");
    const table = lines.indexOf("| class | records |");
    assert.ok(table > 0 && table < lines.findIndex((l) => l.startsWith("### ")), "the table comes before the sections");
    for (const row of ["| added | 1 |", "| removed | 1 |", "| changed | 1 |", "| moved | 1 |", "| reworded | 1 |", "| unchanged | 1 |"]) assert.ok(lines.includes(row), row);
    const blob = (sha: string, file: string, line: number) => `https://github.com/example/history/blob/${sha}/${file}#L${line}`;
    assert.ok(lines.includes(`- \`The cache directory must be set\` [src/io.rs:13](${blob(SHA2, "src/io.rs", 13)})`), md);
    assert.ok(lines.includes(`- \`Could not open the config file.\` was at [src/io.rs:5](${blob(SHA1, "src/io.rs", 5)})`), md);
    assert.ok(lines.includes(`- \`Dimension is out of bounds for this shape.\` → \`Dimension is out of range for this shape.\` [src/shape.rs:17](${blob(SHA2, "src/shape.rs", 17)})`), md);
    assert.ok(lines.includes(`- \`A shape needs at least one dimension.\` src/shape.rs:5 → [src/shape.rs:9](${blob(SHA2, "src/shape.rs", 9)})`), md);
    for (const line of lines.filter((l) => l.startsWith("- "))) assert.ok(line.split("](").length <= 2, `one link: ${line}`);
    // The move is folded; the changed record is listed under what changed.
    const moved = lines.indexOf("### Moved (1)");
    assert.deepEqual(lines.slice(moved + 2, moved + 4), ["<details>", "<summary>only their location changed</summary>"]);
    assert.ok(lines.some((l) => l.startsWith("| source excerpt") && l.endsWith(" | 1 |")), md);
  });

  test("the message is the record's text, not its pattern: no regex escapes, white space as one space", () => {
    const r = { ...diff.added[0]!, errorMessage: "Shape mismatch:\n  left {}\n  right {}.", messagePattern: "^Shape mismatch:\\n  left .*\\n  right .*\\.$" };
    const md = renderMarkdown({ ...diff, added: [r] });
    assert.ok(md.includes("- `Shape mismatch: left {} right {}.` ["), md);
    assert.ok(!md.includes("\\."), "no escape of the pattern");
  });

  test("changed records are grouped by what changed; those whose message and sites are the same are folded", () => {
    const base = diff.changed[0]!;
    const changed = (id: string, fields: string[]) => ({ ...base, id, new: { ...base.new, id }, fields: fields.map((field) => ({ field, old: "a", new: "b" })) });
    const d: Diff = {
      ...diff,
      changed: [changed("0000000000000001", ["sourceCode"]), changed("0000000000000002", ["errorMessage", "messagePattern", "documentation"]), changed("0000000000000003", ["sourceCode"]), changed("0000000000000004", ["sourceCode", "tags", "solutions"])],
      counts: { ...diff.counts, changed: 4 },
    };
    const lines = renderMarkdown(d).split("\n");
    assert.ok(lines.includes("| the source excerpt only | 2 |"), lines.join("\n"));
    assert.ok(lines.includes("| message, explanation | 1 |"));
    assert.ok(lines.includes("| source excerpt, explanation | 1 |"));
    for (const summary of ["the source excerpt only (2)", "source excerpt, explanation (1)"]) {
      const at = lines.indexOf(`<summary>${summary}</summary>`);
      assert.ok(at > 0 && lines[at - 1] === "<details>", summary);
    }
    assert.ok(lines.includes("**message, explanation** (1)"), "a changed message is not folded");
    assert.ok(lines.some((l) => l.endsWith(": errorMessage `a` → `b`")), "the message's old and new text; not the pattern");
    const compact = renderMarkdown(d, { compact: true });
    assert.ok(compact.includes("| the source excerpt only | 2 |") && !compact.includes("<details>"), "compact: folded groups counted, not listed");
    assert.ok(compact.includes("**message, explanation** (1)"), "compact: a changed message is listed");
  });

  test("--max-entries cuts each list with a count; the compact form fits a pull request comment", () => {
    const long = "The tensor shapes must agree on every axis but the concatenated one; ".repeat(4);
    const many: Diff = { ...diff, added: Array.from({ length: 3000 }, (_, i) => ({ ...diff.added[0]!, errorMessage: `${long}${i}`, id: i.toString(16).padStart(16, "0"), lineNumber: i + 1 })) };
    many.counts = { ...many.counts, added: 3000 };
    const cut = renderMarkdown(many, { maxEntries: 10 });
    assert.ok(cut.includes("### Added (3000)"));
    assert.ok(cut.includes("- … and 2990 more"));
    assert.equal(cut.split("\n").filter((l) => l.includes("The tensor shapes")).length, 10);
    const compact = renderMarkdown(many, { compact: true, maxEntries: 3000 });
    assert.ok(compact.length <= 65_536 && compact.length <= COMPACT_BUDGET, `${compact.length} characters`);
    assert.match(compact, /- … and \d+ more/);
    assert.ok(compact.includes("| added | 3000 |"));
    const small = renderMarkdown(many, { maxBytes: 4000 });
    assert.ok(Buffer.byteLength(small) <= 4000, `${Buffer.byteLength(small)} bytes`);
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
