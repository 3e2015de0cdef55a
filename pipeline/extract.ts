/**
 * Stage 3, extract: the panic sites of one Rust file. Pure: text in, sites out.
 *
 * Note: candidates are found by a text scan and each is looked up in the syntax tree
 * (`descendantForIndex`) instead of running a whole-tree query: the scan is cheap, files without
 * candidate text are never parsed, and a macro's name inside another macro's token tree (which
 * tree-sitter leaves as flat tokens) is found the same way as a real invocation.
 */
import Parser from "tree-sitter";
import Rust from "tree-sitter-rust";
import { MACRO_RULES, METHOD_RULES, type Rule } from "./rules/index.js";
import { readDelimited, skipTrivia, splitArgs } from "./tokens.js";
import type { FileSites, Site, SiteContext } from "./types.js";

/** Bumped whenever extraction can give other sites for the same text (it keys the cache). */
export const EXTRACTOR_VERSION = 1;

const MACRO_NAMES = [...MACRO_RULES.keys()].sort((a, b) => b.length - a.length);
const CANDIDATE = new RegExp(`\\b(${MACRO_NAMES.join("|")})\\s*!|\\.\\s*(${[...METHOD_RULES.keys()].join("|")})\\s*\\(`, "dg");

/** Paths a macro may be called through and still be std's. */
const STD_PATHS = new Set(["std", "core", "alloc", "$crate", "::std", "::core"]);

/** Nodes whose text is never code. */
const NOT_CODE = new Set(["line_comment", "block_comment", "doc_comment", "string_literal", "raw_string_literal", "string_content", "char_literal", "escape_sequence"]);

/** A parser per thread: tree-sitter parsers are reusable but not shareable. */
export function createParser(): Parser {
  const parser = new Parser();
  parser.setLanguage(Rust as unknown as Parser.Language);
  return parser;
}

/** True when the text holds anything that could be a panic site: others need no parse. */
export function hasCandidates(text: string): boolean {
  CANDIDATE.lastIndex = 0;
  return CANDIDATE.test(text);
}

/**
 * The sites of one file, in source order. Parses only when the text has candidates.
 * Never throws on bad Rust: sites inside ERROR nodes are still read.
 */
export function extractFile(file: { readonly path: string; readonly blob: string; readonly text: string }, parser: Parser): FileSites {
  if (!hasCandidates(file.text)) return { path: file.path, blob: file.blob, sites: [], parseErrors: false, parsed: false };
  // Note: a callback input avoids the node binding's limit on the length of a string input.
  const text = file.text;
  const tree = parser.parse((index: number) => text.slice(index, index + 65536));
  const sites = extractSites(file.path, text, tree);
  return { path: file.path, blob: file.blob, sites, parseErrors: tree.rootNode.hasError, parsed: true };
}

/** The sites of a parsed file, in source order. Pure. */
export function extractSites(path: string, text: string, tree: Parser.Tree): Site[] {
  const fileContext = contextOfPath(path);
  const sites: Site[] = [];
  CANDIDATE.lastIndex = 0;
  for (let m = CANDIDATE.exec(text); m !== null; m = CANDIDATE.exec(text)) {
    const isMacro = m[1] !== undefined;
    const name = (isMacro ? m[1] : m[2])!;
    const at = m.indices![isMacro ? 1 : 2]![0];
    const rule = (isMacro ? MACRO_RULES : METHOD_RULES).get(name)!;
    const site = readSite(path, text, tree, rule, at, fileContext);
    if (site !== null) sites.push(site);
  }
  return sites;
}

function readSite(path: string, text: string, tree: Parser.Tree, rule: Rule, at: number, fileContext: SiteContext): Site | null {
  const node = tree.rootNode.descendantForIndex(at, at + rule.name.length);
  if (NOT_CODE.has(node.type) || node.startIndex !== at || node.text !== rule.name) return null;

  let inTokenTree = false;
  let context = fileContext;
  for (let a: Parser.SyntaxNode | null = node.parent; a !== null; a = a.parent) {
    if (NOT_CODE.has(a.type) || a.type === "token_tree_pattern" || a.type === "attribute_item" || a.type === "inner_attribute_item" || a.type === "attribute") return null;
    if (a.type === "token_tree") inTokenTree = true;
    if (context === "library" && hasTestAttribute(a)) context = "test";
  }
  if (!rightBefore(text, at, rule)) return null;

  let i = at + rule.name.length;
  if (rule.syntax === "macro") {
    i = skipTrivia(text, i);
    if (text[i] !== "!") return null;
    i = skipTrivia(text, i + 1);
  } else {
    i = skipTrivia(text, i);
  }
  const call = readDelimited(text, i);
  const args = call === null ? null : splitArgs(call.tokens);
  const described = args === null ? { message: null, runtime: null, skip: "dynamic-message" as const } : rule.describe(args);
  return {
    kind: rule.id,
    path,
    line: node.startPosition.row + 1,
    column: node.startPosition.column + 1,
    inTokenTree,
    context,
    ...described,
  };
}

/**
 * What stands right before the name decides whether it is the std macro or method:
 * `.expect(` needs the dot (the scan saw it); a macro may have a std path (`std::panic!`) but no
 * other path, and must not be a field or a definition (`macro_rules! panic`).
 */
function rightBefore(text: string, at: number, rule: Rule): boolean {
  if (rule.syntax === "method") return true;
  let j = at - 1;
  while (j >= 0 && /\s/.test(text[j]!)) j--;
  if (text[j] === "." || text[j] === "$") return false;
  if (text[j] === ":" && text[j - 1] === ":") {
    const head = /(?:\$crate|::[A-Za-z_]\w*|[A-Za-z_]\w*)\s*::\s*$/.exec(text.slice(Math.max(0, at - 64), at));
    return head !== null && STD_PATHS.has(head[0].replace(/\s*::\s*$/, "").replace(/\s+/g, ""));
  }
  const before = text.slice(Math.max(0, j - 11), j + 1);
  return !/\bmacro_rules\s*!$/.test(before) && !/\bfn$/.test(before);
}

/** Cargo's conventions: tests/, benches/, examples/ and build scripts are not library code. */
export function contextOfPath(path: string): SiteContext {
  const parts = path.split("/");
  const dirs = parts.slice(0, -1);
  if (dirs.includes("tests")) return "test";
  if (dirs.includes("benches")) return "bench";
  if (dirs.includes("examples")) return "example";
  if (parts.at(-1) === "build.rs" && !dirs.includes("src")) return "build-script";
  return "library";
}

const TEST_ATTRIBUTE = /^#\s*\[\s*(?:(?:::)?[A-Za-z_]\w*\s*::\s*)*(?:test|rstest|test_case|wasm_bindgen_test|quickcheck)\b/;

/** True when the item `node` carries `#[test]`-like or `#[cfg(test)]`-like attributes. */
function hasTestAttribute(node: Parser.SyntaxNode): boolean {
  if (!node.type.endsWith("_item") && node.type !== "function_signature_item") return false;
  for (let s = node.previousNamedSibling; s !== null; s = s.previousNamedSibling) {
    if (s.type === "line_comment" || s.type === "block_comment") continue;
    if (s.type !== "attribute_item") break;
    if (TEST_ATTRIBUTE.test(s.text) || isCfgTest(s.text)) return true;
  }
  return false;
}

/**
 * `#[cfg(test)]` or `#[cfg(all(test, …))]`: compiled only for tests. `cfg(not(test))` and
 * `cfg(any(test, …))` are not test-only.
 */
export function isCfgTest(attribute: string): boolean {
  const m = /^#\s*\[\s*cfg\s*\(([\s\S]*)\)\s*\]$/.exec(attribute.trim());
  const predicate = m?.[1]?.trim();
  if (predicate === undefined) return false;
  if (predicate === "test") return true;
  const all = /^all\s*\(([\s\S]*)\)$/.exec(predicate);
  const tokens = all === null ? null : readDelimited(`(${all[1]})`, 0)?.tokens;
  return tokens != null && splitArgs(tokens).some((a) => a.length === 1 && a[0]!.text === "test");
}

const TEST_MODULE = /#\s*\[\s*cfg\s*\(\s*(?:test|all\s*\(\s*test\b[^\]]*)\)\s*\]\s*(?:#\s*\[[^\]]*\]\s*)*(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+(\w+)\s*;/g;

/** Names of the modules a file declares test-only and keeps in files of their own (`#[cfg(test)] mod tests;`). */
export function testModuleNames(text: string): string[] {
  return [...text.matchAll(TEST_MODULE)].map((m) => m[1]!);
}

/**
 * Marks the sites of files that are test-only modules of another file as test code. Pure.
 * `a/lib.rs` (or `main.rs`, `mod.rs`) declaring `mod t;` owns `a/t.rs` and `a/t/…`; `a/b.rs` owns `a/b/t.rs` and `a/b/t/…`.
 */
export function applyTestModules(files: readonly FileSites[], declarations: ReadonlyMap<string, readonly string[]>): FileSites[] {
  const prefixes: string[] = [];
  for (const [path, names] of declarations) {
    const slash = path.lastIndexOf("/");
    const dir = path.slice(0, slash + 1);
    const file = path.slice(slash + 1);
    const base = /^(lib|main|mod)\.rs$/.test(file) ? dir : `${dir}${file.replace(/\.rs$/, "")}/`;
    for (const name of names) prefixes.push(`${base}${name}.rs`, `${base}${name}/`);
  }
  if (prefixes.length === 0) return [...files];
  return files.map((f) => {
    if (!prefixes.some((p) => (p.endsWith("/") ? f.path.startsWith(p) : f.path === p))) return f;
    return { ...f, sites: f.sites.map((s) => (s.context === "library" ? { ...s, context: "test" as const } : s)) };
  });
}
