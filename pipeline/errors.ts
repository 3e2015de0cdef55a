/**
 * The few errors the pipeline raises on purpose. Each says what went wrong, where, and what to
 * do; the CLI prints them and maps the code to an exit status: 2 when the input is at fault, 3
 * when something else failed. Anything else thrown is a bug, and is exit 3 too.
 */

/** Error codes; `exitCode` maps them to the CLI's exit statuses. */
export type ErrorCode =
  | "E_USAGE" // the command line is wrong
  | "E_CONFIG" // config.json is missing, unreadable or invalid
  | "E_INPUT" // an input is wrong: names something that is not there (a SHA, a version, a source), or data in the output that is damaged or foreign
  | "E_GIT" // git failed for another reason (network, permissions, corrupt repository)
  | "E_SCHEMA" // produced data failed validation: a pipeline bug, nothing is written
  | "E_IO" // the file system refused a read or write
  | "E_LOCK" // another run held a lock for longer than this one would wait
  | "E_THREAD"; // a thread of the pipeline could not start or stopped

/** The exit statuses of the CLI. */
export const EXIT = {
  /** The command did what it was asked. */
  ok: 0,
  /** A finding: `diff --exit-code` found differences, `match` found nothing. */
  finding: 1,
  /** Bad input: the command line, the config, a source, SHA or version that does not exist, damaged data in the output. */
  input: 2,
  /** A failure that is not the input's: git, the network, the disk, a lock held too long, a bug. */
  failure: 3,
} as const;

export class PipelineError extends Error {
  readonly code: ErrorCode;
  /** What the user can do about it, one sentence. */
  readonly hint: string | undefined;
  /** Further detail lines (one per problem), printed under the message. */
  readonly details: readonly string[];

  constructor(code: ErrorCode, message: string, options: { hint?: string; details?: readonly string[]; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PipelineError";
    this.code = code;
    this.hint = options.hint;
    this.details = options.details ?? [];
  }
}

/** 2 for bad input (E_USAGE, E_CONFIG, E_INPUT); 3 for every other error, whatever was thrown. */
export function exitCode(error: unknown): 2 | 3 {
  if (error instanceof PipelineError && (error.code === "E_USAGE" || error.code === "E_CONFIG" || error.code === "E_INPUT")) {
    return EXIT.input;
  }
  return EXIT.failure;
}

/**
 * The text the CLI prints for an error: message, detail lines, then the hint. Anything that is not
 * a PipelineError is one line: a file system error as such (ENOSPC, EACCES, …), anything else as
 * a bug. The stack (and causes) only when `debug` (the CLI passes `ERROR_CATALOG_DEBUG`).
 */
export function formatError(error: unknown, debug = false): string {
  let lines: string[];
  if (error instanceof PipelineError) {
    lines = [`error[${error.code}]: ${error.message}`, ...error.details.map((d) => `  ${d}`)];
    if (error.hint) lines.push(`hint: ${error.hint}`);
  } else if (systemError(error)) {
    lines = [`error[E_IO]: ${firstLineOf(error.message)} (check that the disk has room and the folders can be written)`];
  } else {
    const message = error instanceof Error ? `${error.name}: ${firstLineOf(error.message)}` : firstLineOf(String(error));
    lines = [`error: unexpected failure (a bug in error-catalog; please report it, with the trace ERROR_CATALOG_DEBUG=1 prints): ${message}`];
  }
  if (debug) {
    let e: unknown = error;
    for (let depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) lines.push(depth === 0 ? (e.stack ?? e.message) : `caused by: ${e.stack ?? e.message}`);
  }
  return lines.join("\n");
}

/** True for an error of the operating system (an errno code such as ENOSPC), not of the program. */
function systemError(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return error instanceof Error && typeof code === "string" && /^E[A-Z]+$/.test(code) && typeof (error as NodeJS.ErrnoException).syscall === "string";
}

function firstLineOf(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}
