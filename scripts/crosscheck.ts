/**
 * An independent cross-check of extraction on a real repository: `git grep` with one regex per
 * site kind finds the candidate lines, and this script's own rules (a small scanner for
 * comments and strings, std paths, `macro_rules!` matchers, test attributes and Cargo's layout;
 * for returned errors, regexes over the call's text with its strings stood in for) decide which
 * are non-test sites. It then runs the pipeline's extraction on the same tree and
 * prints both counts and every difference, with the line's text, for a reader to explain.
 *
 * The message sources are checked the same way: the calls the config declares (`messageSources`
 * of its first target) and the calls of wrappers (functions whose text parameter a panic of
 * theirs prints), inferred again here from the function's header and body, are sites at their
 * message argument; and the panics whose message is only a name bound to a literal (`let`,
 * `const`) are compared as a set of their own.
 *
 * Run: `node dist/scripts/crosscheck.js --git-dir <repo or mirror> --sha <40 hex> [--config FILE] [--json]`.
 * Exit status: 0 when both agree, 1 when they differ, 2 on bad arguments.
 *
 * Note: nothing here imports the extractor's rules, lexer or test-code logic; it shares only the
 *   reading of blobs (read.ts) and calls `extractFile`/`applyTestModules` and the sources' tree
 *   pass (`MessageSources`) for the side it checks.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { applyTestModules, extractFile } from "../pipeline/extract.js";
import { packageRoot } from "../pipeline/paths.js";
import { readTree } from "../pipeline/read.js";
import type { Config, MessageSourceConfig } from "../pipeline/schema-types.generated.js";
import { MessageSources } from "../pipeline/sources/index.js";
import type { FileSites, SiteKind } from "../pipeline/types.js";

/**
 * One regex per kind (PCRE, for `git grep -P`; a returned error's, JavaScript's too); the name is
 * the kind's with `_` for `-`, unless `name` says.
 */
const KINDS: readonly { kind: SiteKind; regex: string; name?: RegExp }[] = [
  { kind: "panic", regex: String.raw`\bpanic\s*!` },
  { kind: "unreachable", regex: String.raw`\bunreachable\s*!` },
  { kind: "todo", regex: String.raw`\btodo\s*!` },
  { kind: "unimplemented", regex: String.raw`\bunimplemented\s*!` },
  { kind: "assert", regex: String.raw`\bassert\s*!` },
  { kind: "assert-eq", regex: String.raw`\bassert_eq\s*!` },
  { kind: "assert-ne", regex: String.raw`\bassert_ne\s*!` },
  { kind: "debug-assert", regex: String.raw`\bdebug_assert\s*!` },
  { kind: "debug-assert-eq", regex: String.raw`\bdebug_assert_eq\s*!` },
  { kind: "debug-assert-ne", regex: String.raw`\bdebug_assert_ne\s*!` },
  { kind: "expect", regex: String.raw`\.\s*expect\s*\(|^\s*expect\s*\(` },
  { kind: "expect-err", regex: String.raw`\.\s*expect_err\s*\(|^\s*expect_err\s*\(` },
  { kind: "error-attribute", regex: String.raw`#\s*\[\s*error\s*\(`, name: /error/ },
  { kind: "display-impl", regex: String.raw`\bwrite(?:ln)?\s*!|\.\s*write_(?:str|fmt)\s*\(`, name: /write(?:ln|_str|_fmt)?/ },
  { kind: "err-return", regex: String.raw`\bErr\s*\(`, name: /Err/ },
  { kind: "ok-or", regex: String.raw`\.\s*ok_or(?:_else)?\s*\(`, name: /ok_or(?:_else)?/ },
  { kind: "map-err", regex: String.raw`\.\s*map_err\s*\(`, name: /map_err/ },
];

/** The kinds of returned errors: judged by `judgeReturned`. */
const RETURNED: ReadonlySet<SiteKind> = new Set(["error-attribute", "display-impl", "err-return", "ok-or", "map-err"]);

/** A candidate the grep found: file, 1-based line, 0-based UTF-16 offset of the name. */
interface Hit {
  readonly kind: SiteKind;
  readonly path: string;
  readonly line: number;
  readonly offset: number;
}

/** A site as this script judges it. */
interface Judged extends Hit {
  readonly verdict: "site" | "comment-or-string" | "not-std" | "definition" | "matcher" | "no-call" | "not-an-error" | "no-text" | "pattern";
  readonly test: boolean;
}

// ---------------------------------------------------------------------------------------------
// The scanner: which offsets of a file are code (not comment, not string or char literal).
// ---------------------------------------------------------------------------------------------

/** A mask with 1 for every UTF-16 unit of `text` that is code. */
function codeMask(text: string): Uint8Array {
  const mask = new Uint8Array(text.length).fill(1);
  const blank = (from: number, to: number) => mask.fill(0, from, Math.min(to, text.length));
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      const stop = end < 0 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === "/" && next === "*") {
      let depth = 1;
      let j = i + 2;
      while (j < text.length && depth > 0) {
        if (text[j] === "/" && text[j + 1] === "*") (depth++, (j += 2));
        else if (text[j] === "*" && text[j + 1] === "/") (depth--, (j += 2));
        else j++;
      }
      blank(i, j);
      i = j;
    } else if (/[A-Za-z0-9_]/.test(text[i - 1] ?? "") && !/^[bcr]/.test(c)) {
      i++;
    } else if (/^(?:b|c)?r#*"/.test(text.slice(i, i + 300)) && !/[A-Za-z0-9_]/.test(text[i - 1] ?? "")) {
      const head = /^(?:b|c)?r(#*)"/.exec(text.slice(i, i + 300))!;
      const close = `"${head[1]}`;
      const end = text.indexOf(close, i + head[0].length);
      const stop = end < 0 ? text.length : end + close.length;
      blank(i, stop);
      i = stop;
    } else if ((c === '"' || ((c === "b" || c === "c") && next === '"')) && !/[A-Za-z0-9_]/.test(text[i - 1] ?? "")) {
      let j = i + (c === '"' ? 1 : 2);
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      blank(i, j + 1);
      i = j + 1;
    } else if (c === "'" || (c === "b" && next === "'")) {
      // A char literal (`'x'`, `'\n'`, `'\u{1F600}'`, `b'x'`) or a lifetime (`'a`): only the former is blanked.
      const at = c === "b" ? i + 1 : i;
      const m = /^'(?:\\(?:u\{[0-9A-Fa-f_]+\}|x[0-9A-Fa-f]{2}|.)|[^\\'\n])'/su.exec(text.slice(at, at + 16));
      if (m) {
        blank(i, at + m[0].length);
        i = at + m[0].length;
      } else i = at + 1;
    } else {
      i++;
    }
  }
  return mask;
}

/** Index of the bracket matching the one at `open` (code only), or -1. */
function matching(text: string, mask: Uint8Array, open: number): number {
  const pairs: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
  const stack: string[] = [];
  for (let i = open; i < text.length; i++) {
    if (!mask[i]) continue;
    const c = text[i]!;
    if (c in pairs) stack.push(pairs[c]!);
    else if (c === ")" || c === "]" || c === "}") {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/** The next code offset at or after `i` that is not white space. */
function nextCode(text: string, mask: Uint8Array, i: number): number {
  while (i < text.length && (!mask[i] || /\s/.test(text[i]!))) i++;
  return i;
}

// ---------------------------------------------------------------------------------------------
// Test code
// ---------------------------------------------------------------------------------------------

/** Cargo's layout: these folders and build scripts are not library code. */
function testByPath(path: string): boolean {
  const dirs = path.split("/").slice(0, -1);
  return dirs.includes("tests") || dirs.includes("benches") || dirs.includes("examples") || (path.endsWith("build.rs") && !dirs.includes("src") && path.split("/").at(-1) === "build.rs");
}

/** An attribute's text marks test-only code: `#[test]`-like, `#[cfg(test)]`, `#[cfg(all(…test…))]`. */
function testAttribute(attr: string): boolean {
  const inner = attr.replace(/^#!?\s*\[/, "").replace(/\]$/, "").replace(/\s+/g, "");
  if (/^(?:[A-Za-z_]\w*::)*(?:test|rstest|test_case|wasm_bindgen_test|quickcheck)\b/.test(inner)) return true;
  if (!inner.startsWith("cfg(")) return false;
  const pred = inner.slice(4, -1);
  if (pred === "test") return true;
  // all(…) containing `test` as a whole argument at any depth of all(…) only.
  let p = pred;
  while (p.startsWith("all(")) {
    const args = p.slice(4, -1);
    if (/(^|,)test(,|$)/.test(args)) return true;
    const nested = /(?:^|,)(all\(.*\))(?:,|$)/.exec(args);
    if (!nested) return false;
    p = nested[1]!;
  }
  return false;
}

/** Ranges of test-only items, and the names of `mod name;` declared test-only. */
function testRanges(text: string, mask: Uint8Array): { ranges: [number, number][]; modules: string[]; wholeFile: boolean } {
  const ranges: [number, number][] = [];
  const modules: string[] = [];
  let wholeFile = false;
  const attr = /#\s*!?\s*\[/g;
  for (let m = attr.exec(text); m !== null; m = attr.exec(text)) {
    if (!mask[m.index]) continue;
    const open = m.index + m[0].length - 1;
    const close = matching(text, mask, open);
    if (close < 0) continue;
    const attribute = text.slice(m.index, close + 1);
    if (!testAttribute(attribute)) continue;
    if (attribute.includes("!")) {
      if (/^#\s*!\s*\[/.test(attribute)) wholeFile = true;
      if (wholeFile) continue;
    }
    // The item the attribute stands on: skip further attributes, find its body `{…}` or its `;`.
    let i = close + 1;
    for (;;) {
      i = nextCode(text, mask, i);
      if (text[i] === "#") {
        const b = text.indexOf("[", i);
        const e = matching(text, mask, b);
        if (e < 0) break;
        i = e + 1;
        continue;
      }
      break;
    }
    const start = i;
    for (; i < text.length; i++) {
      if (!mask[i]) continue;
      const c = text[i]!;
      if (c === ";") {
        const mod = /^(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+([A-Za-z_]\w*)\s*;$/.exec(text.slice(start, i + 1));
        if (mod) modules.push(mod[1]!);
        ranges.push([start, i]);
        break;
      }
      if (c === "{") {
        const e = matching(text, mask, i);
        ranges.push([start, e < 0 ? text.length : e]);
        break;
      }
      if (c === "(" || c === "[") {
        const e = matching(text, mask, i);
        if (e < 0) break;
        i = e;
      }
    }
  }
  return { ranges, modules, wholeFile };
}

/** Ranges of `macro_rules!` matchers: a group at the top of a macro's body that `=>` follows. */
function matcherRanges(text: string, mask: Uint8Array): [number, number][] {
  const out: [number, number][] = [];
  const def = /\bmacro_rules\s*!\s*[A-Za-z_]\w*\s*/g;
  for (let m = def.exec(text); m !== null; m = def.exec(text)) {
    if (!mask[m.index]) continue;
    const open = m.index + m[0].length;
    const close = matching(text, mask, open);
    if (close < 0) continue;
    let i = nextCode(text, mask, open + 1);
    while (i < close) {
      const e = matching(text, mask, i);
      if (e < 0) break;
      const after = nextCode(text, mask, e + 1);
      if (text.startsWith("=>", after)) {
        out.push([i, e]);
        const body = nextCode(text, mask, after + 2);
        const be = matching(text, mask, body);
        if (be < 0) break;
        i = nextCode(text, mask, be + 1);
        if (text[i] === ";") i = nextCode(text, mask, i + 1);
      } else break;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Judging one hit
// ---------------------------------------------------------------------------------------------

const STD = /(?:^|[^\w$:])(?:::)?(?:std|core|alloc)\s*::\s*$|\$crate\s*::\s*$/;

function judge(hit: Hit, text: string, mask: Uint8Array, matchers: readonly [number, number][], test: boolean): Judged {
  const o = hit.offset;
  const method = hit.kind === "expect" || hit.kind === "expect-err";
  const name = hit.kind.replace(/-/g, "_");
  if (!mask[o]) return { ...hit, verdict: "comment-or-string", test };
  if (matchers.some(([a, b]) => o > a && o < b)) return { ...hit, verdict: "matcher", test };
  // The code right before the name, comments and strings blanked.
  const from = Math.max(0, o - 80);
  const before = [...text.slice(from, o)].map((c, k) => (mask[from + k] ? c : " ")).join("");
  if (method) {
    if (!/\.\s*$/.test(before)) return { ...hit, verdict: "no-call", test };
  } else {
    if (/\bmacro_rules\s*!\s*$/.test(before)) return { ...hit, verdict: "definition", test };
    if (/::\s*$/.test(before) && !STD.test(before)) return { ...hit, verdict: "not-std", test };
    if (/[.$]\s*$/.test(before)) return { ...hit, verdict: "not-std", test };
  }
  // The call needs its delimiter: `name!(`, `name![`, `name!{`, `.name(`.
  let i = o + name.length;
  while (/\s/.test(text[i] ?? "")) i++;
  if (!method) {
    if (text[i] !== "!") return { ...hit, verdict: "no-call", test };
    i++;
    while (/\s/.test(text[i] ?? "")) i++;
    if (!"([{".includes(text[i] ?? "x")) return { ...hit, verdict: "no-call", test };
  } else if (text[i] !== "(") return { ...hit, verdict: "no-call", test };
  return { ...hit, verdict: "site", test };
}

// ---------------------------------------------------------------------------------------------
// Returned errors: the call's text, its string literals stood in for by `S`
// ---------------------------------------------------------------------------------------------

/**
 * The text of `text[from, to)` as this script reads an expression: each `str` literal becomes
 * `S`, a byte or C string `B`, comments and white space go, a char literal `C`.
 */
function shape(text: string, mask: Uint8Array, from: number, to: number): string {
  let out = "";
  for (let i = from; i < to; ) {
    if (mask[i]) {
      if (!/\s/.test(text[i]!)) out += text[i];
      i++;
      continue;
    }
    let j = i;
    while (j < to && !mask[j]) j++;
    const run = text.slice(i, j);
    // A run of non-code is a literal or a comment (a literal may follow a comment in one run: rare in arguments).
    if (/^(?:r#*)?"/.test(run)) out += "S";
    else if (/^(?:b|c)r?#*"/.test(run)) out += "B";
    else if (/^b?'/.test(run)) out += "C";
    i = j;
  }
  return out;
}

/** Splits a shape at its top-level commas (a trailing comma adds nothing). */
function topLevel(s: string, separator = ","): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) depth--;
    else if (c === separator && depth === 0) (parts.push(s.slice(start, i)), (start = i + 1));
  }
  if (start < s.length) parts.push(s.slice(start));
  return parts;
}

/** The index of the bracket closing the one at `open` in a shape (string literals are `S` there), or -1. */
function closing(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if ("([{".includes(s[i]!)) depth++;
    else if (")]}".includes(s[i]!) && --depth === 0) return i;
  }
  return -1;
}

const CONVERSION = /(?:\.(?:into|to_string|to_owned|into_boxed_str)\(\))*$/;

/**
 * Whether a shape is a text made in place: `S` (with `.into()`, `.to_string()`, … after it),
 * `format!(S…)`, `String::from(<text>)`, or a constructor `Path(…)` / `Path { f: … }` (the last
 * segment capitalised, not `Some`, `Ok`, `Err`, `Box`, `Cow`, `Arc`, `Rc`) with exactly one text
 * among its fields.
 */
function isText(s0: string): boolean {
  const s = s0.replace(/^&+/, "").replace(CONVERSION, "");
  if (s === "S") return true;
  const format = /^(?:::)?(?:(?:std|alloc|core)::)?format!\(/.exec(s);
  if (format !== null) return s[format[0].length] === "S" && closing(s, format[0].length - 1) === s.length - 1;
  const from = /^(?:(?:std::)?string::)?String::from\(/.exec(s);
  if (from !== null) return closing(s, from[0].length - 1) === s.length - 1 && topLevel(s.slice(from[0].length, -1)).length === 1 && isText(s.slice(from[0].length, -1));
  const ctor = /^(?:::)?(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)([({])/.exec(s);
  if (ctor === null || !/^[A-Z]/.test(ctor[1]!) || ["Some", "Ok", "Err", "Box", "Cow", "Arc", "Rc"].includes(ctor[1]!)) return false;
  const open = ctor[0].length - 1;
  if (closing(s, open) !== s.length - 1) return false;
  const fields = topLevel(s.slice(open + 1, -1)).map((f) => (ctor[2] === "(" ? f : /^[A-Za-z_]\w*:(?!:)([\s\S]+)$/.exec(f)?.[1] ?? ""));
  return fields.filter(isText).length === 1;
}

/** The value of a closure shape (`|e|v`, `move||v`, `|_|{…;v}`), or null when it is none. */
function closureBody(s: string): string | null {
  const m = /^(?:move)?(?:\|\||\|[^|]*\|)([\s\S]*)$/.exec(s);
  if (m === null) return null;
  let body = m[1]!;
  if (body.startsWith("{") && closing(body, 0) === body.length - 1) body = topLevel(body.slice(1, -1), ";").at(-1) ?? "";
  return body === "" ? null : body;
}

/** The ranges of items `keyword Name … { … }` (their keyword to their closing brace). */
function blocks(text: string, mask: Uint8Array, head: RegExp): { start: number; open: number; close: number; m: RegExpExecArray }[] {
  const out: { start: number; open: number; close: number; m: RegExpExecArray }[] = [];
  head.lastIndex = 0;
  for (let m = head.exec(text); m !== null; m = head.exec(text)) {
    if (!mask[m.index]) continue;
    let open = m.index + m[0].length;
    while (open < text.length && !(mask[open] && (text[open] === "{" || text[open] === ";"))) open++;
    if (text[open] !== "{") continue;
    const close = matching(text, mask, open);
    if (close > 0) out.push({ start: m.index, open, close, m });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Message sources: calls the config declares, wrappers, messages held in names
// ---------------------------------------------------------------------------------------------

/** A site of a message source as this script finds it: the message argument's line. */
interface SourceHit {
  readonly kind: "declared-call" | "wrapper-call";
  readonly path: string;
  readonly line: number;
  /** Offset of the callee's name, for the test-code ranges. */
  readonly offset: number;
}

/** The code spans of the top-level arguments of the call whose `(` is at `open` (trimmed), or null when it never closes. */
function argumentSpans(text: string, mask: Uint8Array, open: number): [number, number][] | null {
  const close = matching(text, mask, open);
  if (close < 0) return null;
  const spans: [number, number][] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; i <= close; i++) {
    const c = text[i]!;
    if (mask[i] && "([{".includes(c)) depth++;
    else if (mask[i] && ")]}".includes(c) && i < close) depth--;
    if (i === close || (mask[i] && c === "," && depth === 0)) {
      let a = start;
      let b = i;
      while (a < b && /\s/.test(text[a]!)) a++;
      while (b > a && /\s/.test(text[b - 1]!)) b--;
      if (b > a) spans.push([a, b]);
      start = i + 1;
    }
  }
  return spans;
}

/** A message argument: a string literal, `format!(…)`, either after `&`, a literal made a `String` (`.to_string()`, `String::from(…)`, …). */
const MESSAGE_ARGUMENT = /^(?:&\s*)?(?:(?:r(#*)"[\s\S]*?"\1|"(?:[^"\\]|\\[\s\S])*")(?:\s*\.\s*(?:to_string|to_owned|into|as_str|as_ref)\s*\(\s*\))*|format\s*!\s*\([\s\S]*\)|String\s*::\s*from\s*\(\s*(?:r(#*)"[\s\S]*?"\2|"(?:[^"\\]|\\[\s\S])*")\s*\))$/;

/** The 1-based line of offset `at`. */
function lineAt(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < at; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** The crate a path belongs to by Cargo's layout: the folder holding its `src/`, `tests/`, `benches/` or `examples/`. */
function crateOf(path: string): string | null {
  const parts = path.split("/");
  const at = parts.findLastIndex((p, i) => i < parts.length - 1 && ["src", "tests", "benches", "examples"].includes(p));
  return at > 0 ? parts[at - 1]! : null;
}

/** Types a string literal can be passed for (as written, white space free). */
const TEXT_TYPE = /^(?:&(?:'\w+)?str|String|(?:std::)?(?:borrow::)?Cow<(?:'\w+,)?str>|impl(?:Into<String>|AsRef<str>|ToString|(?:(?:std|core|alloc)::)?(?:fmt::)?Display)|&(?:'\w+)?dyn(?:(?:std|core|alloc)::)?(?:fmt::)?Display)$/;

/** Panic macros and where their format string stands among their arguments. */
const FORMAT_AT: Readonly<Record<string, number>> = { panic: 0, unreachable: 0, todo: 0, unimplemented: 0, assert: 1, debug_assert: 1, assert_eq: 2, assert_ne: 2, debug_assert_eq: 2, debug_assert_ne: 2 };

/** A function whose text parameter one of its panics prints, as this script reads it. */
interface Wrapper {
  readonly path: string;
  readonly name: string;
  readonly method: boolean;
  readonly owner: string | null;
  readonly arity: number;
  readonly param: number;
}

/** The type an `impl` or `trait` header names (`impl<T> A for B<T>` → B), or null. */
function ownerOfHeader(header: string): string | null {
  const h = header.replace(/\s+/g, " ");
  const trait = /\btrait\s+([A-Za-z_]\w*)/.exec(h);
  if (trait) return trait[1]!;
  const forType = /\bfor\s+(?:[A-Za-z_]\w*\s*::\s*)*([A-Za-z_]\w*)/.exec(h);
  if (forType) return forType[1]!;
  const own = /\bimpl\s*(?:<(?:[^<>]|<[^<>]*>)*>)?\s*(?:[A-Za-z_]\w*\s*::\s*)*([A-Za-z_]\w*)/.exec(h);
  return own ? own[1]! : null;
}

/** The wrappers a file defines in library code (`isTest` tells test code by offset). */
function wrappersIn(path: string, text: string, mask: Uint8Array, isTest: (at: number) => boolean): Wrapper[] {
  const out: Wrapper[] = [];
  const impls: { start: number; end: number; owner: string | null }[] = [];
  for (const m of text.matchAll(/\b(?:impl|trait)\b/g)) {
    if (!mask[m.index]) continue;
    let i = m.index;
    while (i < text.length && !(mask[i] && (text[i] === "{" || text[i] === ";"))) i++;
    if (text[i] !== "{") continue;
    const end = matching(text, mask, i);
    if (end > 0) impls.push({ start: i, end, owner: ownerOfHeader(text.slice(m.index, i)) });
  }
  for (const m of text.matchAll(/\bfn\s+([A-Za-z_]\w*)\s*/g)) {
    if (!mask[m.index] || isTest(m.index)) continue;
    let open = m.index + m[0].length;
    const generics = new Set<string>();
    if (text[open] === "<") {
      let depth = 0;
      let j = open;
      for (; j < text.length; j++) {
        if (text[j] === "<") depth++;
        else if (text[j] === ">" && text[j - 1] !== "-" && --depth === 0) break;
      }
      for (const g of text.slice(open + 1, j).matchAll(/(?:^|,)\s*([A-Za-z_]\w*)\b(?!\s*:\s*')/g)) if (g[1] !== "const") generics.add(g[1]!);
      open = j + 1;
      while (/\s/.test(text[open] ?? "")) open++;
    }
    if (text[open] !== "(") continue;
    const params = argumentSpans(text, mask, open);
    if (params === null) continue;
    let method = false;
    const names: (string | null)[] = [];
    for (const [a, b] of params) {
      const param = text.slice(a, b);
      const colon = param.indexOf(":");
      const pattern = (colon < 0 ? param : param.slice(0, colon)).trim();
      if (/\bself\b/.test(pattern)) {
        method = true;
        continue;
      }
      const type = colon < 0 ? "" : param.slice(colon + 1).replace(/\s+/g, "");
      const name = /^(?:mut\s+)?([A-Za-z_]\w*)$/.exec(pattern)?.[1] ?? null;
      names.push(name !== null && (TEXT_TYPE.test(type) || generics.has(type)) ? name : null);
    }
    let body = matching(text, mask, open) + 1;
    while (body < text.length && !(mask[body] && (text[body] === "{" || text[body] === ";"))) body++;
    if (text[body] !== "{") continue;
    const end = matching(text, mask, body);
    const owner = impls.filter((b) => b.start < m.index && m.index < b.end).at(-1)?.owner ?? null;
    const printed = printedParams(text.slice(body, end), mask.subarray(body, end), names);
    for (const param of printed) out.push({ path, name: m[1]!, method, owner, arity: names.length, param });
  }
  return out;
}

/** The attributes and doc comments right before `at`, as text (where a `derive` would be). */
function attributesBefore(text: string, at: number): string {
  const before = text.slice(Math.max(0, at - 2000), at);
  return /(?:\s*(?:#\s*\[[^\]]*(?:\[[^\]]*\][^\]]*)*\]|\/\/[^\n]*|pub(?:\s*\([^)]*\))?))*\s*$/.exec(before)?.[0] ?? "";
}

/** True when the attributes before an item derive `Error` (`#[derive(Debug, thiserror::Error)]`). */
function derivesError(text: string, at: number): boolean {
  return /#\s*\[\s*derive\s*\([^)]*\bError\s*[,)]/.test(attributesBefore(text, at));
}

/** What one file's returned-error candidates are judged against, read once per file. */
interface ReturnedContext {
  readonly types: ReturnType<typeof blocks>;
  readonly displays: ReturnType<typeof blocks>;
  readonly fmts: ReturnType<typeof blocks>;
  readonly errorImpls: ReadonlySet<string>;
}

function returnedContext(text: string, mask: Uint8Array): ReturnedContext {
  return {
    types: blocks(text, mask, /\b(enum|struct)\s+([A-Za-z_]\w*)/g),
    displays: blocks(text, mask, /\bimpl\b(?:\s*<[^{;]*?>)?\s*((?:::)?(?:(?:std|core|alloc)::)?(?:fmt::)?)Display\s+for\s+(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)/g),
    fmts: blocks(text, mask, /\bfn\s+fmt\b/g),
    errorImpls: new Set([...text.matchAll(/\bimpl\s*(?:<[^{};]*?>\s*)?(?:(?:::)?(?:std|core)::)?(?:error::)?Error\s+for\s+(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)/g)].map((m) => m[1]!)),
  };
}

/** The verdict on a returned-error candidate that is code (see `judge`). */
function judgeReturned(hit: Hit, text: string, mask: Uint8Array, context: ReturnedContext): Judged["verdict"] {
  const o = hit.offset;
  const name = /^\w+/.exec(text.slice(o))![0];
  const callAt = (() => {
    let i = o + name.length;
    while (/\s/.test(text[i] ?? "")) i++;
    if (hit.kind === "display-impl" && text[i] === "!") for (i++; /\s/.test(text[i] ?? ""); ) i++;
    return text[i] === "(" ? i : -1;
  })();
  if (callAt < 0) return "no-call";
  const close = matching(text, mask, callAt);
  if (close < 0) return "no-call";
  const args = topLevel(shape(text, mask, callAt + 1, close));
  switch (hit.kind) {
    case "error-attribute": {
      // A variant's attribute lies in an enum's braces; a type's stands before its keyword.
      const inside = context.types.filter((b) => b.open < o && o < b.close).at(-1);
      let item: (typeof context.types)[number] | undefined = inside;
      if (inside !== undefined && inside.m[1] !== "enum") return "not-an-error";
      if (item === undefined) {
        const after = text.slice(close, close + 2000).replace(/^\)\s*\]/, "");
        const next = /^(?:\s*(?:#\s*\[[^\]]*\]|\/\/[^\n]*|pub(?:\s*\([^)]*\))?))*\s*(?:enum|struct)\b/.exec(after);
        if (next === null) return "not-an-error";
        item = context.types.find((b) => b.start === close + (text.slice(close, close + 2000).length - after.length) + next[0].length - /(?:enum|struct)$/.exec(next[0])![0].length);
        if (item === undefined) return "not-an-error";
      }
      return derivesError(text, item.start) ? "site" : "not-an-error";
    }
    case "display-impl": {
      const impl = context.displays.filter((b) => b.open < o && o < b.close).at(-1);
      if (impl === undefined || !["", "fmt::", "std::fmt::", "core::fmt::", "alloc::fmt::", "::std::fmt::", "::core::fmt::"].includes(impl.m[1]!.replace(/\s/g, ""))) return "not-an-error";
      const type = impl.m[2]!;
      if (!type.endsWith("Error") && !context.errorImpls.has(type)) return "not-an-error";
      if (!context.fmts.some((f) => f.open < o && o < f.close && impl.open < f.start && f.close < impl.close)) return "not-an-error";
      return name === "write" && args.length < 2 ? "no-text" : "site";
    }
    case "err-return": {
      // The code right before the name, comments and strings blanked.
      const from = Math.max(0, o - 64);
      const before = [...text.slice(from, o)].map((c, k) => (mask[from + k] ? c : " ")).join("");
      if (/[.$]\s*$/.test(before)) return "not-std";
      if (/::\s*$/.test(before) && !/(?:^|[^\w:])(?:(?:::)?(?:std|core)\s*::\s*result\s*::\s*)?Result\s*::\s*$/.test(before)) return "not-std";
      if (args.length !== 1 || !isText(args[0]!)) return "no-text";
      if (args[0] === "S" && /^\s*(?:=>|=(?!=)|\|(?!\|)|if\b)/.test(text.slice(close + 1, close + 8))) return "pattern";
      return "site";
    }
    default: {
      if (args.length !== 1) return "no-text";
      const value = name === "ok_or" ? args[0]! : closureBody(args[0]!);
      return value !== null && isText(value) ? "site" : "no-text";
    }
  }
}

/**
 * Which of `names` (parameters; null: not text) the panics and `.expect`s in `body` print as
 * text: one entry per panic and parameter it prints (panics written alike count once).
 */
function printedParams(body: string, mask: Uint8Array, names: readonly (string | null)[]): number[] {
  const printed = new Map<string, number>();
  const bare = (arg: string, name: string) => new RegExp(`^(?:&\\s*\\*?\\s*)?${name}(?:\\s*\\.\\s*(?:as_str|as_ref|to_string|to_owned|into)\\s*\\(\\s*\\))*$`).test(arg);
  const captures = (fmt: string, name: string) => fmt.includes(`{${name}}`);
  for (const m of body.matchAll(/\b(panic|unreachable|todo|unimplemented|assert|debug_assert|assert_eq|assert_ne|debug_assert_eq|debug_assert_ne)\s*!\s*([(\[{])|\.\s*(expect|expect_err)\s*\(/g)) {
    if (!mask[m.index + (m[3] ? 1 : 0)] || (m[1] !== undefined && /[\w.:$]\s*$/.test(body.slice(Math.max(0, m.index - 2), m.index)))) continue;
    const open = m.index + m[0].length - 1;
    const args = argumentSpans(body, mask, open)?.map(([a, b]) => body.slice(a, b));
    if (args === undefined) continue;
    names.forEach((name, k) => {
      if (name === null) return;
      if (m[3] !== undefined) {
        const inner = /^&?\s*format\s*!\s*\(\s*("(?:[^"\\]|\\[\s\S])*")/.exec(args[0] ?? "");
        if (args.length === 1 && (bare(args[0]!, name) || (inner !== null && captures(inner[1]!, name)))) printed.set(`${k} ${m[3]} ${args.join(",").replace(/\s+/g, "")}`, k);
        return;
      }
      const fmt = args[FORMAT_AT[m[1]!]!];
      if (fmt === undefined || !fmt.startsWith('"')) return;
      const rest = args.slice(FORMAT_AT[m[1]!]! + 1);
      if (captures(fmt, name) || (/\{\d*\}/.test(fmt) && rest.some((a) => bare(a, name)) && !rest.some((a) => a.startsWith(`${name}:`)))) printed.set(`${k} ${m[1]} ${[fmt, ...rest].join(",").replace(/\s+/g, "")}`, k);
    });
  }
  return [...printed.values()];
}

/** The calls of `wrappers` with a message argument in one file, by the rules their definitions allow. */
function wrapperCalls(path: string, text: string, mask: Uint8Array, wrappers: readonly Wrapper[]): SourceHit[] {
  const out: SourceHit[] = [];
  const crate = crateOf(path);
  const names = [...new Set(wrappers.map((w) => w.name))];
  for (const name of names) {
    for (const m of text.matchAll(new RegExp(`\\b${name}\\s*(?:::\\s*<[^()]*>\\s*)?\\(`, "g"))) {
      if (!mask[m.index]) continue;
      const before = text.slice(Math.max(0, m.index - 120), m.index);
      if (/\bfn\s+$/.test(before) || /!\s*$/.test(text.slice(m.index, m.index + m[0].length))) continue;
      const method = /\.\s*$/.test(before);
      const qualifier = /([A-Za-z_]\w*)\s*::\s*$/.exec(before)?.[1] ?? null;
      const args = argumentSpans(text, mask, m.index + m[0].length - 1);
      if (args === null) continue;
      const fits = wrappers.filter((w) => w.name === name && w.arity === args.length && (w.method ? method : !method && (w.owner !== null ? qualifier === w.owner || (qualifier === "Self" && w.path === path) : qualifier === null || !/^[A-Z]/.test(qualifier))));
      const own = fits.filter((w) => crateOf(w.path) === crate);
      const usable = own.length > 0 ? own : fits.filter((w) => {
        const ident = (crateOf(w.path) ?? "").replace(/-/g, "_");
        return ident !== "" && (w.method ? new RegExp(`\\buse\\s+(?:::)?${ident}\\b`).test(text) : new RegExp(`\\buse\\s+(?:::)?${ident}\\b[^;]*(?:\\b${name}\\b|\\*)`).test(text) || new RegExp(`\\b${ident}\\s*::(?:\\s*\\w+\\s*::)*\\s*${name}\\s*\\(`).test(text));
      });
      // One site per text the call can print: each panic of a wrapper is one.
      for (const w of usable) {
        const arg = args[w.param];
        if (arg !== undefined && MESSAGE_ARGUMENT.test(text.slice(arg[0], arg[1]))) out.push({ kind: "wrapper-call", path, line: lineAt(text, arg[0]), offset: m.index });
      }
    }
  }
  return out;
}

/** The calls a config declares (`TensorError::new`, `fail`, `.fail`) with a message argument, in one file. */
function declaredCalls(path: string, text: string, mask: Uint8Array, sources: readonly MessageSourceConfig[]): SourceHit[] {
  const out: SourceHit[] = [];
  for (const source of sources) {
    const [head, name] = source.call.includes("::") ? source.call.split("::") : source.call.startsWith(".") ? [".", source.call.slice(1)] : [null, source.call];
    const callee = head === "." ? `\\.\\s*${name}` : head !== null ? `\\b${head}\\s*::\\s*${name}` : `(?<![.\\w])(?:[A-Za-z_]\\w*\\s*::\\s*)*${name}`;
    for (const m of text.matchAll(new RegExp(`${callee}\\s*\\(`, "g"))) {
      if (!mask[m.index + (head === "." ? 1 : 0)]) continue;
      const args = argumentSpans(text, mask, m.index + m[0].length - 1);
      const arg = args?.[source.argument ?? 0];
      if (arg !== undefined && MESSAGE_ARGUMENT.test(text.slice(arg[0], arg[1]))) out.push({ kind: "declared-call", path, line: lineAt(text, arg[0]), offset: m.index });
    }
  }
  return out;
}

/**
 * Panics of library code whose message reads a name bound to a literal: `.expect(NAME)`,
 * `panic!("{}", NAME)`, `panic!("{NAME}")`, `panic!("{NAME}: {e}")` (and the other kinds' same forms), with the nearest
 * `let NAME = "…";` of the function before them in a block still open, or else the file's
 * `const`/`static` items of that name, all of one literal; by `path:line:kind`.
 */
function boundPanics(path: string, text: string, mask: Uint8Array, sites: readonly Judged[]): string[] {
  const out: string[] = [];
  const constants = (name: string): string | null => {
    const values = new Set<string>();
    for (const m of text.matchAll(new RegExp(`\\b(?:const|static)\\s+(?:mut\\s+)?${name}\\s*:\\s*&\\s*(?:'\\w+\\s+)?str\\s*=\\s*("(?:[^"\\\\]|\\\\[\\s\\S])*")\\s*;`, "g"))) if (mask[m.index]) values.add(m[1]!);
    return values.size === 1 ? [...values][0]! : null;
  };
  for (const site of sites) {
    const name0 = site.kind.replace(/-/g, "_");
    let paren = site.offset + name0.length;
    while (paren < text.length && !"([{".includes(text[paren]!)) paren++;
    const args = argumentSpans(text, mask, paren)?.map(([a, b]) => text.slice(a, b));
    if (args === undefined) continue;
    const at = site.kind === "expect" || site.kind === "expect-err" ? -1 : (FORMAT_AT[name0] ?? 0);
    const fmt = at < 0 ? null : args[at];
    const rest = at < 0 ? args : args.slice(at + 1);
    // The names read: `.expect`'s one argument; a format string's arguments that are a name alone, and its plain `{NAME}` captures.
    const names = at < 0 ? (args.length === 1 && /^[A-Za-z_]\w*$/.test(args[0]!) ? [args[0]!] : []) : fmt == null || !fmt.startsWith('"') ? [] : [...rest.filter((r) => /^[A-Za-z_]\w*$/.test(r)), ...[...fmt.replace(/\{\{|\}\}/g, "").matchAll(/\{([A-Za-z_]\w*)\}/g)].map((m) => m[1]!)];
    if (names.some((name) => bound(name, site.offset))) out.push(`${path}:${site.line}:${site.kind}`);
  }
  return out;

  /** True when `name`, read at `offset`, holds a literal there: the nearest `let` of it in a block still open, else (not a parameter) the file's constants of that name, all of one literal. */
  function bound(name: string, offset: number): boolean {
    const fnAt = [...text.slice(0, offset).matchAll(/\bfn\s+[A-Za-z_]\w*/g)].filter((m) => mask[m.index]).at(-1)?.index ?? 0;
    const paramsOpen = text.indexOf("(", fnAt);
    const params = (paramsOpen < 0 ? null : argumentSpans(text, mask, paramsOpen)) ?? [];
    const isParam = params.some(([a, b]) => new RegExp(`^(?:mut\\s+)?${name}\\s*:`).test(text.slice(a, b)));
    const lets = [...text.slice(fnAt, offset).matchAll(new RegExp(`\\blet\\s+(?:mut\\s+)?${name}\\b\\s*(?::[^=;]*)?=\\s*([^;]*);`, "g"))].filter((m) => mask[fnAt + m.index]);
    const last = lets.at(-1);
    let inScope = false;
    if (last !== undefined) {
      let depth = 0;
      inScope = true;
      for (let i = fnAt + last.index; i < offset; i++) {
        if (!mask[i]) continue;
        if (text[i] === "{") depth++;
        else if (text[i] === "}" && --depth < 0) inScope = false;
      }
    }
    return inScope ? /^"(?:[^"\\]|\\[\s\S])*"$/.test(last![1]!.trim()) : !isParam && constants(name) !== null;
  }
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

function grep(gitDir: string, sha: string, regex: string): { path: string; line: number; column: number }[] {
  let out = "";
  try {
    out = execFileSync("git", ["--git-dir", gitDir, "grep", "-P", "-I", "-n", "-o", "--column", "-e", regex, sha, "--", "*.rs"], { encoding: "utf8", maxBuffer: 1 << 28 });
  } catch (error) {
    if ((error as { status?: number }).status === 1) return []; // no match
    throw error;
  }
  return out
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const rest = l.slice(sha.length + 1);
      const m = /^(.*):(\d+):(\d+):/.exec(rest)!;
      return { path: m[1]!, line: Number(m[2]), column: Number(m[3]) };
    });
}

const key = (h: { path: string; line: number; kind: string }) => `${h.path}:${h.line}:${h.kind}`;

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({ options: { "git-dir": { type: "string" }, sha: { type: "string" }, config: { type: "string" }, json: { type: "boolean", default: false } } }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nusage: node dist/scripts/crosscheck.js --git-dir <dir> --sha <40 hex> [--config FILE] [--json]\n`);
    return 2;
  }
  const gitDir = args["git-dir"];
  const sha = args.sha;
  if (gitDir === undefined || sha === undefined || !/^[0-9a-f]{40}$/.test(sha)) {
    process.stderr.write("usage: node dist/scripts/crosscheck.js --git-dir <dir> --sha <40 hex> [--config FILE] [--json]\n");
    return 2;
  }
  const configFile = args.config ?? path.join(packageRoot(), "config.json");
  const sources: MessageSourceConfig[] = (JSON.parse(readFileSync(configFile, "utf8")) as Config).targets[0]?.messageSources ?? [];

  const tree = await readTree({ gitDir, sha, include: ["**/*.rs"], exclude: [] });
  const texts = new Map(tree.files.map((f) => [f.path, f.text]));

  // The independent side.
  const hits: Hit[] = [];
  for (const { kind, regex, name } of KINDS) {
    for (const g of grep(gitDir, sha, regex)) {
      const text = texts.get(g.path);
      if (text === undefined) continue;
      const lineStart = lineOffset(text, g.line);
      const lineText = text.slice(lineStart, text.indexOf("\n", lineStart) >>> 0);
      // git counts bytes: convert the column to UTF-16, then step to the name itself.
      const col = Buffer.from(lineText, "utf8").subarray(0, g.column - 1).toString("utf8").length;
      if (name !== undefined) {
        // Note: after a line's first match `git grep -o --column` may give a column past the match;
        //   a returned error's candidates are read off the line again, once per line.
        if (hits.some((h) => h.kind === kind && h.path === g.path && h.line === g.line)) continue;
        for (const m of lineText.matchAll(new RegExp(regex, "g"))) hits.push({ kind, path: g.path, line: g.line, offset: lineStart + m.index + m[0].search(name) });
        continue;
      }
      const nameAt = lineText.indexOf(kind.replace(/-/g, "_"), col);
      hits.push({ kind, path: g.path, line: g.line, offset: lineStart + nameAt });
    }
  }
  const byFile = new Map<string, Hit[]>();
  for (const h of hits) byFile.set(h.path, [...(byFile.get(h.path) ?? []), h]);
  const judged: Judged[] = [];
  const declared = new Map<string, string[]>();
  const masks = new Map<string, { mask: Uint8Array; tests: ReturnType<typeof testRanges> }>();
  const scanned = (p: string) => {
    let known = masks.get(p);
    if (known === undefined) {
      const mask = codeMask(texts.get(p)!);
      known = { mask, tests: testRanges(texts.get(p)!, mask) };
      masks.set(p, known);
    }
    return known;
  };
  const testAt = (p: string, at: number) => {
    const { tests } = scanned(p);
    return testByPath(p) || tests.wholeFile || tests.ranges.some(([a, b]) => at >= a && at <= b);
  };
  for (const [path, fileHits] of byFile) {
    const text = texts.get(path)!;
    const { mask, tests } = scanned(path);
    if (tests.modules.length > 0) declared.set(path, tests.modules);
    const matchers = matcherRanges(text, mask);
    let returned: ReturnedContext | undefined;
    for (const h of fileHits) {
      const test = testAt(path, h.offset);
      if (!RETURNED.has(h.kind)) judged.push(judge(h, text, mask, matchers, test));
      else judged.push({ ...h, test, verdict: mask[h.offset] ? judgeReturned(h, text, mask, (returned ??= returnedContext(text, mask))) : "comment-or-string" });
    }
  }
  // Test-only module declarations in files with no hit count too.
  for (const f of tree.files) {
    if (declared.has(f.path) || !/\bmod\b/.test(f.text)) continue;
    const mods = testRanges(f.text, codeMask(f.text)).modules;
    if (mods.length > 0) declared.set(f.path, mods);
  }
  const ownedByTest = (p: string) =>
    [...declared].some(([decl, names]) => {
      const dir = decl.slice(0, decl.lastIndexOf("/") + 1);
      const file = decl.slice(decl.lastIndexOf("/") + 1);
      const base = /^(?:lib|main|mod)\.rs$/.test(file) ? dir : `${dir}${file.slice(0, -3)}/`;
      return names.some((n) => p === `${base}${n}.rs` || p.startsWith(`${base}${n}/`));
    });
  const panicSites = judged.filter((j) => j.verdict === "site").map((j) => ({ ...j, test: j.test || ownedByTest(j.path) }));
  // The message sources: wrappers of library code (files with panic sites), their calls and the declared calls in any file.
  const wrappers = [...byFile.keys()].flatMap((p) => wrappersIn(p, texts.get(p)!, scanned(p).mask, (at) => testAt(p, at) || ownedByTest(p)));
  const sourceHits: SourceHit[] = [];
  for (const f of tree.files) {
    const calls = wrappers.filter((w) => f.text.includes(w.name));
    if (calls.length > 0) sourceHits.push(...wrapperCalls(f.path, f.text, scanned(f.path).mask, calls));
    const named = sources.filter((s) => f.text.includes(s.call.slice(s.call.lastIndexOf(":") + 1).replace(/^\./, "")));
    if (named.length > 0) sourceHits.push(...declaredCalls(f.path, f.text, scanned(f.path).mask, named));
  }
  const independent = [...panicSites, ...sourceHits.map((h) => ({ ...h, test: testAt(h.path, h.offset) || ownedByTest(h.path) }))];
  const boundIndependent = [...byFile.keys()].flatMap((p) => boundPanics(p, texts.get(p)!, scanned(p).mask, panicSites.filter((s) => s.path === p && !s.test))).sort();

  // The pipeline's side.
  const extracted: FileSites[] = [];
  for (const f of tree.files) extracted.push(await extractFile(f));
  const withSources = await new MessageSources(extracted, sources).withSites(extracted, async (paths) => paths.map((p) => texts.get(p)!));
  const pipelineSites = applyTestModules(withSources).flatMap((r) => r.sites);
  const boundPipeline = pipelineSites.filter((s) => s.context === "library" && s.source?.via === "binding").map((s) => key(s)).sort();

  const pipeNonTest = pipelineSites.filter((s) => s.context === "library");
  const indNonTest = independent.filter((s) => !s.test);
  const count = <T extends { path: string; line: number; kind: string }>(xs: readonly T[]) => {
    const m = new Map<string, number>();
    for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
    return m;
  };
  const pc = count(pipeNonTest);
  const ic = count(indNonTest);
  const onlyPipeline: string[] = [];
  const onlyIndependent: string[] = [];
  for (const [k, n] of pc) for (let i = ic.get(k) ?? 0; i < n; i++) onlyPipeline.push(k);
  for (const [k, n] of ic) for (let i = pc.get(k) ?? 0; i < n; i++) onlyIndependent.push(k);
  const allPipeline = count(pipelineSites);
  const explain = (k: string) => {
    const [path, line, kind] = splitKey(k);
    const text = texts.get(path) ?? "";
    const lineText = text.slice(lineOffset(text, line), text.indexOf("\n", lineOffset(text, line)) >>> 0).trim();
    const site = pipelineSites.find((s) => s.path === path && s.line === line && s.kind === kind);
    const ind = judged.find((j) => j.path === path && j.line === line && j.kind === kind);
    const source = independent.find((j) => j.path === path && j.line === line && j.kind === kind && !("verdict" in j));
    const why = site ? `pipeline context ${site.context}` : allPipeline.has(k) ? "" : "not a pipeline site";
    const indWhy = ind ? `cross-check ${ind.verdict}${ind.test ? " (test)" : ""}` : source ? `cross-check source site${source.test ? " (test)" : ""}` : "not found by grep";
    return { site: k, pipeline: why, crosscheck: indWhy, line: lineText.slice(0, 160) };
  };

  const tally = (xs: readonly { kind: string }[]) => Object.fromEntries([...xs.reduce((m, x) => m.set(x.kind, (m.get(x.kind) ?? 0) + 1), new Map<string, number>())].sort());
  const report = {
    sha,
    files: tree.files.length,
    pipeline: {
      sites: pipelineSites.length,
      nonTest: pipeNonTest.length,
      byKind: tally(pipeNonTest),
      byContext: Object.fromEntries([...pipelineSites.reduce((m, s) => m.set(s.context, (m.get(s.context) ?? 0) + 1), new Map<string, number>())].sort()),
      inTokenTrees: pipelineSites.filter((s) => s.inTokenTree).length,
      nonTestInTokenTrees: pipeNonTest.filter((s) => s.inTokenTree).length,
      parseErrorFiles: extracted.filter((r) => r.parseErrors).map((r) => r.path),
    },
    crosscheck: { grepHits: hits.length, sites: independent.length, nonTest: indNonTest.length, byKind: tally(indNonTest), rejected: tally(judged.filter((j) => j.verdict !== "site").map((j) => ({ kind: j.verdict }))), rejectedSamples: samples(judged, texts) },
    sources: { declared: sources.map((s) => s.call), wrappers: [...new Set(wrappers.map((w) => `${w.path}: ${w.owner === null ? "" : `${w.owner}::`}${w.name}`))].sort(), boundPanics: { pipeline: boundPipeline.length, crosscheck: boundIndependent.length } },
    onlyPipeline: onlyPipeline.sort().map(explain),
    onlyCrosscheck: onlyIndependent.sort().map(explain),
    boundOnlyPipeline: boundPipeline.filter((k) => !boundIndependent.includes(k)),
    boundOnlyCrosscheck: boundIndependent.filter((k) => !boundPipeline.includes(k)),
  };
  if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    const { onlyPipeline: a, onlyCrosscheck: b, boundOnlyPipeline: c, boundOnlyCrosscheck: d, ...head } = report;
    process.stdout.write(`${JSON.stringify(head, null, 2)}\n`);
    process.stdout.write(`\nnon-test sites only the pipeline found (${a.length}):\n${a.map((x) => `  ${x.site}  [${x.crosscheck}]  ${x.line}`).join("\n")}\n`);
    process.stdout.write(`\nnon-test sites only the cross-check found (${b.length}):\n${b.map((x) => `  ${x.site}  [${x.pipeline}]  ${x.line}`).join("\n")}\n`);
    process.stdout.write(`\npanics reading a bound literal only the pipeline found (${c.length}):\n${c.map((k) => `  ${k}`).join("\n")}\n`);
    process.stdout.write(`\npanics reading a bound literal only the cross-check found (${d.length}):\n${d.map((k) => `  ${k}`).join("\n")}\n`);
  }
  return onlyPipeline.length + onlyIndependent.length + report.boundOnlyPipeline.length + report.boundOnlyCrosscheck.length === 0 ? 0 : 1;
}

/** Up to 3 rejected hits per verdict, with their line, so a reader can see what each filter removes. */
function samples(judged: readonly Judged[], texts: ReadonlyMap<string, string>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const j of judged) {
    if (j.verdict === "site") continue;
    const list = (out[j.verdict] ??= []);
    if (list.length >= 3) continue;
    const text = texts.get(j.path) ?? "";
    const start = lineOffset(text, j.line);
    list.push(`${j.path}:${j.line}: ${text.slice(start, text.indexOf("\n", start) >>> 0).trim().slice(0, 120)}`);
  }
  return out;
}

/** Offset of the start of 1-based `line`. */
function lineOffset(text: string, line: number): number {
  let at = 0;
  for (let l = 1; l < line; l++) at = text.indexOf("\n", at) + 1;
  return at;
}

function splitKey(k: string): [string, number, string] {
  const m = /^(.*):(\d+):([a-z-]+)$/.exec(k)!;
  return [m[1]!, Number(m[2]), m[3]!];
}

process.exitCode = await main();
