/**
 * An independent cross-check of extraction on a real repository: `git grep` with one regex per
 * panic kind finds the candidate lines, and this script's own rules (a small scanner for
 * comments and strings, std paths, `macro_rules!` matchers, test attributes and Cargo's layout)
 * decide which are non-test sites. It then runs the pipeline's extraction on the same tree and
 * prints both counts and every difference, with the line's text, for a reader to explain.
 *
 * Run: `node dist/scripts/crosscheck.js --git-dir <repo or mirror> --sha <40 hex> [--json]`.
 * Exit status: 0 when both agree, 1 when they differ, 2 on bad arguments.
 *
 * Note: nothing here imports the extractor's rules, lexer or test-code logic; it shares only the
 *   reading of blobs (read.ts) and calls `extractFile`/`applyTestModules` for the side it checks.
 */
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { applyTestModules, extractFile } from "../pipeline/extract.js";
import { readTree } from "../pipeline/read.js";
import type { FileSites, SiteKind } from "../pipeline/types.js";

/** One regex per kind (PCRE, for `git grep -P`), and how the name is written. */
const KINDS: readonly { kind: SiteKind; regex: string }[] = [
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
];

/** A candidate the grep found: file, 1-based line, 0-based UTF-16 offset of the name. */
interface Hit {
  readonly kind: SiteKind;
  readonly path: string;
  readonly line: number;
  readonly offset: number;
}

/** A site as this script judges it. */
interface Judged extends Hit {
  readonly verdict: "site" | "comment-or-string" | "not-std" | "definition" | "matcher" | "no-call";
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
    args = parseArgs({ options: { "git-dir": { type: "string" }, sha: { type: "string" }, json: { type: "boolean", default: false } } }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nusage: node dist/scripts/crosscheck.js --git-dir <dir> --sha <40 hex> [--json]\n`);
    return 2;
  }
  const gitDir = args["git-dir"];
  const sha = args.sha;
  if (gitDir === undefined || sha === undefined || !/^[0-9a-f]{40}$/.test(sha)) {
    process.stderr.write("usage: node dist/scripts/crosscheck.js --git-dir <dir> --sha <40 hex> [--json]\n");
    return 2;
  }

  const tree = await readTree({ gitDir, sha, include: ["**/*.rs"], exclude: [] });
  const texts = new Map(tree.files.map((f) => [f.path, f.text]));

  // The independent side.
  const hits: Hit[] = [];
  for (const { kind, regex } of KINDS) {
    for (const g of grep(gitDir, sha, regex)) {
      const text = texts.get(g.path);
      if (text === undefined) continue;
      const lineStart = lineOffset(text, g.line);
      const lineText = text.slice(lineStart, text.indexOf("\n", lineStart) >>> 0);
      // git counts bytes: convert the column to UTF-16, then step to the name itself.
      const col = Buffer.from(lineText, "utf8").subarray(0, g.column - 1).toString("utf8").length;
      const nameAt = lineText.indexOf(kind.replace(/-/g, "_"), col);
      hits.push({ kind, path: g.path, line: g.line, offset: lineStart + nameAt });
    }
  }
  const byFile = new Map<string, Hit[]>();
  for (const h of hits) byFile.set(h.path, [...(byFile.get(h.path) ?? []), h]);
  const judged: Judged[] = [];
  const declared = new Map<string, string[]>();
  for (const [path, fileHits] of byFile) {
    const text = texts.get(path)!;
    const mask = codeMask(text);
    const tests = testRanges(text, mask);
    if (tests.modules.length > 0) declared.set(path, tests.modules);
    const matchers = matcherRanges(text, mask);
    for (const h of fileHits) judged.push(judge(h, text, mask, matchers, testByPath(path) || tests.wholeFile || tests.ranges.some(([a, b]) => h.offset >= a && h.offset <= b)));
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
  const independent = judged.filter((j) => j.verdict === "site").map((j) => ({ ...j, test: j.test || ownedByTest(j.path) }));

  // The pipeline's side.
  const extracted: FileSites[] = [];
  for (const f of tree.files) extracted.push(await extractFile(f));
  const pipelineSites = applyTestModules(extracted).flatMap((r) => r.sites);

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
    const why = site ? `pipeline context ${site.context}` : allPipeline.has(k) ? "" : "not a pipeline site";
    const indWhy = ind ? `cross-check ${ind.verdict}${ind.test ? " (test)" : ""}` : "not found by grep";
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
    onlyPipeline: onlyPipeline.sort().map(explain),
    onlyCrosscheck: onlyIndependent.sort().map(explain),
  };
  if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    const { onlyPipeline: a, onlyCrosscheck: b, ...head } = report;
    process.stdout.write(`${JSON.stringify(head, null, 2)}\n`);
    process.stdout.write(`\nnon-test sites only the pipeline found (${a.length}):\n${a.map((d) => `  ${d.site}  [${d.crosscheck}]  ${d.line}`).join("\n")}\n`);
    process.stdout.write(`\nnon-test sites only the cross-check found (${b.length}):\n${b.map((d) => `  ${d.site}  [${d.pipeline}]  ${d.line}`).join("\n")}\n`);
  }
  return onlyPipeline.length + onlyIndependent.length === 0 ? 0 : 1;
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
