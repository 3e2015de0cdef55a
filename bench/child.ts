/**
 * One measured pipeline run: `node dist/bench/child.js <config> <sha> <source>`. Prints one JSON
 * line: counts, peak RSS of the whole process (all threads) and when each progress line came.
 */
import { run } from "../pipeline/run.js";

export interface ChildReport {
  readonly wallMs: number;
  readonly maxRssKb: number;
  readonly filesRead: number;
  readonly filesParsed: number;
  readonly filesReused: number;
  readonly sites: number;
  readonly records: number;
  readonly sitesByKind: Partial<Record<string, number>>;
  /** Progress lines with the milliseconds since the process started. */
  readonly stages: readonly [string, number][];
}

const [configPath, sha, source] = process.argv.slice(2);
const stages: [string, number][] = [["start", Math.round(performance.now())]];
const result = await run({ configPath, sha, source, force: true, log: (line) => stages.push([line.split(" ").slice(0, 2).join(" "), Math.round(performance.now())]) });
stages.push(["done", Math.round(performance.now())]);
const c = result.manifest!.counts;
const report: ChildReport = {
  wallMs: performance.now(),
  maxRssKb: process.resourceUsage().maxRSS,
  filesRead: c.filesRead,
  filesParsed: c.filesParsed,
  filesReused: c.filesReused,
  sites: c.sites,
  records: c.records,
  sitesByKind: c.sitesByKind,
  stages,
};
process.stdout.write(`${JSON.stringify(report)}\n`);
