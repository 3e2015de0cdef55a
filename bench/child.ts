/**
 * One measured pipeline run: `node dist/bench/child.js <config> <sha> <source> [threads]`. Runs the
 * command users run (`error-catalog run`, the bundled CLI) in this process and prints one JSON
 * line: the new version's counts, peak RSS of the whole process (all threads) and when each
 * progress line came.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Config, Manifest, VersionsIndex } from "../pipeline/schema-types.generated.js";

export interface ChildReport {
  readonly wallMs: number;
  readonly maxRssKb: number;
  readonly filesRead: number;
  readonly filesParsed: number;
  readonly filesReused: number;
  readonly sites: number;
  readonly records: number;
  readonly sitesByKind: Partial<Record<string, number>>;
  readonly analysisCarried: number;
  /** Progress lines with the milliseconds since the process started. */
  readonly stages: readonly [string, number][];
}

const [configPath, sha, source, threads] = process.argv.slice(2) as [string, string, string, string | undefined];
const stages: [string, number][] = [["start", Math.round(performance.now())]];
// Note: the CLI reports progress as lines on stderr (plain lines: stderr is a pipe here).
const write = process.stderr.write.bind(process.stderr);
process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
  for (const line of String(chunk).split("\n")) if (line !== "") stages.push([line.split(" ").slice(0, 2).join(" "), Math.round(performance.now())]);
  return write(chunk, ...rest);
}) as typeof process.stderr.write;
const cli = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "pipeline", "cli.bundle.js");
const { main } = (await import(cli)) as typeof import("../pipeline/cli.js");
const code = await main(["run", "--config", configPath, "--sha", sha, "--source", source, "--force", ...(threads ? ["--threads", threads] : [])]);
stages.push(["done", Math.round(performance.now())]);
if (code !== 0) process.exit(code);

const config = JSON.parse(readFileSync(configPath, "utf8")) as Config;
const repoOut = path.join(path.dirname(configPath), config.output, ...config.targets[0]!.repo.split("/"));
const index = JSON.parse(readFileSync(path.join(repoOut, "versions.json"), "utf8")) as VersionsIndex;
const manifest = JSON.parse(readFileSync(path.join(repoOut, index.versions.at(-1)!.version, "manifest.json"), "utf8")) as Manifest;
const c = manifest.counts;
const report: ChildReport = {
  wallMs: performance.now(),
  maxRssKb: peakRssKb(),
  filesRead: c.filesRead,
  filesParsed: c.filesParsed,
  filesReused: c.filesReused,
  sites: c.sites,
  records: c.records,
  sitesByKind: c.sitesByKind,
  analysisCarried: manifest.analysis?.staticCarried ?? 0,
  stages,
};
process.stdout.write(`${JSON.stringify(report)}\n`);

/**
 * Peak RSS of this process, all threads, in KiB: `VmHWM` where Linux gives it, else the resource
 * usage's `maxRSS`.
 * Note: on Linux, `maxRSS` counts the pages a process had before it called exec, and a child
 *   forked from a process of 300 MiB starts with them: a run started by the benchmark while it
 *   held the input of 8 times burn reported 275 MiB, against 180–185 MiB measured on its own.
 *   `VmHWM` is the peak of the program's own memory since exec.
 */
function peakRssKb(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
    if (hwm !== null) return Number(hwm[1]);
  } catch {
    // Note: no /proc (not Linux): the resource usage below.
  }
  return process.resourceUsage().maxRSS;
}
