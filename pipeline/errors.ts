/**
 * The few errors the pipeline raises on purpose. Each says what went wrong, where, and what to
 * do; the CLI prints them and maps the code to an exit status. Anything else is a bug (exit 1).
 */

/** Error codes; `exitCode` maps them to the CLI's exit statuses. */
export type ErrorCode =
  | "E_USAGE" // the command line is wrong
  | "E_CONFIG" // config.json is missing, unreadable or invalid
  | "E_INPUT" // an input names something that is not there (a SHA, a version, a target)
  | "E_GIT" // git failed for another reason (network, permissions, corrupt repository)
  | "E_SCHEMA" // produced data failed validation: a pipeline bug, nothing is written
  | "E_IO"; // the file system refused a read or write

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

/** 2 for bad input (usage, config, a name or SHA that does not exist), 1 for everything else. */
export function exitCode(error: unknown): 1 | 2 {
  if (error instanceof PipelineError && (error.code === "E_USAGE" || error.code === "E_CONFIG" || error.code === "E_INPUT")) {
    return 2;
  }
  return 1;
}

/** The text the CLI prints for an error: message, detail lines, then the hint. */
export function formatError(error: unknown): string {
  if (error instanceof PipelineError) {
    const lines = [`error[${error.code}]: ${error.message}`, ...error.details.map((d) => `  ${d}`)];
    if (error.hint) lines.push(`hint: ${error.hint}`);
    return lines.join("\n");
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return `error: unexpected failure (a bug in error-catalog; please report it with this text):\n${message}`;
}
