/**
 * A check of the catalog against a repository's own tests: every `#[should_panic(expected = "…")]`
 * test states a fragment of a message its code panics with, so `match` on that text should list
 * a record. For each such attribute at the commit, the script matches its expected text against a
 * dataset version and prints whether a record matched, how (whole text, error value or fragment),
 * and the first record, for a reader to check against the test.
 *
 * Run: `node dist/scripts/oracle.js --git-dir <repo or mirror> --sha <40 hex> --out <output folder> [--repo owner/name] [--json]`.
 * Exit status: 0 when every expected text finds a record, 1 otherwise, 2 on bad arguments.
 *
 * Note: the tests' texts come from the repository (nobody here wrote them); the tests are read and
 *   matched as the analyze stage reads and matches them for reproductions (symbols/tests.ts), with
 *   the `match` command's own matching.
 */
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { loadVersions } from "../pipeline/commands/match.js";
import { indexFile } from "../pipeline/symbols/file.js";
import { panicTests, recordsExpecting } from "../pipeline/symbols/tests.js";

const { values } = parseArgs({ options: { "git-dir": { type: "string" }, sha: { type: "string" }, out: { type: "string" }, repo: { type: "string" }, json: { type: "boolean", default: false } } });
if (!values["git-dir"] || !values.sha || !values.out) {
  process.stderr.write("usage: node dist/scripts/oracle.js --git-dir <dir> --sha <sha> --out <output folder> [--repo owner/name] [--json]\n");
  process.exit(2);
}
const gitDir = values["git-dir"];
const sha = values.sha;

const git = (args: readonly string[]) => execFileSync("git", ["--git-dir", gitDir, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
const files = git(["grep", "-l", "should_panic", sha, "--", "*.rs"])
  .split("\n")
  .filter((l) => l !== "")
  .map((l) => l.slice(sha.length + 1));
// Note: the tests are read as the pipeline reads them (the symbol index), those with an expected text.
const expectations = files.flatMap((file) => panicTests(file, indexFile(git(["show", `${sha}:${file}`]))).filter((t) => t.expected !== "").map((t) => ({ file, line: t.line, test: t.name, expected: t.expected })));

const { versions, selected } = await loadVersions({ out: values.out, ...(values.repo ? { repo: values.repo } : {}) }, false);
const results = expectations.map((e) => {
  const current = versions.find((v) => v.version === selected);
  const matches = current === undefined ? [] : recordsExpecting(e.expected, current);
  const first = matches[0];
  return { ...e, found: matches.length, how: first?.how ?? null, first: first === undefined ? null : { id: first.id, message: first.record.errorMessage, at: `${first.record.filePath}:${first.record.lineNumber}` } };
});
const found = results.filter((r) => r.found > 0).length;
if (values.json) process.stdout.write(`${JSON.stringify({ total: results.length, found, results }, null, 2)}\n`);
else {
  for (const r of results) process.stdout.write(`${r.found > 0 ? "found" : "MISS "} ${r.how ?? "-"}\t${r.file}:${r.line} ${r.test}\t${JSON.stringify(r.expected).slice(0, 90)}${r.first ? `\t→ ${r.first.at} ${JSON.stringify(r.first.message).slice(0, 70)}` : ""}\n`);
  process.stdout.write(`${found} of ${results.length} expected texts find a record\n`);
}
process.exitCode = found === results.length ? 0 : 1;
