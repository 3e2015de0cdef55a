/**
 * Runs at the same time, as processes: into one output and one cache, on an empty cache and on
 * one that has to fetch, at the same SHA and at different ones. Every run finishes (or waits for
 * another), the index lists every version once with its own number, and nothing is left behind.
 * Then the locks themselves: a holder that is killed, one that holds for too long, and what a
 * killed run left in the cache.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { lockFolder } from "../pipeline/lock.js";
import { PipelineError } from "../pipeline/errors.js";
import { packageRoot } from "../pipeline/paths.js";
import { cli, cliProcess, type CliResult } from "./helpers/cli.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const TREES = [fixture("history", "1"), fixture("history", "2"), fixture("history", "3"), fixture("burnlike", "tree")];
/** Four commits; the first two are also those of `early` (same trees, names and dates, so the same SHAs). */
const full = makeRepo(TREES);
const early = makeRepo(TREES.slice(0, 2));
const temps = [full.dir, early.dir];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A folder with config.json (output `out`, cache `cache`) naming the target example/burnlike at `url`. */
function workspace(url: string): { dir: string; config: string; repoOut: string; repos: string } {
  const dir = tempDir("error-catalog-concurrency-");
  temps.push(dir);
  const config = path.join(dir, "config.json");
  writeFileSync(config, `${JSON.stringify({ output: "out", cacheDir: "cache", targets: [{ repo: "example/burnlike", url, sha: full.shas[0] }] }, null, 2)}\n`);
  return { dir, config, repoOut: path.join(dir, "out", "example", "burnlike"), repos: path.join(dir, "cache", "repos") };
}

interface IndexEntry {
  version: string;
  sha: string;
  parent: string | null;
}

function index(repoOut: string): IndexEntry[] {
  return (JSON.parse(readFileSync(path.join(repoOut, "versions.json"), "utf8")) as { versions: IndexEntry[] }).versions;
}

/** Every run exited 0, none with a stack trace. */
function allSucceeded(results: readonly CliResult[]): void {
  for (const r of results) {
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /^\s+at /m, "no stack trace");
  }
}

/**
 * The index names each of `shas` (commits of one line of history, oldest first) once, numbered
 * 0001, 0002, … in order, each folder there, and each version's parent the nearest ancestor among
 * the versions indexed before it: so each run read the index the one before it wrote.
 */
function indexedOnce(repoOut: string, shas: readonly string[]): void {
  const versions = index(repoOut);
  assert.deepEqual([...versions.map((v) => v.sha)].sort(), [...shas].sort(), "every SHA once");
  const age = (sha: string) => shas.indexOf(sha);
  versions.forEach((v, i) => {
    assert.equal(v.version, `${String(i + 1).padStart(4, "0")}-${v.sha.slice(0, 12)}`);
    const ancestors = versions.slice(0, i).filter((w) => age(w.sha) <= age(v.sha));
    const nearest = ancestors.reduce<IndexEntry | null>((best, w) => (best === null || age(w.sha) >= age(best.sha) ? w : best), null);
    assert.equal(v.parent, nearest?.version ?? null, "each run read the index the one before it wrote");
    assert.ok(existsSync(path.join(repoOut, v.version, "records.jsonl")), `${v.version} is there`);
  });
}

/** Nothing a run makes for itself is left: no partial clone, staging folder, temporary file or lock. */
function nothingLeft(...dirs: string[]): void {
  for (const dir of dirs) {
    const left = readdirSync(dir).filter((n) => /\.partial-|^\.staging-|\.tmp-|\.lock/.test(n));
    assert.deepEqual(left, [], `left in ${dir}`);
  }
}

describe("runs at the same time", () => {
  test("four runs at one SHA, empty cache, one output: one clone, one version, the others up to date", async () => {
    const ws = workspace(full.dir);
    const results = await Promise.all([1, 2, 3, 4].map(() => cliProcess(["run", "--config", ws.config])));
    allSucceeded(results);
    assert.equal(results.filter((r) => /: \d+ records from/.test(r.stdout)).length, 1, "one run wrote");
    assert.equal(results.filter((r) => /up to date/.test(r.stdout)).length, 3, "the others found it up to date");
    assert.equal(results.filter((r) => /^cloning /m.test(r.stderr)).length, 1, "one clone");
    indexedOnce(ws.repoOut, [full.shas[0]!]);
    assert.deepEqual(readdirSync(ws.repos), ["example+burnlike.git"]);
    nothingLeft(ws.repoOut, ws.repos);
  });

  test("four runs into four outputs, one empty cache: one clone, which the others wait for and use", async () => {
    // Note: a repository of some megabytes cloned through file://, so that the clone takes long
    //   enough for the runs to meet.
    const tree = tempDir("error-catalog-bulky-");
    temps.push(tree);
    cpSync(fixture("burnlike", "tree"), tree, { recursive: true });
    writeFileSync(path.join(tree, "bulk.bin"), randomBytes(12 << 20));
    const bulky = makeRepo([tree]);
    temps.push(bulky.dir);
    const ws = workspace(pathToFileURL(bulky.dir).href);
    writeFileSync(ws.config, readFileSync(ws.config, "utf8").replace(full.shas[0]!, bulky.shas[0]!));
    const outs = [1, 2, 3, 4].map((i) => path.join(ws.dir, `out-${i}`));
    const results = await Promise.all(outs.map((out) => cliProcess(["run", "--config", ws.config, "--out", out])));
    allSucceeded(results);
    assert.equal(results.filter((r) => /^cloning /m.test(r.stderr)).length, 1, "one clone");
    for (const out of outs) indexedOnce(path.join(out, "example", "burnlike"), [bulky.shas[0]!]);
    assert.deepEqual(readdirSync(ws.repos), ["example+burnlike.git"]);
  });

  test("four runs at four SHAs, empty cache, one output: four versions, numbered in turn", async () => {
    const ws = workspace(full.dir);
    const results = await Promise.all(full.shas.map((sha) => cliProcess(["run", "--config", ws.config, "--sha", sha])));
    allSucceeded(results);
    indexedOnce(ws.repoOut, full.shas);
    assert.equal(cli(["validate", "--config", ws.config]).status, 0);
    nothingLeft(ws.repoOut, ws.repos);
  });

  test("a warm cache that must fetch: runs at commits new to the clone, into one output and into outputs of their own", async () => {
    const ws = workspace(early.dir);
    const first = cli(["run", "--config", ws.config, "--out", path.join(ws.dir, "first")]);
    assert.equal(first.status, 0, first.stderr);
    const shared = await Promise.all(full.shas.map((sha) => cliProcess(["run", "--config", ws.config, "--source", full.dir, "--sha", sha])));
    allSucceeded(shared);
    assert.ok(fetched(shared).length >= 1, "the new commits were fetched");
    indexedOnce(ws.repoOut, full.shas);
    rmSync(ws.repos, { recursive: true });
    assert.equal(cli(["run", "--config", ws.config, "--out", path.join(ws.dir, "second")]).status, 0);
    // Two runs at each of the two commits the clone lacks, each into an output of its own.
    const shas = [full.shas[2]!, full.shas[2]!, full.shas[3]!, full.shas[3]!];
    const own = await Promise.all(shas.map((sha, i) => cliProcess(["run", "--config", ws.config, "--source", full.dir, "--sha", sha, "--out", path.join(ws.dir, `own-${i}`)])));
    allSucceeded(own);
    const fetches = fetched(own);
    assert.ok(fetches.length >= 1);
    assert.deepEqual(fetches, [...new Set(fetches)], "a commit is fetched once: a run that waited for the clone's lock finds what the other fetched");
    shas.forEach((sha, i) => indexedOnce(path.join(ws.dir, `own-${i}`, "example", "burnlike"), [sha]));
    nothingLeft(ws.repoOut, ws.repos);
  });
});

/** The commits the runs fetched (`fetching <12 hex>` lines), in the order of the runs. */
function fetched(results: readonly CliResult[]): string[] {
  return results.flatMap((r) => [...r.stderr.matchAll(/^fetching ([0-9a-f]{12})/gm)].map((m) => m[1]!));
}

/** A process that takes the lock of `dir` (stale after `staleMs`), says "locked", and holds it until it is killed. */
function holder(dir: string, staleMs: number): Promise<{ pid: number; kill: () => Promise<void> }> {
  const script = `import { lockFolder } from ${JSON.stringify(path.join(packageRoot(), "dist", "pipeline", "lock.js"))};
await lockFolder(process.argv[1], "the output folder", { staleMs: ${staleMs} });
process.stdout.write("locked\\n");
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script, dir], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      if (!d.includes("locked")) return;
      const ended = new Promise<void>((done) => child.on("close", () => done()));
      resolve({ pid: child.pid!, kill: () => (child.kill("SIGKILL"), ended) });
    });
  });
}

describe("locks", () => {
  test("the lock of a process killed with SIGKILL is taken over once stale", async () => {
    const dir = path.join(tempDir("error-catalog-lock-"), "out");
    temps.push(path.dirname(dir));
    const held = await holder(dir, 2000);
    await held.kill();
    const started = Date.now();
    const lock = await lockFolder(dir, "the output folder", { staleMs: 2000, waitMs: 20_000 });
    const waited = Date.now() - started;
    const owner = JSON.parse(readFileSync(path.join(dir, ".lock-owner"), "utf8")) as { pid: number };
    assert.equal(owner.pid, process.pid, "this process holds it now");
    await lock.release();
    assert.ok(waited < 10_000, `taken over after ${waited} ms`);
    assert.deepEqual(readdirSync(dir), [], "released: no lock, no owner file");
  });

  test("a run that cannot get the output lock in time says so in one line, exit 3", async () => {
    const ws = workspace(full.dir);
    const held = await holder(ws.repoOut, 10_000);
    try {
      const result = cli(["run", "--config", ws.config], undefined, { ERROR_CATALOG_LOCK_WAIT: "1" });
      assert.equal(result.status, 3, result.stderr);
      const lines = result.stderr.trim().split("\n").filter((l) => l.startsWith("error"));
      assert.equal(lines.length, 1);
      assert.match(lines[0]!, new RegExp(`^error\\[E_LOCK\\]: the output folder ${ws.repoOut.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is locked by process ${held.pid} \\(error-catalog[^)]*\\); gave up after 1 s: try again when it has finished, or set ERROR_CATALOG_LOCK_WAIT=<seconds> to wait longer$`));
      assert.ok(!existsSync(path.join(ws.repoOut, "versions.json")), "nothing written");
    } finally {
      await held.kill();
    }
  });

  test("a lock held within this process is waited for, and the wait gives up with E_LOCK", async () => {
    const dir = path.join(tempDir("error-catalog-lock-"), "clone");
    temps.push(path.dirname(dir));
    const lock = await lockFolder(dir, "the clone", { name: "x.git.lock" });
    await assert.rejects(lockFolder(dir, "the clone", { name: "x.git.lock", waitMs: 300 }), (e: unknown) => e instanceof PipelineError && e.code === "E_LOCK" && !e.message.includes("\n"));
    await lock.release();
    const again = await lockFolder(dir, "the clone", { name: "x.git.lock", waitMs: 300 });
    await again.release();
  });

  test("what a killed run left in the cache (a stale lock, a partial clone) is taken over and removed", async () => {
    const ws = workspace(full.dir);
    // A process that has ended: its id names the leftovers.
    const dead = await endedPid();
    mkdirSync(path.join(ws.repos, "example+burnlike.git.partial-" + dead, "objects"), { recursive: true });
    const lock = path.join(ws.repos, "example+burnlike.git.lock");
    mkdirSync(lock);
    writeFileSync(`${lock}-owner`, JSON.stringify({ pid: dead, host: "h", command: "error-catalog run", since: "2026-01-01T00:00:00.000Z" }));
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    const result = cli(["run", "--config", ws.config]);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(readdirSync(ws.repos), ["example+burnlike.git"]);
  });
});

/** The id of a process that has ended (and been reaped). */
function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", () => resolve(child.pid!));
  });
}
