/**
 * From the text a user pasted to the catalogue records that explain it: strip what Rust's panic
 * hook prints around the message, test every record's `messagePattern`, rank the matches most
 * specific first. Pure matching, and one small loader that reads a dataset version from disk.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { PipelineError } from "./errors.js";
import { type OutputOptions, resolveOutput } from "./output.js";
import type { CatalogRecord, Envelope } from "./schema-types.generated.js";
import { readIndex, readVersion, repoDir } from "./write.js";

/** One record that matches the pasted text. */
export interface Match {
  readonly id: string;
  /** The message as written in the source (`errorMessage`). */
  readonly message: string;
  readonly pattern: string;
  /** Literal characters of the pattern: more means a more specific record. */
  readonly specificity: number;
  readonly filePath: string;
  readonly lineNumber: number;
  readonly githubUrl: string;
}

/** The default panic hook's header, since Rust 1.73: `thread 'main' panicked at src/lib.rs:3:5:` (1.87+ adds ` (<id>)` after the name). */
const HEADER = /^thread '[^'\n]*'(?: \(\d+\))? panicked at [^\n]*:\d+:\d+:[ \t]*$/m;
/** Before Rust 1.73 the message stood inside the header: `thread 'main' panicked at 'msg', src/lib.rs:3:5`. */
const OLD_HEADER = /^thread '[^'\n]*'(?: \(\d+\))? panicked at '([\s\S]*)', [^\n]*:\d+:\d+[ \t]*$/m;
/** What the hook prints after the message: the backtrace hint, or the backtrace itself. */
const TRAILER = /\n(?:note: run with `RUST_BACKTRACE=[^\n]*|note: Some details are omitted[^\n]*|stack backtrace:)[\s\S]*$/;

/**
 * The panic message inside `text`: when it holds a `thread '…' panicked at …:` header, the text
 * after the first one, without the `note: run with RUST_BACKTRACE…` line or a backtrace that
 * follows; otherwise `text` itself. CRLF is read as LF; a final line break is dropped.
 */
export function panicMessage(text: string): string {
  let message = text.replace(/\r\n/g, "\n");
  const header = HEADER.exec(message);
  const old = header === null ? OLD_HEADER.exec(message) : null;
  if (header !== null) message = message.slice(header.index + header[0].length).replace(/^\n/, "");
  else if (old !== null) message = old[1]!;
  return message.replace(TRAILER, "").replace(/\n$/, "");
}

/**
 * The number of literal characters in a pattern made by `composePattern`: escapes count as the
 * one character they stand for; `^`, groups, lookaheads, backreferences, `[\s\S]*?` holes and
 * `\s*` gaps count nothing. Never throws; on other regexes it is an estimate.
 */
export function patternLiterals(pattern: string): number {
  let n = 0;
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i]!;
    if (c === "\\") {
      const e = pattern[i + 1] ?? "";
      if (/[sSdDwWbB]/.test(e)) (i += 2), (n += 0);
      else if (/[0-9]/.test(e)) {
        i += 2;
        while (/[0-9]/.test(pattern[i] ?? "")) i++;
      } else if (e === "x" && /^[0-9a-fA-F]{2}$/.test(pattern.slice(i + 2, i + 4))) (i += 4), n++;
      else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(pattern.slice(i + 2, i + 6))) (i += 6), n++;
      else (i += 2), n++;
    } else if (c === "[") {
      // A class is a hole or a gap: skip to its end, escapes included.
      i++;
      while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
      i++;
    } else if ("^$()|*+?".includes(c)) {
      i += c === "(" && pattern[i + 1] === "?" ? 3 : 1; // `(?=`, `(?:`, `(?!`
    } else {
      const cp = pattern.codePointAt(i)!;
      i += cp > 0xffff ? 2 : 1;
      n++;
    }
  }
  return n;
}

/**
 * The records whose pattern matches the panic message in `text` (see `panicMessage`), most
 * specific first (more literal characters), then by id. Records with an empty or invalid
 * pattern never match. Pure: compiles each pattern once per call.
 */
export function matchRecords(text: string, records: readonly CatalogRecord[]): Match[] {
  const message = panicMessage(text);
  const matches: Match[] = [];
  for (const r of records) {
    if (r.messagePattern === "") continue;
    let re: RegExp;
    try {
      re = new RegExp(r.messagePattern);
    } catch {
      continue;
    }
    if (!re.test(message)) continue;
    matches.push({ id: r.id, message: r.errorMessage, pattern: r.messagePattern, specificity: patternLiterals(r.messagePattern), filePath: r.filePath, lineNumber: r.lineNumber, githubUrl: r.githubUrl });
  }
  return matches.sort((a, b) => b.specificity - a.specificity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Where to read a dataset from: a version folder, or the newest (or a named) version of a repo under an output folder. */
export interface DatasetLocation extends OutputOptions {
  /** A version folder (holding records.jsonl), or a version name under `<out>/<repo>/`. */
  readonly version?: string;
}

/**
 * Reads the envelopes of one dataset version. Effects: reads config.json (only when needed,
 * `resolveOutput`) and the version's files. Throws E_INPUT when the dataset is not there,
 * E_CONFIG when the config is needed and invalid.
 */
export async function loadDataset(where: DatasetLocation): Promise<{ dir: string; envelopes: Envelope[] }> {
  let dir: string;
  if (where.version !== undefined && (await isDir(path.resolve(where.version))) && (await isFile(path.join(path.resolve(where.version), "records.jsonl")))) {
    dir = path.resolve(where.version);
  } else {
    const { outDir, repo } = await resolveOutput(where);
    const index = await readIndex(outDir, repo);
    const entry = where.version === undefined ? index.versions.at(-1) : index.versions.find((v) => v.version === where.version);
    if (entry === undefined) {
      const what = where.version === undefined ? `no dataset version of ${repo}` : `no version ${JSON.stringify(where.version)} of ${repo}`;
      throw new PipelineError("E_INPUT", `${what} under ${outDir}`, { hint: "run `error-catalog run` first, or pass --out/--repo/--version to point at a dataset" });
    }
    dir = path.join(repoDir(outDir, repo), entry.version);
  }
  try {
    const dataset = await readVersion(dir);
    return { dir, envelopes: [...dataset.envelopes] };
  } catch (error) {
    throw new PipelineError("E_INPUT", `could not read the dataset in ${dir}: ${(error as Error).message}`, { hint: "point --version at a folder holding manifest.json and records.jsonl" });
  }
}

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isDirectory() ?? false;
}

async function isFile(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isFile() ?? false;
}

/** The matches as text for a terminal: one block per record (id and message, location, URL), most specific first. */
export function renderMatches(matches: readonly Match[]): string {
  if (matches.length === 0) return "no record matches this message\n";
  const head = `${matches.length} record${matches.length === 1 ? "" : "s"} match${matches.length === 1 ? "es" : ""}, most specific first:\n`;
  const blocks = matches.map((m) => `\n${m.id}  ${m.message.replace(/\n/g, "\n" + " ".repeat(18))}\n  at ${m.filePath}:${m.lineNumber}\n  ${m.githubUrl}\n`);
  return head + blocks.join("");
}

/** Reads all of a stream as UTF-8 text (the CLI passes stdin). */
export async function readAll(stream: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}
