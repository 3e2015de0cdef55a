/**
 * The command line: argv in, exit status out. Every command's work lives in the pipeline's
 * modules; this file parses options, shows progress and maps errors to exit codes
 * (0 success, 1 a finding, 2 bad input, 3 a failure that is not the input's).
 */
import { setFlagsFromString } from "node:v8";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { EXIT, exitCode, formatError, PipelineError } from "./errors.js";
import { matchPanic, panicLocation, panicMessage, renderMatches } from "./match.js";
import { loadVersions, readAll } from "./commands/match.js";
import { diffReport, FAIL_ON, type FailOn, failsOn } from "./commands/diff.js";
import { reportExitCode, reportLines, runTargets } from "./commands/run.js";
import { listTargets, targetLines } from "./commands/targets.js";
import { validateDataset } from "./commands/validate.js";
import { buildSite } from "./commands/site.js";
import { packageVersion } from "./run.js";
import { hasDifferences } from "./diff.js";
import { pin } from "./pin.js";

/** True when progress may be drawn: a terminal on stderr and not under CI. */
function interactive(): boolean {
  return Boolean(process.stderr.isTTY) && !process.env.CI;
}

/** A progress bar on a terminal; plain lines (one per stage) elsewhere. */
async function progressReporter(quiet = false): Promise<{ log: (line: string) => void; progress: (stage: string, done: number, total: number) => void; stop: () => void }> {
  if (quiet) return { log: () => {}, progress: () => {}, stop: () => {} };
  if (!interactive()) {
    return { log: (line) => process.stderr.write(`${line}\n`), progress: () => {}, stop: () => {} };
  }
  // Note: loaded only for a terminal; plain runs (CI, pipes) never pay for it.
  const { default: cliProgress } = await import("cli-progress");
  const bar = new cliProgress.SingleBar({ format: "{stage} [{bar}] {value}/{total} files", stream: process.stderr, clearOnComplete: true, hideCursor: true }, cliProgress.Presets.shades_classic);
  let active = false;
  return {
    log: (line) => {
      if (active) bar.stop(), (active = false);
      process.stderr.write(`${line}\n`);
    },
    progress: (stage, done, total) => {
      if (!active) bar.start(total, done, { stage }), (active = true);
      bar.update(done, { stage });
    },
    stop: () => {
      if (active) bar.stop(), (active = false);
    },
  };
}

/** `--threads`: a whole number from 1 to 64. */
function parseThreads(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new InvalidArgumentError("a whole number from 1 to 64");
  return n;
}

/** `--max-entries`: a whole number, 0 or more. */
function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("a whole number, 0 or more");
  return n;
}

/** `--fail-on`: classes separated by commas. */
function parseFailOn(value: string): FailOn[] {
  const classes = value.split(",").map((c) => c.trim());
  const unknown = classes.filter((c) => !(FAIL_ON as readonly string[]).includes(c));
  if (unknown.length > 0) throw new InvalidArgumentError(`${unknown.join(", ")}: not one of ${FAIL_ON.join(", ")}`);
  return classes as FailOn[];
}

/** The commands, their options and what each one calls. */
export function program(): Command {
  const cli = new Command("error-catalog")
    .description("Turns a Rust repository at a pinned commit into a catalog of the panics its users can hit.")
    // Note: the package version alone; the pipeline version (with the extractor's and analyzer's) is in each manifest.
    .version(packageVersion())
    // Note: positional, so `--version` after a command is that command's option (`match --version <dir>`).
    .enablePositionalOptions()
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();

  cli
    .command("run")
    .description("fetch the target at its pinned SHA, extract its panic sites and write a dataset version")
    .option("--config <file>", "configuration file", "config.json")
    .option("--target <owner/name>", "which target of the config to run (default: every target, in config order; one failing does not stop the others)")
    .option("--source <url|path>", "clone from here instead of the target's url (a local mirror works offline)")
    .option("--sha <sha>", "analyse this commit instead of the pinned one")
    .option("--out <dir>", "write datasets here instead of the config's output folder")
    .addOption(new Option("--force", "write a new version even when the newest one is up to date").default(false))
    .addOption(new Option("--carry <mode>", "the most the run may take from the parent version (the output is the same)").choices(["whole", "partial", "none"]).default("whole"))
    .option("--threads <n>", "threads to extract on, the calling thread and n - 1 parse threads (default: 1, with tree-sitter parsing beside it on libuv's thread pool); the output is the same for any number", parseThreads)
    .addOption(new Option("--json", "print a report of what each target's run wrote (version, previous version, counts, folder, or the error) as JSON").default(false))
    .addOption(new Option("--quiet", "print no progress").default(false))
    .action(async (opts: { config: string; target?: string; source?: string; sha?: string; out?: string; force: boolean; carry: "whole" | "partial" | "none"; threads?: number; json: boolean; quiet: boolean }) => {
      const reporter = await progressReporter(opts.quiet);
      try {
        const report = await runTargets({ configPath: opts.config, target: opts.target, source: opts.source, sha: opts.sha, out: opts.out, force: opts.force, carry: opts.carry, threads: opts.threads, log: reporter.log, progress: reporter.progress, beforeLargeTree: () => setFlagsFromString(LARGE_TREE_V8_FLAGS), debug: debugging() });
        reporter.stop();
        // Note: one target's error is printed as any command's; of several, each names its target.
        const several = report.targets.length > 1;
        for (const t of report.targets) if (t.error !== null) process.stderr.write(several ? `${t.repo}: ${t.error}\n` : `${t.error}\n`);
        const lines = reportLines(report).filter((_, i) => several || report.targets[i]!.error === null);
        if (opts.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        else if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
        if (report.failed > 0) process.exitCode = reportExitCode(report);
      } finally {
        reporter.stop();
      }
    });

  cli
    .command("targets")
    .description("list the config's targets (repo, pinned SHA, url); --json prints one line of JSON, for a CI matrix")
    .option("--config <file>", "configuration file", "config.json")
    .addOption(new Option("--json", "print the targets as a JSON array on one line").default(false))
    .action(async (opts: { config: string; json: boolean }) => {
      const targets = await listTargets(opts.config);
      process.stdout.write(opts.json ? `${JSON.stringify(targets)}\n` : `${targetLines(targets).join("\n")}\n`);
    });

  cli
    .command("diff")
    .description("show what changed between two dataset versions (default: the two newest)")
    .argument("[old]", "the older version (name or unique prefix)")
    .argument("[new]", "the newer version (default: the newest)")
    .option("--config <file>", "configuration file, for the default output folder and repository (default: config.json when there is one)")
    .option("--repo <owner/name>", "which target's datasets (default: the first)")
    .option("--out <dir>", "read datasets here instead of the config's output folder")
    .addOption(new Option("--format <format>", "output format: markdown, the diff as JSON, or SARIF 2.1.0 of the added records").choices(["markdown", "json", "sarif"]).default("markdown"))
    .option("--run <file>", "compare what the run of this report (`run --json`) wrote with the newest version before it; says so when it wrote nothing or failed")
    .addOption(new Option("--compact", "markdown for a pull request comment: changed and moved records counted, under 65,536 characters").default(false))
    .option("--max-entries <n>", "list at most n entries per class in markdown (default: all; 50 with --compact)", parseCount)
    .addOption(new Option("--exit-code", "exit with 1 when there are differences").default(false))
    .option("--fail-on <classes>", `exit with 1 when the diff has records of these classes (comma-separated: ${FAIL_ON.join(", ")})`, parseFailOn)
    .action(async (oldName: string | undefined, newName: string | undefined, opts: { config?: string; repo?: string; out?: string; format: "markdown" | "json" | "sarif"; run?: string; compact: boolean; maxEntries?: number; exitCode: boolean; failOn?: FailOn[] }) => {
      const report = await diffReport({ configPath: opts.config, repo: opts.repo, out: opts.out, old: oldName, new: newName, format: opts.format, run: opts.run, compact: opts.compact, maxEntries: opts.maxEntries, toolVersion: packageVersion() });
      process.stdout.write(report.text);
      if ((opts.exitCode && report.diffs.some(hasDifferences)) || (opts.failOn !== undefined && failsOn(report.diffs, opts.failOn))) process.exitCode = 1;
    });

  cli
    .command("pin")
    .description("pin a target of config.json at a commit, given as a SHA or as a branch or tag of its url")
    .option("--config <file>", "configuration file", "config.json")
    .option("--target <owner/name>", "which target to pin (default: the first)")
    .option("--sha <sha>", "the commit, 40 hex digits")
    .option("--ref <ref>", "a branch or tag (or refs/…) resolved with git ls-remote")
    .option("--source <url|path>", "resolve --ref here instead of the target's url")
    .action(async (opts: { config: string; target?: string; sha?: string; ref?: string; source?: string }) => {
      const result = await pin({ configPath: opts.config, target: opts.target, sha: opts.sha, ref: opts.ref, source: opts.source });
      process.stdout.write(result.changed ? `${result.repo}: pinned ${result.sha} (was ${result.previous}) in ${opts.config}\n` : `${result.repo}: already pinned at ${result.sha}\n`);
    });

  cli
    .command("validate")
    .description("check a dataset version: manifest, records, order, ids, index (default: the newest version)")
    .argument("[version_dir]", "the version folder to check")
    .option("--config <file>", "configuration file, for the default output folder and repository (default: config.json when there is one)")
    .option("--repo <owner/name>", "which target's newest version (default: the first)")
    .option("--out <dir>", "read datasets here instead of the config's output folder")
    .action(async (dir: string | undefined, opts: { config?: string; repo?: string; out?: string }) => {
      const result = await validateDataset({ configPath: opts.config, repo: opts.repo, out: opts.out, dir });
      if (result.problems.length > 0) {
        const shown = result.problems.slice(0, 20);
        const more = result.problems.length - shown.length;
        throw new PipelineError("E_INPUT", `${result.dir} is not a valid dataset version (${result.problems.length} problem${result.problems.length === 1 ? "" : "s"})`, {
          details: more > 0 ? [...shown, `… and ${more} more`] : shown,
          hint: "a version written by error-catalog is valid; restore it from the previous CI artifact, or run again with --force",
        });
      }
      process.stdout.write(`${result.dir}: valid, ${result.records} records\n`);
    });

  cli
    .command("match")
    .description("find the records that explain a panic message (the text, a whole `thread '…' panicked at …:` block, or stdin)")
    .argument("[text]", "the message or block; `-` or nothing reads stdin")
    .option("--config <file>", "configuration file, for the default output folder and repository (default: config.json when there is one)")
    .option("--repo <owner/name>", "which target's datasets (default: the first)")
    .option("--out <dir>", "read datasets here instead of the config's output folder")
    .option("--version <dir|name>", "a version folder, or a version name under --out (default: the newest version)")
    .addOption(new Option("--json", "print the result as JSON: the message, the location and the versions with a site there, and each match with its whole record").default(false))
    .action(async (text: string | undefined, opts: { config?: string; repo?: string; out?: string; version?: string; json: boolean }) => {
      if ((text === undefined || text === "-") && process.stdin.isTTY) throw new PipelineError("E_USAGE", "no text to match", { hint: 'give it as an argument (error-catalog match "<message>") or pipe it on stdin' });
      const input = text === undefined || text === "-" ? await readAll(process.stdin) : text;
      if (panicMessage(input).trim() === "") throw new PipelineError("E_USAGE", "the text to match is empty", { hint: "paste the panic message, or the whole `thread '…' panicked at …:` block" });
      // Note: the other versions are read only for a location: they say which versions have a site there.
      const { versions, selected } = await loadVersions({ configPath: opts.config, repo: opts.repo, out: opts.out, version: opts.version }, panicLocation(input) !== null);
      const result = matchPanic(input, versions, selected);
      process.stdout.write(opts.json ? `${JSON.stringify(result, null, 2)}\n` : renderMatches(result));
      if (result.matches.length === 0) process.exitCode = 1;
    });

  cli
    .command("site")
    .description("render a dataset version (default: the newest) as a static site: a page per record, the index with the search, the diffs, the JSON")
    .argument("[version]", "the version (name or unique prefix)")
    .option("--config <file>", "configuration file, for the default output folder and repository (default: config.json when there is one)")
    .option("--repo <owner/name>", "which target's datasets (default: the first)")
    .option("--out <dir>", "read datasets here instead of the config's output folder")
    .option("--site <dir>", "write the site here (default: _site beside the output folder); a site written there before is replaced")
    .option("--base-url <url>", "the address the site is published at, for canonical links")
    .action(async (version: string | undefined, opts: { config?: string; repo?: string; out?: string; site?: string; baseUrl?: string }) => {
      const result = await buildSite({ configPath: opts.config, repo: opts.repo, out: opts.out, version, site: opts.site, baseUrl: opts.baseUrl });
      process.stdout.write(`${result.repo} ${result.version}: ${result.records} records, ${result.files} files, ${result.bytes} bytes → ${result.dir}\n`);
    });

  for (const command of [cli, ...cli.commands]) command.addHelpText("after", EXIT_HELP);
  return cli;
}

/** The exit statuses, as every command's `--help` lists them (`EXIT`). */
const EXIT_HELP = `
Exit status:
  ${EXIT.ok}  success
  ${EXIT.finding}  a finding: diff --exit-code or --fail-on found differences, match found no record
  ${EXIT.input}  bad input: the command line, the config, a source, SHA or version that is not
     there, data in the output that is damaged or not error-catalog's
  ${EXIT.failure}  a failure that is not the input's: git, the network, the disk, another run
     holding a lock for too long, a bug
  run without --target exits with the highest status of the targets that failed`;

/**
 * V8 optimises a function later than by default (`--interrupt-budget`, in units of work before a
 * function is optimised; V8's default is 132 000): fewer functions are compiled, and fewer
 * compiles are thrown away when a rare branch first runs, which on a 2-core machine takes the
 * core git and tree-sitter work on (README, Speed; figures in BENCHMARKS.md).
 * Note: set at the start of `main`, before any hot code is compiled (V8 reads it when it counts a
 * function's budget); parse threads share the process's flags.
 */
const V8_FLAGS = "--interrupt-budget=400000";

/**
 * For a tree of thousands of files: heaps that grow to 1.5 times what they hold after a full
 * collection, rather than the up to 4 times V8 picks when collecting is cheap, so memory stays
 * flat as the input grows, for a little more time (README, Speed; figures in BENCHMARKS.md). On a
 * tree the size of burn's it would cost time and save nothing, so it is set only then. V8 reads
 * it at each collection, so it can be set while the process runs.
 */
const LARGE_TREE_V8_FLAGS = "--heap-growing-percent=50";

/** Runs the CLI and returns the exit status; never calls process.exit itself. */
export async function main(argv: readonly string[]): Promise<number> {
  setFlagsFromString(V8_FLAGS);
  try {
    await program().parseAsync([...argv], { from: "user" });
    return Number(process.exitCode ?? EXIT.ok);
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.input;
    }
    process.stderr.write(`${formatError(error, debugging())}\n`);
    return exitCode(error);
  }
}

/**
 * Sets the process's handlers, once, for the installed command: a closed stdout or stderr (`| head`)
 * ends that output quietly, the command's status standing; an error that escapes every other
 * handler is printed as `formatError` prints it, and the process exits with 3.
 */
export function guardProcess(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      // Note: once the reader has gone, what is still written is dropped (ERR_STREAM_DESTROYED).
      if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") return;
      fatal(error);
    });
  }
  process.on("uncaughtException", fatal);
  process.on("unhandledRejection", fatal);
}

/** Prints an error no handler took and exits with 3. */
function fatal(error: unknown): never {
  try {
    process.stderr.write(`${formatError(error, debugging())}\n`);
  } finally {
    process.exit(EXIT.failure);
  }
}

/** True when `ERROR_CATALOG_DEBUG` asks for stack traces. */
function debugging(): boolean {
  const value = process.env.ERROR_CATALOG_DEBUG;
  return value !== undefined && value !== "" && value !== "0";
}
