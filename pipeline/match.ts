/**
 * From the text a user pasted to the catalogue records that explain it: strip what Rust's panic
 * hook prints around the message, read the location it names, test every record's
 * `messagePattern` against the whole message, then look for the site at the location, the
 * record an `unwrap()`'s error value names, and records the text is a fragment of; rank them.
 * Pure: no I/O and no node modules, so that a browser can run it on a dataset it fetched
 * (commands/match.ts reads datasets from disk for the CLI).
 */
import { anchored, patternParts } from "./message.js";
import { isSpace } from "./tokens.js";
import { STD_WORDS } from "./rules/index.js";
import type { CatalogRecord, Envelope, Occurrence } from "./schema-types.generated.js";
import type { MessagePart } from "./types.js";

/** The records of one dataset version, as `matchPanic` reads them. */
export interface DatasetVersion {
  /** The version's name (`0002-2c06be351006`). */
  readonly version: string;
  readonly envelopes: readonly Envelope[];
}

/**
 * How the text found a record, best first: `whole`, its pattern matches the whole message;
 * `error`, the `Err` value an `unwrap()` printed names it (an error variant, or a string its
 * pattern matches); `fragment`, the text is part of what the record prints (as a
 * `#[should_panic(expected = "…")]` text is); `location`, only a site at the panic's location.
 */
export type MatchHow = "whole" | "error" | "fragment" | "location";

/** One record that explains the pasted text. */
export interface Match {
  readonly id: string;
  readonly how: MatchHow;
  /** True when one of the record's sites stands at the location the panic names (in any version). */
  readonly atLocation: boolean;
  /** The version the record is from: the one matched against, or an older one holding the site at the location. */
  readonly version: string;
  /** Literal characters of the pattern: more means a more specific record. */
  readonly specificity: number;
  /**
   * For a fragment, how many characters of the text are the record's own literal text; for an
   * error value, 2 when the variant is the record's error class, 1 when its message names it or
   * its pattern matches the string; 0 otherwise.
   */
  readonly score: number;
  /** The whole record, explanation fields included. */
  readonly record: CatalogRecord;
  /** The occurrence matched: the one at the location, else the record's first. */
  readonly occurrence: Occurrence;
}

/** The location a panic's header names, as printed. */
export interface PanicLocation {
  readonly path: string;
  readonly line: number;
  readonly column: number;
}

/** The location of the panic, read against the datasets. */
export interface LocationMatch extends PanicLocation {
  /** The files of the datasets the printed path stands for (its longest suffix that is one), usually one. */
  readonly files: readonly string[];
  /** The versions with a site in one of those files at that line, in the order given. */
  readonly versions: readonly string[];
}

/** What `matchPanic` found. */
export interface MatchResult {
  /** The panic message inside the pasted text (`panicMessage`). */
  readonly message: string;
  /** The version matched against. */
  readonly version: string | null;
  readonly location: LocationMatch | null;
  readonly matches: readonly Match[];
}

/** The default panic hook's header, since Rust 1.73: `thread 'main' panicked at src/lib.rs:3:5:` (1.87+ adds ` (<id>)` after the name). */
const HEADER = /^(?:thread '[^'\n]*'(?: \(\d+\))? )?panicked at ([^\n]*):(\d+):(\d+):[ \t]*$/m;
/** Before Rust 1.73 the message stood inside the header: `thread 'main' panicked at 'msg', src/lib.rs:3:5`. */
const OLD_HEADER = /^thread '[^'\n]*'(?: \(\d+\))? panicked at '([\s\S]*)', ([^\n]*):(\d+):(\d+)[ \t]*$/m;
/** What the hook prints after the message: the backtrace hint, or the backtrace itself. */
const TRAILER = /\n(?:note: run with `RUST_BACKTRACE=[^\n]*|note: Some details are omitted[^\n]*|stack backtrace:)[\s\S]*$/;

/**
 * The panic message inside `text`: when it holds a `thread '…' panicked at …:` header, the text
 * after the first one, up to the line break before a `note: run with RUST_BACKTRACE…` line or a
 * backtrace that follows; otherwise `text` itself. CRLF is read as LF; without such a trailer,
 * a final line break is dropped (the one the hook prints after the message).
 * Note: the hook prints the message, then a line break, then the note: a message of its own
 *   ending with a line break keeps it when the note follows.
 */
export function panicMessage(text: string): string {
  let message = text.replace(/\r\n/g, "\n");
  const header = HEADER.exec(message);
  const old = header === null ? OLD_HEADER.exec(message) : null;
  if (header !== null) message = message.slice(header.index + header[0].length).replace(/^\n/, "");
  else if (old !== null) message = old[1]!;
  const trailer = TRAILER.exec(message);
  return trailer !== null ? message.slice(0, trailer.index) : message.replace(/\n$/, "");
}

/** The location the first panic header in `text` names (either form), or null when there is none. */
export function panicLocation(text: string): PanicLocation | null {
  const unix = text.replace(/\r\n/g, "\n");
  const header = HEADER.exec(unix);
  const m = header ?? OLD_HEADER.exec(unix);
  if (m === null) return null;
  const [path, line, column] = header !== null ? [m[1]!, m[2]!, m[3]!] : [m[2]!, m[3]!, m[4]!];
  return { path, line: Number(line), column: Number(column) };
}

/** A crate folder of cargo's registry, `burn-tensor-0.21.0`: the crate's name and a semver version. */
const REGISTRY_CRATE = /^(.+)-\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/;

/**
 * The files (repository paths) that a printed path stands for: those sharing with it the longest
 * run of trailing path components, at least the file name. A printed path may be
 * repository-relative (`crates/burn-tensor/src/x.rs`), absolute, under a git checkout
 * (`~/.cargo/git/checkouts/burn-…/<rev>/crates/burn-tensor/src/x.rs`) or under cargo's registry
 * (`…/index.crates.io-…/burn-tensor-0.21.0/src/x.rs`, where `burn-tensor-0.21.0` stands for a
 * folder `burn-tensor`), with `/` or `\`. Returns them sorted; none when no file has that name.
 *
 * Note: a registry crate's folder in the repository is usually named as the crate
 *   (`crates/burn-tensor/`); when it is not, the path inside the crate (`src/x.rs`) still
 *   decides, and several files may then share the longest suffix.
 */
export function resolvePath(printed: string, files: Iterable<string>): string[] {
  const want = printed.replace(/\\/g, "/").split("/").filter((c) => c !== "" && c !== ".");
  let best = 0;
  let found: string[] = [];
  for (const file of new Set(files)) {
    const have = file.split("/");
    let k = 0;
    while (k < want.length && k < have.length && sameComponent(want[want.length - 1 - k]!, have[have.length - 1 - k]!)) k++;
    if (k === 0 || k < best) continue;
    if (k > best) (best = k), (found = []);
    found.push(file);
  }
  return found.sort();
}

function sameComponent(printed: string, file: string): boolean {
  return printed === file || REGISTRY_CRATE.exec(printed)?.[1] === file;
}

/**
 * The number of literal characters in a pattern made by `composePattern`: escapes count as the
 * one character they stand for; groups, lookaheads, backreferences, `[\s\S]*?` holes and
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

/** The fewest literal characters a fragment must share with a record. */
const MIN_FRAGMENT = 4;

/**
 * How much of `text` is the record's own literal text, when `text` is a part of what a message
 * with these parts can print (a substring of some text the parts match): the most characters of
 * `text` that literal characters of the parts account for, the rest falling in holes or gaps,
 * and counting nothing for characters of `words` (std's text around the message, wherever it
 * stands in a literal) or of an optional group. Returns -1 when `text` is not such a part. Time
 * grows with the text times the parts' length.
 *
 * Note: computed as a walk of the parts' characters from any starting point, keeping at each
 *   point the best count so far; an optional group is read as present, since nothing follows it.
 */
export function fragmentScore(text: string, parts: readonly MessagePart[], words: readonly string[] = []): number {
  const flat = flattened(parts, words);
  const { kinds, units, weights } = flat;
  const m = kinds.length;
  const standing = standingScore(text, flat);
  if (standing >= 0) return standing;
  if (walkA.length <= m) (walkA = new Int32Array(2 * m + 2)), (walkB = new Int32Array(2 * m + 2)), (listA = new Int32Array(2 * m + 2)), (listB = new Int32Array(2 * m + 2)), (listC = new Int32Array(2 * m + 2));
  // Note: a row holds the best count at each point (-1: not reached) and, in order, the points
  //   reached; a step visits only those, as most points are not reached after the first unit.
  let best = walkA; // starting anywhere, nothing read yet
  let next = walkB;
  let reached = listA;
  let stepped = listB;
  let out = listC;
  best.fill(0, 0, m + 1);
  next.fill(-1, 0, m + 1);
  for (let j = 0; j <= m; j++) reached[j] = j;
  let n = m + 1;
  for (let t = 0; t < text.length; t++) {
    const c = text.charCodeAt(t);
    const space = isSpace(c);
    let k = 0; // the points stepped to, in order (each step moves a point on by one or keeps it)
    for (let a = 0; a < n; a++) {
      const j = reached[a]!;
      if (j === m) continue;
      const b = best[j]!;
      const kind = kinds[j]!;
      if (kind === 0) {
        if (units[j] !== c) continue;
        const v = b + weights[j]!;
        if (next[j + 1]! < 0) (next[j + 1] = v), (stepped[k++] = j + 1);
        else if (v > next[j + 1]!) next[j + 1] = v;
      } else if (kind === 2 || space) {
        if (next[j]! < 0) (next[j] = b), (stepped[k++] = j);
        else if (b > next[j]!) next[j] = b;
      }
    }
    if (k === 0) return -1;
    // A gap or hole may also be left without reading more: from each point in order, on through the gaps and holes it stands at.
    let p = 0;
    for (let a = 0; a < k; a++) {
      let j = stepped[a]!;
      if (p > 0 && out[p - 1]! >= j) continue;
      out[p++] = j;
      while (j < m && kinds[j] !== 0 && next[j]! > next[j + 1]!) (next[j + 1] = next[j]!), (out[p++] = ++j);
    }
    for (let a = 0; a < n; a++) best[reached[a]!] = -1;
    const row = next;
    next = best;
    best = row;
    const list = reached;
    reached = out;
    out = list;
    n = p;
  }
  return bestOf(best, reached, n);
}

/**
 * The score of `text` where it stands as it is in the literals with as many counted units as it
 * has (`fragmentBound`): no walk scores more. -1 where it does not.
 * Note: apart from `fragmentScore`, as is `bestOf`, so that the walk is compiled on what it reads most.
 */
function standingScore(text: string, { counted, literal, weights }: Flat): number {
  if (text.length === 0 || text.includes("\0")) return -1;
  const most = countedUnits(text, counted);
  for (let at = literal.indexOf(text); at >= 0; at = literal.indexOf(text, at + 1)) {
    let score = 0;
    for (let j = at; j < at + text.length; j++) score += weights[j]!;
    if (score === most) return score;
  }
  return -1;
}

/** The best count of the points reached, -1 when none is. */
function bestOf(best: Int32Array, reached: Int32Array, n: number): number {
  let score = -1;
  for (let a = 0; a < n; a++) if (best[reached[a]!]! > score) score = best[reached[a]!]!;
  return score;
}

/** The two rows of `fragmentScore`'s walk and its lists of points, kept between calls (grown as parts need). */
let walkA = new Int32Array(256);
let walkB = new Int32Array(256);
let listA = new Int32Array(256);
let listB = new Int32Array(256);
let listC = new Int32Array(256);

/**
 * At least the score `fragmentScore` gives `text` against these parts: of the text's code units
 * that the parts' literals count (weight 1), those inside a run of three that the parts' units
 * hold in a row, and at most two for each stretch of literal units the holes and gaps leave.
 * Time grows with the text only.
 * Note: a walk reads the text in runs, each along units in a row, and adds at most one unit's
 *   weight (0 or 1) for each code unit it reads; runs are parted by holes or gaps, so a stretch
 *   holds at most one of them, and every code unit of a run of three or more stands in three
 *   units in a row that equal the text's.
 */
export function fragmentBound(text: string, parts: readonly MessagePart[], words: readonly string[] = []): number {
  const { counted, triples, stretches } = flattened(parts, words);
  let covered = 0;
  let other = 0;
  let until = -1; // the text's code units before this one are in a run of three the units hold
  for (let t = 0; t < text.length; t++) {
    if (t + 2 < text.length && hasTriple(triples, text.charCodeAt(t), text.charCodeAt(t + 1), text.charCodeAt(t + 2))) until = t + 3;
    if (!isCounted(counted, text.charCodeAt(t))) continue;
    if (t < until) covered++;
    else other++;
  }
  return covered + Math.min(other, 2 * stretches);
}

/** Bits of a set of triples (`Flat.triples`). */
const TRIPLE_BITS = 4096;

/** Where three code units stand in a set of triples. */
function triple(a: number, b: number, c: number): number {
  return (a * 961 + b * 31 + c) & (TRIPLE_BITS - 1);
}

/** True when three code units may be a triple of the set. */
function hasTriple(triples: Uint32Array, a: number, b: number, c: number): boolean {
  const at = triple(a, b, c);
  return (triples[at >>> 5]! & (1 << (at & 31))) !== 0;
}

/** How many of the text's code units are in `counted`. */
function countedUnits(text: string, counted: Counted): number {
  let n = 0;
  for (let t = 0; t < text.length; t++) if (isCounted(counted, text.charCodeAt(t))) n++;
  return n;
}

/** A set of code units: those below 128 as bits, the others in a set. */
interface Counted {
  readonly ascii: Uint32Array;
  readonly other: ReadonlySet<number>;
}

/** True when `c` is in the set. */
function isCounted(counted: Counted, c: number): boolean {
  return c < 128 ? (counted.ascii[c >>> 5]! & (1 << (c & 31))) !== 0 : counted.other.has(c);
}

/** The parts as one sequence of literal code units (0), gaps (1) and holes (2), with each unit's weight (`fragmentScore`). */
interface Flat {
  readonly kinds: Int32Array;
  readonly units: Int32Array;
  readonly weights: Int32Array;
  /** The code units of weight 1 (`fragmentBound`). */
  readonly counted: Counted;
  /** The units as a string, a NUL for each gap or hole. */
  readonly literal: string;
  /**
   * Each three literal units in a row, as bits (`triple`), and how many stretches of literal units the gaps and holes leave (`fragmentBound`).
   * Note: two triples may share a bit; that only lets the bound count more.
   */
  readonly triples: Uint32Array;
  readonly stretches: number;
}

/** Parts flattened so far, by parts and then words (a dataset's parts are scored against many texts). */
const flatParts = new WeakMap<readonly MessagePart[], Map<readonly string[], Flat>>();

/** `Flat` of parts, read once per parts and words. */
function flattened(parts: readonly MessagePart[], words: readonly string[]): Flat {
  const byWords = flatParts.get(parts) ?? flatParts.set(parts, new Map()).get(parts)!;
  const known = byWords.get(words);
  if (known !== undefined) return known;
  // Note: two passes: the first counts the units, the second writes them into arrays of that length.
  let m = 0;
  const count = (ps: readonly MessagePart[]): void => {
    for (const p of ps) {
      if ("optional" in p) count(p.optional);
      else m += "lit" in p ? p.lit.length : 1;
    }
  };
  count(parts);
  const kinds = new Int32Array(m); // 0: a literal code unit, 1: a gap, 2: a hole
  const units = new Int32Array(m);
  const weights = new Int32Array(m);
  const literal: string[] = [];
  let at = 0;
  const flatten = (ps: readonly MessagePart[], weight: number) => {
    for (const p of ps) {
      if ("optional" in p) {
        flatten(p.optional, 0);
      } else if ("lit" in p) {
        const lit = p.lit;
        weights.fill(weight, at, at + lit.length);
        if (weight !== 0) for (const w of words) for (let k = lit.indexOf(w); k >= 0 && w !== ""; k = lit.indexOf(w, k + 1)) weights.fill(0, at + k, at + k + w.length);
        for (let i = 0; i < lit.length; i++) units[at + i] = lit.charCodeAt(i);
        literal.push(lit);
        at += lit.length;
      } else {
        kinds[at++] = "gap" in p ? 1 : 2;
        literal.push("\0");
      }
    }
  };
  flatten(parts, 1);
  const triples = new Uint32Array(TRIPLE_BITS / 32);
  const ascii = new Uint32Array(4);
  const other = new Set<number>();
  let stretches = 0;
  for (let i = 0; i < m; i++) {
    if (kinds[i] === 0 && (i === 0 || kinds[i - 1] !== 0)) stretches++;
    if (weights[i] === 1) {
      const c = units[i]!;
      if (c < 128) ascii[c >>> 5]! |= 1 << (c & 31);
      else other.add(c);
    }
    if (i + 2 >= m || kinds[i] !== 0 || kinds[i + 1] !== 0 || kinds[i + 2] !== 0) continue;
    const t = triple(units[i]!, units[i + 1]!, units[i + 2]!);
    triples[t >>> 5]! |= 1 << (t & 31);
  }
  const flat: Flat = { kinds, units, weights, counted: { ascii, other }, literal: literal.join(""), triples, stretches };
  byWords.set(words, flat);
  return flat;
}

/** The `Err` value that `Result::unwrap()` printed, and what names a record in it. */
interface ErrorValue {
  /** The variant its Debug form starts with (`TypeMismatch` of `TypeMismatch { … }`), or null. */
  readonly variant: string | null;
  /** The text of a string error (`"bad rank"` printed as Debug), or null. */
  readonly text: string | null;
}

const UNWRAP_ERR = /^called `Result::unwrap\(\)` on an `Err` value: ([\s\S]*)$/;

/** What an `unwrap()` on an `Err` printed in `message`, or null when it is not such a message. */
export function errorValue(message: string): ErrorValue | null {
  const m = UNWRAP_ERR.exec(message);
  if (m === null) return null;
  const debug = m[1]!.trim();
  const variant = /^([A-Z][A-Za-z0-9_]*)\s*(?:[({]|$)/.exec(debug)?.[1] ?? null;
  const str = /^"((?:[^"\\]|\\[\s\S])*)"$/.exec(debug);
  return { variant, text: str === null ? null : unescapeDebug(str[1]!) };
}

/** A string's Debug escapes undone: `\"`, `\\`, `\n`, `\t`, `\r`, `\0`, `\'`, `\u{…}`. */
function unescapeDebug(s: string): string {
  const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", "0": "\0" };
  return s.replace(/\\(u\{([0-9a-fA-F]{1,6})\}|[\s\S])/g, (_, e: string, code?: string) => (code !== undefined ? String.fromCodePoint(parseInt(code, 16)) : (simple[e] ?? e)));
}

/**
 * How a record names `variant`: 2 when it is its error class (`TensorError::TypeMismatch`), 1 when
 * its message holds it as a word (`TypeMismatch: …`), 0 when it does not.
 * Note: a panic's `errorClass` is null (the schema says so today); records of returned errors will name their type there.
 */
function namesVariant(record: CatalogRecord, variant: string): number {
  const errorClass: unknown = record.errorClass;
  if (typeof errorClass === "string" && (errorClass === variant || errorClass.endsWith(`::${variant}`))) return 2;
  return new RegExp(`(?<![A-Za-z0-9_])${variant}(?![A-Za-z0-9_])`).test(record.errorMessage) ? 1 : 0;
}

/** The rank of each way of matching, best first. */
const RANK: Readonly<Record<MatchHow, number>> = { whole: 0, error: 1, fragment: 2, location: 3 };

/**
 * The records that explain the panic in `text` (a message, or a block with the hook's header),
 * from the version named `selected` (default: the last of `versions`, which are in index order):
 * - `whole`: the record's pattern, anchored at both ends, matches the whole message;
 * - `error`: the message is an `unwrap()` on an `Err`, and the error's variant is the record's
 *   error class or named in its message, or the error is a string its pattern matches;
 * - `fragment`: the message is part of what the record prints, and more than half of it (and at
 *   least 4 characters) is the record's own literal text (std's words around it count nothing);
 * - `location`: a site of the record stands at the header's path and line, in any version (a
 *   record only an older version has is taken from the newest version that has it).
 * A record whose pattern has no literal text with a letter or digit (it matches any message, or
 * any with a `.`) is found only by its location. Ranked by how (in that order), then for whole matches the more specific pattern, then
 * a site at the location first, then the higher
 * score, then the more specific pattern (for fragments the less specific: less text around
 * the fragment), and the id. Pure: compiles each pattern once per call;
 * records with an invalid pattern are found only by their location.
 */
export function matchPanic(text: string, versions: readonly DatasetVersion[], selected: string | undefined = versions.at(-1)?.version): MatchResult {
  const message = panicMessage(text);
  const current = versions.find((v) => v.version === selected);
  if (current === undefined) return { message, version: null, location: null, matches: [] };
  const where = panicLocation(text);
  const location = where === null ? null : locate(where, versions);
  const atLocation = new Map<string, { version: string; occurrence: Occurrence; envelope: Envelope }>();
  if (location !== null) {
    for (const v of versions) {
      for (const e of v.envelopes) {
        const o = e.occurrences.find((x) => x.lineNumber === location.line && location.files.includes(x.filePath));
        // The selected version's own site wins; otherwise the newest version holding it.
        if (o !== undefined && atLocation.get(e.record.id)?.version !== selected) atLocation.set(e.record.id, { version: v.version, occurrence: o, envelope: e });
      }
    }
  }
  const error = errorValue(message);
  const matches: Match[] = [];
  const seen = new Set<string>();
  const consider = (envelope: Envelope, version: string) => {
    const r = envelope.record;
    if (seen.has(r.id)) return;
    seen.add(r.id);
    const here = atLocation.get(r.id);
    const found = textMatch(message, r, error, here !== undefined);
    if (found === null && here === undefined) return;
    const specificity = readPattern(r.messagePattern).literals;
    const occurrence = here?.version === version ? here.occurrence : envelope.occurrences[0]!;
    matches.push({ id: r.id, how: found?.how ?? "location", atLocation: here !== undefined, version, specificity, score: found?.score ?? 0, record: r, occurrence });
  };
  for (const e of current.envelopes) consider(e, current.version);
  for (const [, here] of atLocation) consider(here.envelope, here.version);
  // Note: of two fragments that cover as much of the text, the record with less text around it is the likelier.
  const bySpecificity = (a: Match, b: Match) => (a.how === "fragment" ? a.specificity - b.specificity : b.specificity - a.specificity);
  // Note: of two whole matches the one with more text of its own explains more (a wrapper's call
  //   beside the wrapper's own panic, whose site the location names): the location breaks ties.
  const wholeFirst = (a: Match, b: Match) => (a.how === "whole" && b.how === "whole" ? b.specificity - a.specificity : 0);
  matches.sort((a, b) => RANK[a.how] - RANK[b.how] || wholeFirst(a, b) || Number(b.atLocation) - Number(a.atLocation) || b.score - a.score || bySpecificity(a, b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { message, version: current.version, location, matches };
}

/** The files a location's path stands for in any version, and the versions with a site there. */
function locate(where: PanicLocation, versions: readonly DatasetVersion[]): LocationMatch {
  const files = resolvePath(
    where.path,
    versions.flatMap((v) => v.envelopes.flatMap((e) => e.occurrences.map((o) => o.filePath))),
  );
  const has = (v: DatasetVersion) => v.envelopes.some((e) => e.occurrences.some((o) => o.lineNumber === where.line && files.includes(o.filePath)));
  return { ...where, files, versions: versions.filter(has).map((v) => v.version) };
}

/** How the message matches a record by its text, or null. */
function textMatch(message: string, r: CatalogRecord, error: ErrorValue | null, here: boolean): { how: MatchHow; score: number } | null {
  const read = readPattern(r.messagePattern);
  // Note: a pattern that does not compile matches nothing; it is compiled only once a match needs it
  //   (`compiled`), and every match is returned only after it compiled.
  // Note: a pattern without literal text of its own (an optional `: <Debug>` is none) matches
  //   every message, and one whose literal text has no letter or digit (`{}.{}`, `{}: {}`) nearly
  //   every one: only its place says anything.
  const literal = read.speaks;
  if (!literal && !here) return null;
  if (holdsInOrder(message, read.required)) {
    const re = compiled(read);
    if (re === null) return null;
    if (re.test(message)) return { how: "whole", score: 0 };
  }
  if (error !== null) {
    const named = error.variant === null ? 0 : namesVariant(r, error.variant);
    if (named > 0) return compiled(read) === null ? null : { how: "error", score: named };
    if (error.text !== null && literal && compiled(read)?.test(error.text) === true) return { how: "error", score: 1 };
  }
  const parts = read.parts;
  if (parts === null || message.length < MIN_FRAGMENT) return null;
  const need = Math.max(MIN_FRAGMENT, Math.floor(message.length / 2) + 1);
  if (read.literals < need) return null;
  if (fragmentBound(message, parts, STD_WORDS) < need) return null;
  const score = fragmentScore(message, parts, STD_WORDS);
  return score >= need && compiled(read) !== null ? { how: "fragment", score } : null;
}

/** What matching reads of a pattern: its parts and literal counts (its anchored regex: `compiled`). */
interface ReadPattern {
  readonly pattern: string;
  readonly parts: MessagePart[] | null;
  readonly literals: number;
  /** True when its literal text outside the optional tail has a letter or digit. */
  readonly speaks: boolean;
  /** Its literal parts outside the optional tail, in order: a whole message holds each as it is (none when it has no parts). */
  readonly required: readonly string[];
}

/** The anchored regex of a pattern read, compiled on first use; null when it does not compile. */
function compiled(read: ReadPattern): RegExp | null {
  const known = regexes.get(read);
  if (known !== undefined) return known;
  let re: RegExp | null;
  try {
    re = anchored(read.pattern);
  } catch {
    re = null;
  }
  regexes.set(read, re);
  return re;
}

/** The regexes compiled so far, by pattern read. */
const regexes = new WeakMap<ReadPattern, RegExp | null>();

/** True when `text` holds each of `literals` as it is, one after another. */
function holdsInOrder(text: string, literals: readonly string[]): boolean {
  let at = 0;
  for (const lit of literals) {
    const found = text.indexOf(lit, at);
    if (found < 0) return false;
    at = found + lit.length;
  }
  return true;
}

/** The patterns read so far (a dataset's patterns are matched against many texts); emptied when it grows past `READ_PATTERNS`. */
const readPatterns = new Map<string, ReadPattern>();
const READ_PATTERNS = 65536;

/** `ReadPattern` of a pattern, read once. */
function readPattern(pattern: string): ReadPattern {
  const known = readPatterns.get(pattern);
  if (known !== undefined) return known;
  const parts = patternParts(pattern);
  // Note: the regex is the parts' (`composePattern`), whose literal text it matches as it is, holes and gaps between.
  const required = (parts ?? []).flatMap((p) => ("lit" in p ? [p.lit] : []));
  // Note: where the pattern does not decode, its literal text is taken to be the pattern itself.
  const read: ReadPattern = { pattern, parts, literals: patternLiterals(pattern), speaks: /[\p{L}\p{N}]/u.test(parts === null ? pattern : required.join("")), required };
  if (readPatterns.size >= READ_PATTERNS) readPatterns.clear();
  readPatterns.set(pattern, read);
  return read;
}

/** The most records `renderMatches` (and the site's search) lists; `--json` lists them all. */
const SHOWN = 20;

/** How each way of matching reads in a list of results. */
export const HOW_TEXT: Readonly<Record<MatchHow, string>> = {
  whole: "the whole message",
  error: "the error value",
  fragment: "a fragment of the message",
  location: "the location only",
};

/**
 * What a list of results shows, best first: the matches listed (fragments only when nothing
 * matched better), the first 20 of them shown, and how many fragments were left out. Pure.
 */
export function listedMatches(result: MatchResult): { listed: readonly Match[]; shown: readonly Match[]; fragments: number } {
  const better = result.matches.filter((m) => m.how !== "fragment");
  const listed = better.length > 0 ? better : result.matches;
  return { listed, shown: listed.slice(0, SHOWN), fragments: result.matches.length - listed.length };
}

/**
 * The result as text for a terminal: the location and the versions with a site there, then one
 * block per record (id and message, how it matched, location, URL), best first, at most 20.
 * Fragments are listed only when nothing matched better; otherwise a line counts them.
 */
export function renderMatches(result: MatchResult): string {
  let out = "";
  const loc = result.location;
  if (loc !== null) {
    const files = loc.files.length === 0 ? "no file of the dataset" : loc.files.join(", ");
    const versions = loc.versions.length === 0 ? "no version has a site there" : `a site there in ${loc.versions.join(", ")}`;
    out += `panicked at ${loc.path}:${loc.line}:${loc.column} → ${files}; ${versions}\n`;
  }
  const { listed: matches, shown, fragments } = listedMatches(result);
  if (matches.length === 0) return `${out}no record matches this message\n`;
  out += `${matches.length} record${matches.length === 1 ? "" : "s"} match${matches.length === 1 ? "es" : ""}, best first:\n`;
  for (const m of shown) {
    const how = `${HOW_TEXT[m.how]}${m.atLocation ? ", a site at the panic's location" : ""}${m.version === result.version ? "" : ` (in ${m.version})`}`;
    out += `\n${m.id}  ${m.record.errorMessage.replace(/\n/g, "\n" + " ".repeat(18))}\n  matched: ${how}\n  at ${m.occurrence.filePath}:${m.occurrence.lineNumber}\n  ${m.occurrence.githubUrl}\n`;
  }
  if (matches.length > SHOWN) out += `\n… and ${matches.length - SHOWN} more (--json lists them all)\n`;
  if (fragments > 0) out += `\n${fragments} more record${fragments === 1 ? " prints" : "s print"} this text inside a longer message (--json lists ${fragments === 1 ? "it" : "them"})\n`;
  return out;
}
