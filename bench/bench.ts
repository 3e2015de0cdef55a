/**
 * The benchmark: `npm run bench -- --source <git dir> --sha <sha> [--parent-sha <sha>] [--runs N]
 * [--history N] [--sizes 1,2,4,8] [--threads N] [--skip-growth] [--records-per-file 1000,4000,16000]`
 * (`--threads`: passed to every run; default the CLI's). With `--records-per-file` and no
 * `--source`, only that case runs.
 *
 * Cases, taking turns (full, ast-grep, bump, then again) for a warm-up round and N measured
 * rounds, reported as medians:
 * - full: the whole pipeline at a SHA already in the clone cache, extraction cache empty;
 * - ast-grep: `ast-grep scan` for panic!/unreachable!/todo!/unimplemented! on a checkout of the same tree;
 * - bump: a run at SHA when the parent's version and extraction cache exist;
 * - history: the same for each of the N first-parent commits before SHA, from its own parent
 *   (bumps that change library code, so parse);
 * - growth: synthetic repositories of the source tree's .rs files times 1, 2, 4, 8;
 * - records per file: synthetic repositories of N functions, each raising a panic of its own,
 *   in one file, and the same N functions over N / 100 files (what a file's size costs beyond
 *   its records).
 * Every pipeline run is a child process (`bench/child.js`) running the bundled CLI, which reports
 * its wall time and peak RSS. The CPU time of each run and of ast-grep (user and system, all
 * threads and child processes) is what the kernel counts for the benchmark's waited-for children.
 */
import { execFileSync, type SpawnSyncReturns, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { packageRoot } from "../pipeline/paths.js";
import type { ChildReport } from "./child.js";

const { values } = parseArgs({
  options: {
    source: { type: "string" },
    sha: { type: "string" },
    "parent-sha": { type: "string" },
    runs: { type: "string", default: "5" },
    sizes: { type: "string", default: "1,2,4,8" },
    threads: { type: "string" },
    history: { type: "string", default: "0" },
    "skip-growth": { type: "boolean", default: false },
    "records-per-file": { type: "string" },
  },
});
if ((!values.source || !values.sha) && values["records-per-file"] === undefined) {
  process.stderr.write("usage: npm run bench -- --source <git dir> --sha <sha> [--parent-sha <sha>] [--runs N] [--history N] [--sizes 1,2,4,8] [--threads N] [--skip-growth] [--records-per-file 1000,4000,16000]\n");
  process.exit(2);
}
const runs = Number(values.runs);
const work = mkdtempSync(path.join(tmpdir(), "error-catalog-bench-"));
// Note: the work folder goes however the benchmark ends (a failed run throws).
process.once("exit", () => rmSync(work, { recursive: true, force: true }));
const child = path.join(packageRoot(), "dist", "bench", "child.js");

/** A config in `dir` for one target at `at`, with the clone cache shared through a link. */
function setUp(dir: string, url: string, sharedRepos: string, at: string): string {
  mkdirSync(path.join(dir, "cache"), { recursive: true });
  if (existsSync(sharedRepos)) symlinkSync(sharedRepos, path.join(dir, "cache", "repos"));
  const config = path.join(dir, "config.json");
  writeFileSync(config, JSON.stringify({ output: "out", cacheDir: "cache", targets: [{ repo: "bench/target", url, sha: at }] }));
  return config;
}

/** Clock ticks per second, the unit of `/proc`'s CPU times; null where there is no `getconf`. */
const clockTicks = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || null;
  } catch {
    return null;
  }
})();

/**
 * CPU time (user and system, ms) of the children this process has waited for: each one's threads
 * and the children it waited for in turn (a run's git processes). Null without `/proc`.
 */
function childrenCpuMs(): number | null {
  if (clockTicks === null) return null;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // Note: the fields after the command's closing parenthesis start at the state, field 3; cutime and cstime are fields 16 and 17.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / clockTicks;
  } catch {
    return null;
  }
}

/** Runs `command` and waits for it; its wall time and, where the system tells, its CPU time. */
function timed(command: string, args: readonly string[], maxBuffer: number): { out: SpawnSyncReturns<string>; wallMs: number; cpuMs: number | null } {
  const cpu = childrenCpuMs();
  const t = performance.now();
  const out = spawnSync(command, args, { encoding: "utf8", maxBuffer });
  const wallMs = performance.now() - t;
  const after = childrenCpuMs();
  return { out, wallMs, cpuMs: cpu === null || after === null ? null : after - cpu };
}

/** A run's report, with its CPU time (null where the system does not tell it). */
type RunReport = ChildReport & { readonly cpuMs: number | null };

/** One pipeline run in a child process. */
function pipeline(config: string, runSha: string, url: string): RunReport {
  const { out, wallMs, cpuMs } = timed(process.execPath, [child, config, runSha, url, ...(values.threads ? [values.threads] : [])], 1 << 24);
  if (out.status !== 0) throw new Error(`pipeline run failed:\n${out.stderr}`);
  // Note: the wall time is the whole process, start-up included, as for ast-grep.
  return { ...(JSON.parse(out.stdout.trim().split("\n").at(-1)!) as ChildReport), wallMs, cpuMs };
}

/** The run whose wall time is the median (the lower one of an even count). */
function medianRun(reports: readonly RunReport[]): RunReport {
  return [...reports].sort((a, b) => a.wallMs - b.wallMs)[Math.floor(reports.length / 2)]!;
}

/** One run of `url` at `runSha` on a copy of the folder `base` (a version and cache already there), removed after. */
function runFrom(base: string, copy: string, runSha: string, url: string): RunReport {
  cpSync(base, copy, { recursive: true, verbatimSymlinks: true });
  const report = pipeline(path.join(copy, "config.json"), runSha, url);
  rmSync(copy, { recursive: true, force: true });
  return report;
}

/**
 * A bare repository at `repo` of one commit holding `files` (path and text), made with
 * `git fast-import`; returns the commit's SHA.
 */
function syntheticRepo(repo: string, files: Iterable<readonly [string, Buffer]>): string {
  execFileSync("git", ["init", "--quiet", "--bare", repo]);
  const chunks: Buffer[] = [Buffer.from("commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 6\ngrowth\n")];
  for (const [p, body] of files) chunks.push(Buffer.from(`M 100644 inline ${p}\ndata ${body.length}\n`), body, Buffer.from("\n"));
  execFileSync("git", ["--git-dir", repo, "fast-import", "--quiet"], { input: Buffer.concat(chunks), maxBuffer: 1 << 26 });
  return execFileSync("git", ["--git-dir", repo, "rev-parse", "main"], { encoding: "utf8" }).trim();
}

/**
 * The median of `count` full runs of the repository `repo` at `at`, after one that fills the
 * clone cache the others share (`name`: the folders' name in the work folder).
 */
function fullRuns(name: string, repo: string, at: string, count: number): RunReport {
  const reports: RunReport[] = [];
  const repos = path.join(work, `${name}-repos`);
  for (let i = 0; i <= count; i++) {
    const dir = path.join(work, `${name}-${i}`);
    const report = pipeline(setUp(dir, repo, repos, at), at, repo);
    if (i === 0) cpSync(path.join(dir, "cache", "repos"), repos, { recursive: true });
    else reports.push(report);
    rmSync(dir, { recursive: true, force: true });
  }
  rmSync(repos, { recursive: true, force: true });
  return medianRun(reports);
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
/** The median CPU time of runs, or null when the system did not tell it. */
const medianCpu = (times: readonly (number | null)[]): number | null => (times.every((c) => c !== null) ? median(times as number[]) : null);
const fmtCpu = (ms: number | null) => (ms === null ? "n/a" : fmt(ms));
const mib = (kb: number) => `${(kb / 1024).toFixed(0)} MiB`;
const heading = `error-catalog benchmark — ${new Date().toISOString().slice(0, 10)}, ${availableParallelism()} cores (${cpus()[0]?.model ?? "unknown cpu"}), node ${process.version}`;

/** The cases on the source tree at `sha` (full, ast-grep, bump, history, growth): the report's lines. */
function sourceCases(source: string, sha: string): string[] {
  // Warm the clone cache once: later runs never touch the network or the source.
  const sharedRepos = path.join(work, "shared-repos");
  {
    const dir = path.join(work, "warm");
    const config = setUp(dir, source, sharedRepos, sha);
    pipeline(config, sha, source);
    cpSync(path.join(dir, "cache", "repos"), sharedRepos, { recursive: true });
  }

  // The setups: a checkout of the tree for ast-grep, and for the bump the parent's version and cache.
  const checkout = path.join(work, "checkout");
  mkdirSync(checkout);
  execFileSync("sh", ["-c", `git --git-dir "${source}" archive ${sha} | tar -x -C "${checkout}"`]);
  const rule = path.join(work, "panic.yml");
  writeFileSync(rule, ["id: panic-macros", "language: rust", "rule:", "  any:", ...["panic", "unreachable", "todo", "unimplemented"].map((m) => `    - pattern: ${m}!($$$)`), ""].join("\n"));
  // Note: ast-grep is the benchmark's own dependency (bench/package.json), not the pipeline's.
  const benchModules = path.join(packageRoot(), "bench", "node_modules");
  const astGrep = [path.join(benchModules, "@ast-grep", `cli-${process.platform}-${process.arch}-gnu`, "ast-grep"), path.join(benchModules, ".bin", "ast-grep")].find(existsSync);
  if (astGrep === undefined) throw new Error(`ast-grep is not installed in ${benchModules}: run \`npm ci --prefix bench\` first`);
  const bumpBase = path.join(work, "bump-base");
  if (values["parent-sha"]) pipeline(setUp(bumpBase, source, sharedRepos, sha), values["parent-sha"], source);

  // Note: the cases take turns, run after run, so that the machine's drift over the minutes of the
  //   benchmark weighs on all of them alike and the ratios compare like with like.
  const full: RunReport[] = [];
  const astTimes: number[] = [];
  const astCpu: (number | null)[] = [];
  let astMatches = 0;
  const bump: RunReport[] = [];
  for (let i = 0; i <= runs; i++) {
    // Full run: clone cached, extraction cache empty, fresh output.
    const fullDir = path.join(work, `full-${i}`);
    const report = pipeline(setUp(fullDir, source, sharedRepos, sha), sha, source);
    if (i > 0) full.push(report);
    rmSync(fullDir, { recursive: true, force: true });

    // ast-grep on a checkout of the same tree.
    const { out, wallMs, cpuMs } = timed(astGrep, ["scan", "--rule", rule, "--json=stream", checkout], 1 << 28);
    if (out.status !== 0) throw new Error(`ast-grep failed: ${out.stderr}`);
    astMatches = out.stdout.split("\n").filter((l) => l.trim() !== "").length;
    if (i > 0) {
      astTimes.push(wallMs);
      astCpu.push(cpuMs);
    }

    // SHA bump: the parent's version and extraction cache exist.
    if (values["parent-sha"]) {
      const bumped = runFrom(bumpBase, path.join(work, `bump-${i}`), sha, source);
      if (i > 0) bump.push(bumped);
    }
  }
  const ourMacroSites = (["panic", "unreachable", "todo", "unimplemented"] as const).reduce((n, k) => n + (full[0]!.sitesByKind[k] ?? 0), 0);

  // History: bumps to the commits before SHA, each from its own parent (at most 5 runs each).
  const history: { commit: string; changed: number; report: RunReport }[] = [];
  const git = (...args: string[]) => execFileSync("git", ["--git-dir", source, ...args], { encoding: "utf8", maxBuffer: 1 << 26 }).trim();
  if (Number(values.history) > 0) {
    for (const commit of git("rev-list", "--first-parent", `--max-count=${Number(values.history)}`, `${sha}~1`).split("\n")) {
      const parent = git("rev-parse", `${commit}~1`);
      const changed = git("diff", "--name-only", parent, commit, "--", "*.rs").split("\n").filter((l) => l !== "").length;
      const base = path.join(work, `history-${commit}`);
      pipeline(setUp(base, source, sharedRepos, sha), parent, source);
      const reports: RunReport[] = [];
      for (let i = 0; i <= Math.min(runs, 5); i++) {
        const report = runFrom(base, path.join(work, `history-${commit}-${i}`), commit, source);
        if (i > 0) reports.push(report);
      }
      history.push({ commit, changed, report: medianRun(reports) });
    }
  }

  // Growth: the source tree's .rs files, k times over (each copy's blobs made distinct), one commit.
  const growth: { size: number; mb: number; report: RunReport }[] = [];
  if (!values["skip-growth"]) {
    const files = execFileSync("git", ["--git-dir", source, "ls-tree", "-r", "-z", "--name-only", sha], { encoding: "utf8", maxBuffer: 1 << 28 })
      .split("\0")
      .filter((p) => p.endsWith(".rs"));
    const texts = files.map((p) => execFileSync("git", ["--git-dir", source, "show", `${sha}:${p}`], { maxBuffer: 1 << 26 }));
    for (const size of values.sizes.split(",").map(Number)) {
      const copies: [string, Buffer][] = [];
      for (let k = 0; k < size; k++) files.forEach((p, i) => copies.push([`copy-${k}/${p}`, Buffer.concat([texts[i]!, Buffer.from(`\n// copy ${k}\n`)])]));
      const repo = path.join(work, `growth-${size}.git`);
      const growthSha = syntheticRepo(repo, copies);
      growth.push({ size, mb: copies.reduce((n, [, body]) => n + body.length, 0) / 1e6, report: fullRuns(`growth-${size}`, repo, growthSha, Math.min(runs, 3)) });
      rmSync(repo, { recursive: true, force: true });
    }
  }

  const fullMs = median(full.map((r) => r.wallMs));
  const astMs = median(astTimes);
  const fullCpu = medianCpu(full.map((r) => r.cpuMs));
  const astCpuMs = medianCpu(astCpu);
  const lines = [
    heading,
    `source ${source} at ${sha}${values["parent-sha"] ? ` (parent ${values["parent-sha"]})` : ""}; ${runs} runs after a warm-up, medians`,
    "",
    "| case | median wall | median CPU | peak RSS | notes |",
    "|---|---|---|---|---|",
    `| full run | ${fmt(fullMs)} | ${fmtCpu(fullCpu)} | ${mib(median(full.map((r) => r.maxRssKb)))} | ${full[0]!.filesRead} files read, ${full[0]!.filesParsed} parsed, ${full[0]!.sites} sites, ${full[0]!.records} records |`,
    `| ast-grep scan | ${fmt(astMs)} | ${fmtCpu(astCpuMs)} | | ${astMatches} panic!/unreachable!/todo!/unimplemented! matches (ours: ${ourMacroSites}) |`,
    ...(bump.length ? [`| SHA bump | ${fmt(median(bump.map((r) => r.wallMs)))} | ${fmtCpu(medianCpu(bump.map((r) => r.cpuMs)))} | ${mib(median(bump.map((r) => r.maxRssKb)))} | ${bump[0]!.filesParsed} parsed, ${bump[0]!.filesReused} reused, ${bump[0]!.analysisCarried} of ${bump[0]!.records} analyses carried over |`] : []),
    "",
    `full / ast-grep: ${(fullMs / astMs).toFixed(3)}×` +
      (fullCpu !== null && astCpuMs !== null ? ` (CPU ${(fullCpu / astCpuMs).toFixed(3)}×; CPU per wall second: full run ${(fullCpu / fullMs).toFixed(2)}, ast-grep ${(astCpuMs / astMs).toFixed(2)})` : "") +
      (bump.length ? `; bump / full: ${(median(bump.map((r) => r.wallMs)) / fullMs).toFixed(3)}×` : ""),
    ...(history.length
      ? [
          "",
          "| bump to | .rs files changed | parsed | analyses redone | wall |",
          "|---|---|---|---|---|",
          ...history.map((h) => `| ${h.commit.slice(0, 8)} | ${h.changed} | ${h.report.filesParsed} | ${h.report.records - h.report.analysisCarried} of ${h.report.records} | ${fmt(h.report.wallMs)} |`),
        ]
      : []),
    ...(growth.length
      ? ["", "| size | .rs MB | wall | ms per MB | peak RSS |", "|---|---|---|---|---|", ...growth.map((g) => `| ×${g.size} | ${g.mb.toFixed(1)} | ${fmt(g.report.wallMs)} | ${(g.report.wallMs / g.mb).toFixed(0)} | ${mib(g.report.maxRssKb)} |`)]
      : []),
    "",
    "stage times of the median full run (ms): " + JSON.stringify(medianRun(full).stages),
  ];
  return lines;
}

/**
 * A file of `count` functions, each raising a panic of its own (`first`: the first function's
 * number), as a crate's source would hold them.
 */
function panicFunctions(first: number, count: number): Buffer {
  const words = ["shape", "rank", "index", "bounds", "dtype", "device", "kernel", "stride", "buffer", "layout", "axis", "batch"];
  let text = "";
  for (let i = first; i < first + count; i++) text += `pub fn check_${i}(x: usize) {\n    if x > ${i} {\n        panic!("value {x} exceeds ${words[i % words.length]} limit ${i}");\n    }\n}\n\n`;
  return Buffer.from(text);
}

/** Records per file: N distinct panics in one file, and over N / 100 files, for each N of `sizes`. */
function recordsPerFile(sizes: readonly number[]): string[] {
  const rows: string[] = [];
  for (const n of sizes) {
    const one = path.join(work, `records-${n}-one.git`);
    const many = path.join(work, `records-${n}-many.git`);
    const files = Math.max(1, Math.round(n / 100));
    const per = Math.ceil(n / files);
    const oneReport = fullRuns(`records-${n}-one`, one, syntheticRepo(one, [["src/lib.rs", panicFunctions(0, n)]]), Math.min(runs, 3));
    const manyReport = fullRuns(`records-${n}-many`, many, syntheticRepo(many, Array.from({ length: files }, (_, f) => [`src/f${f}.rs`, panicFunctions(f * per, Math.min(per, n - f * per))] as const)), Math.min(runs, 3));
    if (oneReport.records !== n || manyReport.records !== n) throw new Error(`records per file: ${oneReport.records} and ${manyReport.records} records for ${n} panics`);
    rows.push(`| ${n} | ${fmt(oneReport.wallMs)} | ${mib(oneReport.maxRssKb)} | ${files} | ${fmt(manyReport.wallMs)} | ${mib(manyReport.maxRssKb)} | ${(oneReport.wallMs / manyReport.wallMs).toFixed(2)}× |`);
    rmSync(one, { recursive: true, force: true });
    rmSync(many, { recursive: true, force: true });
  }
  return ["", "| records | one file: wall | peak RSS | files (100 records each) | wall | peak RSS | wall one / many |", "|---|---|---|---|---|---|---|", ...rows];
}

const report = values.source && values.sha ? sourceCases(path.resolve(values.source), values.sha) : [`error-catalog benchmark — ${new Date().toISOString().slice(0, 10)}, ${availableParallelism()} cores (${cpus()[0]?.model ?? "unknown cpu"}), node ${process.version}; ${Math.min(runs, 3)} runs after a warm-up, medians`];
if (values["records-per-file"] !== undefined) report.push(...recordsPerFile(values["records-per-file"].split(",").map(Number)));
process.stdout.write(`${report.join("\n")}\n`);
