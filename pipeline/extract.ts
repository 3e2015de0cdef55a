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
import { gatherFacts } from "./analyze/facts.js";
import { MACRO_RULES, METHOD_RULES, type Rule } from "./rules/index.js";
import { readDelimited, skipTrivia, splitArgs, tokenize, type Token } from "./tokens.js";
import type { FileSites, Site, SiteContext } from "./types.js";

/** Bumped whenever extraction can give other sites for the same text (it keys the cache). */
export const EXTRACTOR_VERSION = 6;

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
  const pathContext = contextOfPath(path);
  // Note: `#![cfg(test)]` at the top of a module file makes the whole file test code.
  const innerCfgTest = tree.rootNode.namedChildren.some((c) => c.type === "inner_attribute_item" && isCfgTest(c.text));
  const fileContext = pathContext === "library" && innerCfgTest ? "test" : pathContext;
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
  if (!rightBefore(text, tree, at, rule)) return null;

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
    // Note: facts are gathered only for sites that get a record, while the tree is alive.
    facts: described.runtime === null ? null : gatherFacts(node, text),
  };
}

/**
 * What stands right before the name decides whether it is the std macro or method:
 * `.expect(` needs the dot (the scan saw it); a macro may have a std path (`std::panic!`) but no
 * other path, and must not be a field or a definition (`macro_rules! panic`).
 */
function rightBefore(text: string, tree: Parser.Tree, at: number, rule: Rule): boolean {
  if (rule.syntax === "method") return true;
  const j = codeBefore(text, tree, at);
  if (text[j] === "." || text[j] === "$") return false;
  if (text[j] === ":" && text[j - 1] === ":") {
    const head = /(?:\$crate|::[A-Za-z_]\w*|[A-Za-z_]\w*)\s*::\s*$/.exec(text.slice(Math.max(0, at - 64), at));
    return head !== null && STD_PATHS.has(head[0].replace(/\s*::\s*$/, "").replace(/\s+/g, ""));
  }
  const before = text.slice(Math.max(0, j - 11), j + 1);
  return !/\bmacro_rules\s*!$/.test(before) && !/\bfn$/.test(before);
}

/**
 * Offset of the last code character before `at`: white space and comments skipped (a comment
 * ending in `.` right before `assert!` must not read as a method call). -1 at the file's start.
 */
function codeBefore(text: string, tree: Parser.Tree, at: number): number {
  let j = at - 1;
  for (;;) {
    while (j >= 0 && /\s/.test(text[j]!)) j--;
    if (j < 0) return j;
    let comment: Parser.SyntaxNode | null = tree.rootNode.descendantForIndex(j, j + 1);
    while (comment !== null && comment.type !== "line_comment" && comment.type !== "block_comment") comment = comment.parent;
    if (comment === null || comment.startIndex > j) return j;
    j = comment.startIndex - 1;
  }
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

/**
 * True when `node` (an item, a `macro_rules!` definition, a statement, …) carries `#[test]`-like
 * or `#[cfg(test)]`-like attributes: tree-sitter gives them as the node's preceding siblings.
 */
function hasTestAttribute(node: Parser.SyntaxNode): boolean {
  if (node.type === "attribute_item" || node.type === "source_file") return false;
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
  const m = /^#\s*!?\s*\[\s*cfg\s*(\([\s\S]*\))\s*\]$/.exec(attribute.trim());
  const tokens = m === null ? null : readDelimited(m[1]!, 0)?.tokens;
  return tokens != null && testOnly(tokens);
}

/** A cfg predicate that holds only in test builds: `test`, or `all(…)` with such a predicate among its arguments. */
function testOnly(predicate: readonly Token[]): boolean {
  if (predicate.length === 1) return predicate[0]!.text === "test";
  if (predicate[0]?.text !== "all" || predicate[1]?.text !== "(" || predicate.at(-1)?.text !== ")") return false;
  return splitArgs(predicate.slice(2, -1)).some(testOnly);
}

/**
 * Names of the modules a file declares test-only and keeps in files of their own
 * (`#[cfg(test)] mod tests;`, also `cfg(all(…, test))`, other attributes and `pub(…)` around it),
 * in source order. Pure; comments and strings never count.
 * Note: read with the lexer, not the tree, because files without panic candidates are never parsed.
 */
export function testModuleNames(text: string): string[] {
  if (!/\bmod\b/.test(text) || !/\btest\b/.test(text)) return [];
  const tokens = tokenize(text);
  const names: string[] = [];
  for (let i = 0; i + 2 < tokens.length; i++) {
    if (tokens[i]!.text !== "mod" || tokens[i + 1]!.kind !== "ident" || tokens[i + 2]!.text !== ";") continue;
    let j = i - 1;
    if (tokens[j]?.text === ")") {
      const open = openerOf(tokens, j);
      if (open > 0 && tokens[open - 1]!.text === "pub") j = open - 2; // pub(crate), pub(in path)
    } else if (tokens[j]?.text === "pub") j -= 1;
    let testOnlyModule = false;
    // Walk back over the attributes `# [ … ]` that stand right before the declaration.
    while (tokens[j]?.text === "]") {
      const k = openerOf(tokens, j);
      if (k <= 0 || tokens[k - 1]!.text !== "#") break;
      if (isCfgTest(text.slice(tokens[k - 1]!.start, tokens[j]!.end))) testOnlyModule = true;
      j = k - 2;
    }
    if (testOnlyModule) names.push(tokens[i + 1]!.text);
  }
  return names;
}

/** Index of the delimiter that opens the group closed at `close`, or -1. */
function openerOf(tokens: readonly Token[], close: number): number {
  let depth = 0;
  for (let k = close; k >= 0; k--) {
    const t = tokens[k]!;
    if (t.kind === "close") depth++;
    else if (t.kind === "open" && --depth === 0) return k;
  }
  return -1;
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
