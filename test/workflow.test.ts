/**
 * The CI workflow and the action cannot run here, so this runs what they run: their steps, read
 * from the YAML, in order, with bash as GitHub runs them (test/helpers/actions.ts), the `uses:`
 * steps played by small stand-ins (the cache a folder the test can empty, artifacts folders, the
 * data branch a bare repository as `origin`), on fixture repositories.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import AjvDraft04Module from "ajv-draft-04";
import addFormatsModule from "ajv-formats";
import { packageRoot } from "../pipeline/paths.js";
import type { VersionsIndex } from "../pipeline/schema-types.generated.js";
import { type Action, type Context, expand, readYaml, runSteps, type UsesHandler, type Workflow } from "./helpers/actions.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const workflow = readYaml<Workflow>(path.join(packageRoot(), ".github", "workflows", "catalog.yml"));
const action = readYaml<Action>(path.join(packageRoot(), "action.yml"));
const Ajv = AjvDraft04Module.default;
const addFormats = addFormatsModule.default;

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/** A checkout of the catalog repository: its config, `origin` the bare repository, the package's bin and scripts linked in. */
function checkout(dir: string, origin: string, config: object): void {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "--quiet", "--initial-branch=main");
  git(dir, "remote", "add", "origin", origin);
  for (const part of ["bin", "scripts"]) symlinkSync(path.join(packageRoot(), part), path.join(dir, part));
  writeFileSync(path.join(dir, "config.json"), `${JSON.stringify(config, null, 2)}\n`);
}

/** The runner's pieces that outlive a job: the cache store and the run's artifacts. */
interface Runner {
  readonly caches: string;
  readonly artifacts: string;
}

/** Copies a folder's contents into another, made if needed. */
function copyInto(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  cpSync(from, to, { recursive: true });
}

/** actions/cache: restores the newest saved entry whose key starts with a restore key, saves under `key` (when it runs to the end). */
function cacheHandler(runner: Runner, cwd: string, saves: (() => void)[]): UsesHandler {
  return (inputs) => {
    const target = path.resolve(cwd, inputs.path!);
    const prefixes = inputs["restore-keys"]!.split("\n").map((k) => k.trim()).filter(Boolean);
    const saved = existsSync(runner.caches) ? readdirSync(runner.caches).filter((k) => prefixes.some((p) => decodeURIComponent(k).startsWith(p))).sort() : [];
    if (saved.length > 0) copyInto(path.join(runner.caches, saved.at(-1)!), target);
    saves.push(() => {
      if (existsSync(target)) copyInto(target, path.join(runner.caches, encodeURIComponent(inputs.key!)));
    });
    return true;
  };
}

/** actions/upload-artifact: a second upload of a name fails unless `overwrite: true`, as on GitHub. */
function uploadHandler(runner: Runner, cwd: string): UsesHandler {
  return (inputs) => {
    const to = path.join(runner.artifacts, inputs.name!);
    if (existsSync(to) && inputs.overwrite !== "true") return false;
    rmSync(to, { recursive: true, force: true });
    copyInto(path.resolve(cwd, inputs.path!), to);
    return true;
  };
}

/** actions/download-artifact with a pattern and merge-multiple. */
function downloadHandler(runner: Runner, cwd: string): UsesHandler {
  return (inputs) => {
    assert.equal(inputs["merge-multiple"], "true");
    const prefix = inputs.pattern!.replace(/\*$/, "");
    for (const name of existsSync(runner.artifacts) ? readdirSync(runner.artifacts) : []) if (name.startsWith(prefix)) copyInto(path.join(runner.artifacts, name), path.resolve(cwd, inputs.path!));
    return true;
  };
}

/** What one workflow run did: each job's summary and whether it failed. */
interface WorkflowRun {
  readonly summaries: Readonly<Record<string, string>>;
  readonly failed: readonly string[];
}

/**
 * One run of the workflow for `event` (`push` to main or `pull_request`): the targets job, one
 * catalog job per target of its output, then the collect job, each on a fresh machine.
 */
function runWorkflow(label: string, runner: Runner, origin: string, config: object, event: "push" | "pull_request"): WorkflowRun {
  const summaries: Record<string, string> = {};
  const failed: string[] = [];
  let machine = 0;
  const job = (name: string, extra: Context) => {
    const root = tempDir(`error-catalog-ci-${label}-${machine++}-`);
    const cwd = path.join(root, "work");
    const temp = path.join(root, "temp");
    mkdirSync(temp);
    const summary = path.join(root, "summary.md");
    writeFileSync(summary, "");
    const saves: (() => void)[] = [];
    const context: Context = {
      "github.event_name": event,
      "github.ref": event === "push" ? "refs/heads/main" : "refs/pull/7/merge",
      "github.event.repository.default_branch": "main",
      "github.sha": "f".repeat(40),
      "github.run_id": "1000",
      "github.run_attempt": "1",
      "runner.temp": temp,
      ...extra,
    };
    // The job's env, as the workflow writes it (the matrix's values filled in).
    const jobEnv = Object.fromEntries(Object.entries(workflow.jobs[name]!.env ?? {}).map(([k, v]) => [k, expand(v, context)]));
    const env = { ...process.env, CI: "true", RUNNER_TEMP: temp, GITHUB_STEP_SUMMARY: summary, ...workflow.env, ...jobEnv };
    const result = runSteps(workflow.jobs[name]!.steps, {
      cwd,
      env,
      context,
      temp,
      skip: (command) => command === "npm ci",
      uses: {
        "actions/checkout": () => (checkout(cwd, origin, config), true),
        "actions/setup-node": (inputs) => (assert.equal(inputs["node-version"], "22"), true),
        "actions/cache": cacheHandler(runner, cwd, saves),
        "actions/upload-artifact": uploadHandler(runner, cwd),
        "actions/download-artifact": downloadHandler(runner, cwd),
        "actions/upload-pages-artifact": (inputs) => (copyInto(path.resolve(cwd, inputs.path!), path.join(runner.artifacts, "github-pages")), true),
      },
    });
    if (!result.failed) saves.forEach((save) => save());
    summaries[`${name}${extra["matrix.target.repo"] ? ` ${extra["matrix.target.repo"]}` : ""}`] = readFileSync(summary, "utf8");
    if (result.failed) failed.push(`${name} ${extra["matrix.target.repo"] ?? ""}`.trim());
    return result;
  };

  const targets = job("targets", {});
  assert.equal(targets.failed, false, JSON.stringify(targets.stderr));
  const list = JSON.parse(targets.outputs.list!.targets!) as { repo: string }[];
  list.forEach((target, index) => {
    job("catalog", { "matrix.target.repo": target.repo, "strategy.job-index": String(index) });
  });
  const collect = job("collect", {});
  assert.equal(collect.failed, false, JSON.stringify(collect.stderr));
  return { summaries, failed };
}

describe("the workflow's shape", () => {
  test("triggers on config.json changes and by hand", () => {
    assert.deepEqual(Object.keys(workflow.on), ["push", "pull_request", "workflow_dispatch"]);
    assert.ok((workflow.on.push as { paths: string[] }).paths.includes("config.json"));
    assert.deepEqual((workflow.on.pull_request as { paths: string[] }).paths, ["config.json"]);
  });

  test("node 22, no install of the benchmark's tools, a matrix from `targets --json`, artifacts that can be uploaded again", () => {
    const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
    for (const s of steps.filter((x) => x.uses?.startsWith("actions/setup-node"))) assert.equal(String(s.with?.["node-version"]), "22");
    for (const s of steps.filter((x) => x.run?.includes("npm "))) assert.equal(s.run, "npm ci");
    assert.ok(!readFileSync(path.join(packageRoot(), "package.json"), "utf8").includes("@ast-grep"), "ast-grep is the benchmark's dependency (bench/package.json)");
    assert.equal(workflow.jobs.catalog!.strategy!.matrix!.target, "${{ fromJSON(needs.targets.outputs.targets) }}");
    assert.equal(workflow.jobs.catalog!.strategy!["fail-fast"], false);
    assert.match(workflow.jobs.targets!.steps.at(-1)!.run!, /targets --config "\$CATALOG_CONFIG" --json/);
    for (const s of steps.filter((x) => x.uses?.startsWith("actions/upload-artifact"))) assert.equal(s.with?.overwrite, true, s.name);
    // The cache holds only the clones and the extraction cache; the history comes from the data branch.
    const cache = steps.find((x) => x.uses?.startsWith("actions/cache"))!;
    assert.equal(cache.with?.path, "${{ env.CATALOG_CACHE }}");
    assert.equal(workflow.jobs.collect!.permissions?.contents, "write");
    assert.equal(workflow.permissions?.contents, "read");
  });
});

describe("the workflow's commands on fixture repositories", () => {
  test("history on the data branch: the cache removed between runs, a new version names its parent; pull requests compare with main's newest; a broken target fails alone", () => {
    const history = makeRepo([fixture("history", "1"), fixture("history", "2"), fixture("history", "3")]);
    const [SHA1, SHA2, SHA3] = history.shas as [string, string, string];
    const burnlike = makeRepo([fixture("burnlike", "tree")]);
    const work = tempDir("error-catalog-ci-");
    const origin = path.join(work, "origin.git");
    execFileSync("git", ["init", "--quiet", "--bare", origin]);
    const runner: Runner = { caches: path.join(work, "caches"), artifacts: path.join(work, "artifacts") };
    const configAt = (sha: string) => ({
      output: "output",
      cacheDir: ".cache/error-catalog",
      contextLines: 2,
      targets: [
        { repo: "example/history", url: history.dir, sha, include: ["**/*.rs"], exclude: [] },
        { repo: "example/broken", url: path.join(work, "missing"), sha: "0".repeat(40) },
        { repo: "example/burnlike", url: burnlike.dir, sha: burnlike.shas[0]! },
      ],
    });
    /** The data branch's file, as a fresh clone would see it. */
    const onBranch = (file: string) => execFileSync("git", ["--git-dir", origin, "show", `catalog-data:${file}`], { encoding: "utf8" });
    const indexOf = (repo: string) => JSON.parse(onBranch(`${repo}/versions.json`)) as VersionsIndex;
    const newArtifacts = () => rmSync(runner.artifacts, { recursive: true, force: true });

    // 1. A push to main: everything is new; the broken target's job fails, the others publish.
    const first = runWorkflow("first", runner, origin, configAt(SHA1), "push");
    assert.deepEqual(first.failed, ["catalog example/broken"]);
    assert.match(first.summaries["catalog example/history"]!, /\| added \| 5 \|/);
    assert.match(first.summaries["catalog example/broken"]!, /\*\*The run failed\*\* \(exit 2\)/);
    assert.match(first.summaries.collect!, /## error-catalog: example\/history[^]*## error-catalog: example\/broken[^]*## error-catalog: example\/burnlike/);
    assert.deepEqual(indexOf("example/history").versions.map((v) => [v.sha, v.parent]), [[SHA1, null]]);
    assert.equal(indexOf("example/burnlike").versions.length, 1);
    const firstRecords = onBranch(`example/history/${indexOf("example/history").versions[0]!.version}/records.jsonl`);

    // 2. The cache is gone (7 days unused); the next pin restores from the data branch alone.
    rmSync(runner.caches, { recursive: true, force: true });
    newArtifacts();
    const second = runWorkflow("second", runner, origin, configAt(SHA2), "push");
    const index = indexOf("example/history");
    assert.deepEqual(index.versions.map((v) => [v.sha, v.parent]), [[SHA1, null], [SHA2, index.versions[0]!.version]]);
    for (const row of ["| added | 1 |", "| removed | 1 |", "| changed | 1 |", "| moved | 1 |", "| reworded | 1 |", "| unchanged | 1 |"]) assert.ok(second.summaries["catalog example/history"]!.includes(row), row);
    assert.match(second.summaries["catalog example/burnlike"]!, /Nothing written: version 0001-/, "a target whose pin did not change says so");
    assert.doesNotMatch(second.summaries["catalog example/burnlike"]!, /\| added \|/);
    // The unchanged record keeps its timestamps: the same analyzedAt as in the first version.
    const unchanged = (records: string) => records.trim().split("\n").map((l) => JSON.parse(l) as { record: { errorMessage: string; analyzedAt: string } }).find((e) => e.record.errorMessage === "The table has exactly four entries.")!;
    const secondRecords = onBranch(`example/history/${index.versions[1]!.version}/records.jsonl`);
    assert.ok(unchanged(firstRecords), "the fixture's unchanged record");
    assert.equal(unchanged(secondRecords).record.analyzedAt, unchanged(firstRecords).record.analyzedAt);
    // What the Pages artifact holds: each target's site of its newest version, with the diff from the version before.
    const pages = path.join(runner.artifacts, "github-pages");
    assert.match(readFileSync(path.join(pages, "example", "history", "index.html"), "utf8"), new RegExp(`${index.versions[1]!.version} <span class="meta">\\(<code>${SHA2.slice(0, 10)}</code>`));
    assert.ok(existsSync(path.join(pages, "example", "history", "diffs", `${index.versions[0]!.version}...${index.versions[1]!.version}.html`)));
    assert.ok(existsSync(path.join(pages, "example", "burnlike", "index.html")));
    assert.ok(!existsSync(path.join(pages, "example", "broken")), "a target with no version has no site");

    // 3. A pull request pins SHA3, twice: each run compares with main's newest (0002), never with its own earlier run, and publishes nothing.
    const tip = execFileSync("git", ["--git-dir", origin, "rev-parse", "catalog-data"], { encoding: "utf8" }).trim();
    for (const label of ["pr-1", "pr-2"]) {
      newArtifacts();
      const pr = runWorkflow(label, runner, origin, configAt(SHA3), "pull_request");
      assert.match(pr.summaries["catalog example/history"]!, new RegExp(`^## error-catalog: example/history\\n\\n${index.versions[1]!.version} \\(\`${SHA2.slice(0, 12)}\`\\) → 0003-${SHA3.slice(0, 12)} `), label);
      assert.equal(execFileSync("git", ["--git-dir", origin, "rev-parse", "catalog-data"], { encoding: "utf8" }).trim(), tip, `${label} publishes nothing`);
    }
  });

  test("a re-run uploads its artifacts again (overwrite), as GitHub allows only with overwrite", () => {
    const runner: Runner = { caches: tempDir(), artifacts: tempDir() };
    const folder = tempDir();
    writeFileSync(path.join(folder, "a.txt"), "a");
    const upload = uploadHandler(runner, folder);
    assert.equal(upload({ name: "x", path: folder, overwrite: "true" }, {}), true);
    assert.equal(upload({ name: "x", path: folder, overwrite: "true" }, {}), true);
    assert.equal(upload({ name: "x", path: folder }, {}), false, "the stand-in refuses a second upload without overwrite");
  });
});

describe("the action's commands on a fixture repository", () => {
  /** Runs the action's steps for a pull request from `base` to `head` of `repo`, with `inputs` over the defaults. */
  const runAction = (repo: { dir: string }, base: string, head: string, inputs: Record<string, string>) => {
    const root = tempDir("error-catalog-action-");
    const workspace = path.join(root, "workspace");
    execFileSync("git", ["clone", "--quiet", repo.dir, workspace]);
    const temp = path.join(root, "temp");
    mkdirSync(temp);
    const summary = path.join(root, "summary.md");
    writeFileSync(summary, "");
    const merged = { ...Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, v.default ?? ""])), ...inputs };
    const sarifUploads: string[] = [];
    const ghCalls = path.join(root, "gh-calls");
    // A stand-in `gh` on PATH: records its arguments; lists one earlier comment when asked to.
    const bin = path.join(root, "bin");
    mkdirSync(bin);
    writeFileSync(path.join(bin, "gh"), `#!/usr/bin/env bash\necho "$*" >> "${ghCalls}"\nif [[ "$*" == *"--paginate"* && -n "$GH_EXISTING" ]]; then echo "$GH_EXISTING"; fi\n`, { mode: 0o755 });
    const context: Context = {
      ...Object.fromEntries(Object.entries(merged).map(([k, v]) => [`inputs.${k}`, v])),
      "github.token": "token",
      "github.sha": head,
      "github.event.pull_request.base.sha": base,
      "github.event.pull_request.head.sha": head,
      "github.event.pull_request.number": "7",
      "steps.configure.outputs.dir": path.join(temp, "error-catalog"),
    };
    const result = runSteps(action.runs.steps, {
      cwd: workspace,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, CI: "true", RUNNER_TEMP: temp, GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: workspace, GITHUB_ACTION_PATH: packageRoot(), GITHUB_REPOSITORY: "example/history", GH_EXISTING: inputs.existingComment ?? "" },
      context,
      temp,
      skip: (command) => command.startsWith("npm ci --prefix"),
      uses: {
        "actions/setup-node": (i) => (assert.equal(i["node-version"], "22"), true),
        "github/codeql-action/upload-sarif": (i) => (sarifUploads.push(i.sarif_file!), true),
      },
    });
    return { result, summary: readFileSync(summary, "utf8"), sarifUploads, gh: existsSync(ghCalls) ? readFileSync(ghCalls, "utf8").trim().split("\n") : [] };
  };

  const history = makeRepo([fixture("history", "1"), fixture("history", "2"), fixture("history", "3")]);
  const [SHA1, SHA2, SHA3] = history.shas as [string, string, string];

  test("base and head cataloged, the diff in the summary, valid SARIF of the added panic uploaded, --fail-on added fails the check", () => {
    const { result, summary, sarifUploads } = runAction(history, SHA1, SHA2, { "fail-on": "added" });
    assert.equal(result.outcomes["fail-on"], "failure", "the last step, fail-on, fails: the pull request adds a panic");
    assert.ok(Object.entries(result.outcomes).filter(([k]) => k !== "fail-on").every(([, o]) => o !== "failure"), JSON.stringify(result.stderr));
    assert.match(summary, new RegExp(`^## error-catalog: example/history\\n\\n0001-${SHA1.slice(0, 12)} \\(\`${SHA1.slice(0, 12)}\`\\) → 0002-${SHA2.slice(0, 12)}`));
    assert.ok(summary.includes("| added | 1 |"));
    assert.ok(summary.includes("- `The cache directory must be set` [src/io.rs:13]"));
    assert.equal(sarifUploads.length, 1);
    const log = JSON.parse(readFileSync(sarifUploads[0]!, "utf8")) as { runs: { results: { locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[] }[] }[] };
    const ajv = new Ajv({ strict: false, unicodeRegExp: false });
    addFormats(ajv);
    assert.ok(ajv.validate(JSON.parse(readFileSync(path.join(packageRoot(), "schemas", "vendor", "sarif-2.1.0-rtm.5.json"), "utf8")) as object, log), JSON.stringify(ajv.errors));
    assert.deepEqual(log.runs[0]!.results.map((r) => [r.locations[0]!.physicalLocation.artifactLocation.uri, r.locations[0]!.physicalLocation.region.startLine]), [["src/io.rs", 13]]);
  });

  test("a pull request that adds nothing passes --fail-on added; the comment is posted once, then updated in place", () => {
    const posted = runAction(history, SHA2, SHA3, { "fail-on": "added", comment: "true" });
    assert.equal(posted.result.failed, false, JSON.stringify(posted.result.stderr));
    assert.ok(posted.summary.includes("| added | 0 |"));
    assert.equal(posted.gh.length, 2);
    assert.match(posted.gh[1]!, /^api --method POST repos\/example\/history\/issues\/7\/comments -F body=@/);
    const updated = runAction(history, SHA2, SHA3, { comment: "true", existingComment: "4242" });
    assert.match(updated.gh[1]!, /^api --method PATCH repos\/example\/history\/issues\/comments\/4242 -F body=@/);
  });
});
