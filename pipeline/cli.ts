/**
 * The command line: argv in, exit status out. Every command's work lives in the pipeline's
 * modules; this file parses options, shows progress and maps errors to exit codes
 * (0 success, 1 findings or failure, 2 usage or input error).
 */
import { Command, CommanderError, Option } from "commander";
import cliProgress from "cli-progress";
import { exitCode, formatError } from "./errors.js";
import { PIPELINE_VERSION, run } from "./run.js";

/** True when progress may be drawn: a terminal on stderr and not under CI. */
function interactive(): boolean {
  return Boolean(process.stderr.isTTY) && !process.env.CI;
}

/** A progress bar on a terminal; plain lines (one per stage) elsewhere. */
function progressReporter(): { log: (line: string) => void; progress: (stage: string, done: number, total: number) => void; stop: () => void } {
  if (!interactive()) {
    return { log: (line) => process.stderr.write(`${line}\n`), progress: () => {}, stop: () => {} };
  }
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

export function program(): Command {
  const cli = new Command("error-catalog")
    .description("Turns a Rust repository at a pinned commit into a catalog of the panics its users can hit.")
    .version(PIPELINE_VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();

  cli
    .command("run")
    .description("fetch the target at its pinned SHA, extract its panic sites and write a dataset version")
    .option("--config <file>", "configuration file", "config.json")
    .option("--target <owner/name>", "which target of the config to run (default: the first)")
    .option("--source <url|path>", "clone from here instead of the target's url (a local mirror works offline)")
    .option("--sha <sha>", "analyse this commit instead of the pinned one")
    .option("--out <dir>", "write datasets here instead of the config's output folder")
    .addOption(new Option("--force", "write a new version even when the newest one is up to date").default(false))
    .action(async (opts: { config: string; target?: string; source?: string; sha?: string; out?: string; force: boolean }) => {
      const reporter = progressReporter();
      try {
        const result = await run({ configPath: opts.config, target: opts.target, source: opts.source, sha: opts.sha, out: opts.out, force: opts.force, log: reporter.log, progress: reporter.progress });
        reporter.stop();
        if (result.status === "written" && result.manifest) {
          const c = result.manifest.counts;
          process.stdout.write(`${result.repo} ${result.version}: ${c.records} records from ${c.sites} sites in ${c.filesRead} files → ${result.dir}\n`);
        } else {
          process.stdout.write(`${result.repo} ${result.version}: up to date\n`);
        }
      } finally {
        reporter.stop();
      }
    });

  return cli;
}

/** Runs the CLI and returns the exit status; never calls process.exit itself. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await program().parseAsync([...argv], { from: "user" });
    return Number(process.exitCode ?? 0);
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    process.stderr.write(`${formatError(error)}\n`);
    return exitCode(error);
  }
}
