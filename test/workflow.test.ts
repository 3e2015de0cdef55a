/**
 * The CI workflow cannot run here, so this runs what it runs: the error-catalog commands of its
 * `run:` steps, read from the YAML, in the same order, with bash as GitHub runs them, on a fixture
 * repository with two commits: one CI run per pinned SHA, the second on the first's output.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { packageRoot } from "../pipeline/paths.js";
import { pin } from "../pipeline/pin.js";
import type { VersionsIndex } from "../pipeline/schema-types.generated.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const workflowFile = path.join(packageRoot(), ".github", "workflows", "catalog.yml");

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
}

/**
 * The steps of the workflow's (single) job: `name`, `uses` and `run` of each `- ` item under
 * `steps:`, with `run: |` blocks read to the end of their indentation.
 * Note: enough YAML for this file (plain scalars and `|` blocks), not a YAML parser; the test
 * fails loudly if a step has a `run:` it cannot read.
 */
function readSteps(yaml: string): Step[] {
  const lines = yaml.split("\n");
  const start = lines.findIndex((l) => /^\s+steps:\s*$/.test(l));
  assert.ok(start >= 0, "the workflow has a steps: list");
  const steps: Record<string, string>[] = [];
  let itemIndent = -1;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "" || line.trim().startsWith("#")) continue;
    const indent = line.length - line.trimStart().length;
    const item = /^(\s*)- (.*)$/.exec(line);
    if (item && (itemIndent < 0 || indent === itemIndent)) {
      itemIndent = indent;
      steps.push({});
    } else if (itemIndent >= 0 && indent <= itemIndent) {
      break;
    }
    const atStep = item !== null && indent === itemIndent;
    // Only a step's own keys count (two columns in from its dash), not keys nested under `with:`.
    if (!atStep && indent !== itemIndent + 2) continue;
    const body = atStep ? item[2]! : line.trim();
    const field = /^(name|uses|run):\s*(.*)$/.exec(body);
    if (!field || steps.length === 0) continue;
    const [, key, value] = field as unknown as [string, string, string];
    if (value === "|" || value === "|-") {
      const block: string[] = [];
      let j = i + 1;
      for (; j < lines.length && (lines[j]!.trim() === "" || lines[j]!.length - lines[j]!.trimStart().length > itemIndent + 2); j++) block.push(lines[j]!.trim());
      steps.at(-1)![key] = block.join("\n").trim();
      i = j - 1;
    } else {
      steps.at(-1)![key] = value.replace(/^"(.*)"$/, "$1");
    }
  }
  return steps;
}

const steps = readSteps(readFileSync(workflowFile, "utf8"));
const catalogCommands = steps.flatMap((s) => (s.run !== undefined && s.run.includes("error-catalog") ? [s.run] : []));

describe("the workflow's shape", () => {
  test("readSteps reads plain and block `run:` values and stops at the end of the list", () => {
    const yaml = ["jobs:", "  a:", "    steps:", "      - name: one", "        run: |", "          echo a", "          echo b", "", "      - uses: x/y@v1", "        with:", "          run: not a step", "  b:", "    runs-on: z"].join("\n");
    assert.deepEqual(readSteps(yaml), [{ name: "one", run: "echo a\necho b" }, { uses: "x/y@v1" }]);
  });

  test("triggers on config.json changes and by hand", () => {
    const yaml = readFileSync(workflowFile, "utf8");
    assert.match(yaml, /\n  push:\n    paths:\n(?:      - .*\n)*      - config\.json\n/);
    assert.match(yaml, /\n  pull_request:\n    paths:\n      - config\.json\n/);
    assert.match(yaml, /\n  workflow_dispatch:\n/);
  });

  test("checkout, node 20, npm ci, restore, run, validate, diff to the summary, upload, the site and its Pages artifact — in that order", () => {
    const kinds = steps.map((s) => s.uses?.replace(/@.*$/, "") ?? (s.run?.match(/error-catalog\.js (\w+)/)?.[1] ?? s.run));
    assert.deepEqual(kinds, ["actions/checkout", "actions/setup-node", "npm ci", "actions/cache", "run", "validate", "diff", "actions/upload-artifact", "site", "actions/upload-pages-artifact"]);
    assert.match(catalogCommands[2]!, /--format markdown >> "\$GITHUB_STEP_SUMMARY"$/);
  });
});

describe("the workflow's commands on a fixture repository", () => {
  test("two CI runs, one per pinned SHA: a validated second version with its parent, and its diff in the summary", async () => {
    const history = makeRepo([fixture("history", "1"), fixture("history", "2")]);
    const [SHA1, SHA2] = history.shas as [string, string];
    const work = tempDir("error-catalog-ci-");
    const config = path.join(work, "config.json");
    writeFileSync(config, `${JSON.stringify({ output: "output", cacheDir: "cache", contextLines: 2, includeTestCode: false, targets: [{ repo: "example/history", url: history.dir, sha: SHA1, include: ["**/*.rs"], exclude: [] }] }, null, 2)}\n`);
    const out = path.join(work, "output");
    const site = path.join(work, "site");

    /** One CI run: every error-catalog command of the workflow, in order, as bash runs a step. */
    const ciRun = (label: string): string => {
      const summary = path.join(work, `summary-${label}.md`);
      writeFileSync(summary, "");
      for (const command of catalogCommands) {
        const env = { ...process.env, CI: "true", CATALOG_CONFIG: config, CATALOG_OUT: out, CATALOG_SITE: site, GITHUB_STEP_SUMMARY: summary };
        const r = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", command], { cwd: packageRoot(), env, encoding: "utf8" });
        assert.equal(r.status, 0, `${label}: \`${command}\` failed:\n${r.stderr}`);
      }
      return readFileSync(summary, "utf8");
    };

    const first = ciRun("first");
    assert.match(first, /\| added \| 5 \|/, "the first run has nothing to compare with: all added");

    // The reviewed commit: pin the next SHA; CI restores the previous output and runs again.
    await pin({ configPath: config, ref: "main" });
    assert.equal(JSON.parse(readFileSync(config, "utf8")).targets[0].sha, SHA2);
    const second = ciRun("second");

    const index = JSON.parse(readFileSync(path.join(out, "example", "history", "versions.json"), "utf8")) as VersionsIndex;
    assert.deepEqual(index.versions.map((v) => [v.sha, v.parent]), [
      [SHA1, null],
      [SHA2, index.versions[0]!.version],
    ]);
    assert.ok(second.startsWith("## error-catalog: example/history\n"));
    for (const row of ["| added | 1 |", "| removed | 1 |", "| changed | 1 |", "| moved | 1 |", "| reworded | 1 |", "| unchanged | 1 |"]) assert.ok(second.includes(row), row);
    assert.ok(second.includes(`https://github.com/example/history/blob/${SHA1}/src/shape.rs#L3-L7`));
    assert.ok(second.includes(`https://github.com/example/history/blob/${SHA2}/src/shape.rs#L7-L11`));
    // What the upload step publishes.
    assert.ok(existsSync(path.join(out, "example", "history", index.versions[1]!.version, "records.jsonl")));
    // What the Pages artifact holds: the site of the second version, with the diff from the first.
    assert.match(readFileSync(path.join(site, "index.html"), "utf8"), new RegExp(`${index.versions[1]!.version} <span class="meta">\\(<code>${SHA2.slice(0, 10)}</code>`));
    assert.ok(existsSync(path.join(site, "diffs", `${index.versions[0]!.version}...${index.versions[1]!.version}.html`)));
  });
});
