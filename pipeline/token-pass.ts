/**
 * The token pass of extraction: what a file's tokens tell without a syntax tree (its test-only
 * module declarations, its `mod` items and item-wrapping macros, the calls it makes with a message
 * argument and its string constants, its symbols). Pure: a function of the file's text alone, so it may run on any thread
 * (token-thread.ts runs it beside the calling thread while the trees are parsed).
 */
import { isTestAttribute, TEST_WORDS } from "./rust/index.js";
import { callsOf } from "./sources/file.js";
import { type FileSymbols, indexFile } from "./symbols/file.js";
import { codeAt, isAsciiWord, isSpace, tokenize, type Token } from "./tokens.js";
import type { FileSites } from "./types.js";
import { EMPTY_SCAN, type ModuleScan, scanModules } from "./workspace/modules.js";

/** What the token pass gives of a file: the fields of its `FileSites` that need no tree. */
export type TokenFacts = Pick<FileSites, "testModules" | "modules" | "calls" | "constants"> & { readonly symbols: FileSymbols };

/** The token pass over one file's text: it is lexed once, and its tokens read for each fact. */
export function tokenFacts(text: string): TokenFacts {
  const tokens = tokenize(text);
  const { calls, constants } = callsOf(text);
  return { testModules: testModuleNames(text, tokens), ...modulesOf(text, tokens), ...(calls === undefined ? {} : { calls }), ...(constants === undefined ? {} : { constants }), symbols: indexFile(text, tokens) };
}

/**
 * A file's sites as the calling thread read them (`sites`, with what its sources noted of the layout)
 * joined with its token pass (`facts`): the fields in the one order every path writes them in.
 */
export function withTokenFacts(sites: TreeSites, facts: TokenFacts): FileSites {
  const { path, blob, sites: found, parseErrors, parsed, wrappers, constantsRead } = sites;
  return {
    path,
    blob,
    sites: found,
    parseErrors,
    parsed,
    testModules: facts.testModules,
    ...(facts.modules === undefined ? {} : { modules: facts.modules }),
    ...(facts.calls === undefined ? {} : { calls: facts.calls }),
    ...(facts.constants === undefined ? {} : { constants: facts.constants }),
    ...(wrappers === undefined ? {} : { wrappers }),
    ...(constantsRead === undefined ? {} : { constantsRead }),
    symbols: facts.symbols,
  };
}

/** What the calling thread reads of a file, with its tree where it has one: its `FileSites` without the token pass. */
export type TreeSites = Omit<FileSites, keyof TokenFacts>;

/** The file's `mod` items and item-wrapping macros (`scanModules`, `tokens` the text's), as a field only when there are any. */
function modulesOf(text: string, tokens: readonly Token[]): { modules?: ModuleScan } {
  const scan = scanModules(text, tokens);
  return scan === EMPTY_SCAN || (scan.mods.length === 0 && scan.macros.length === 0 && scan.moduleMacros === undefined && scan.invokes === undefined) ? {} : { modules: scan };
}

/**
 * Names of the modules a file declares test-only and keeps in files of their own
 * (`#[cfg(test)] mod tests;`, any attribute `isTestAttribute` accepts, other attributes and
 * `pub(…)` around it), in source order. Pure; comments and strings never count.
 * `tokens`: the text's (`tokenize`), when the caller has them.
 * Note: read with the lexer, not the tree, because files without panic candidates are never
 *   parsed; `mayDeclareTestModule` spares lexing most files.
 */
export function testModuleNames(text: string, tokens?: readonly Token[]): string[] {
  return mayDeclareTestModule(text) ? declaredTestModules(text, tokens) : [];
}

/** What `testModuleNames` gives, read with the lexer without asking the pre-filter first. */
export function declaredTestModules(text: string, tokens: readonly Token[] = tokenize(text)): string[] {
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
      if (isTestAttribute(text.slice(tokens[k - 1]!.start, tokens[j]!.end), false)) testOnlyModule = true;
      j = k - 2;
    }
    if (testOnlyModule) names.push(tokens[i + 1]!.text);
  }
  return names;
}

/**
 * A pre-filter: false when the text cannot hold a declaration `declaredTestModules` finds, true
 * when it may (only a yes lexes the file; a test checks that it says yes wherever the lexer finds one). Such a declaration needs the word `mod`, one of the
 * table's `TEST_WORDS` (its attribute holds one), and a `mod` token with an identifier and `;`
 * after it and `]`, `pub`, or `pub(…)` before it. Between tokens the lexer skips white space,
 * comments and stray quotes: wherever a comment or a quote may stand, the answer is yes.
 */
export function mayDeclareTestModule(text: string): boolean {
  if (!hasWord(text, "mod") || !TEST_WORDS.some((word) => text.includes(word))) return false;
  for (const m of text.matchAll(/\bmod\b/g)) {
    if (identAndSemicolonAt(text, m.index + 3) && closerBefore(text, m.index - 1)) return true;
  }
  return false;
}

/** True when `word` (made of `\w` characters) stands in `text` as a whole word: `/\bword\b/`. */
function hasWord(text: string, word: string): boolean {
  for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) {
    if (!isAsciiWord(codeAt(text, i - 1)) && !isAsciiWord(codeAt(text, i + word.length))) return true;
  }
  return false;
}

/** May an identifier token and then `;` follow from offset `i` on? */
function identAndSemicolonAt(text: string, i: number): boolean {
  while (isSpace(text.charCodeAt(i))) i++;
  let c = text.charCodeAt(i);
  if (c === 47 || c === 39 || c >= 128 || (c === 114 && text.charCodeAt(i + 1) === 35)) return true; // a comment, a quote, Unicode, r#
  if (!isAsciiWord(c) || (c >= 48 && c <= 57)) return false;
  do c = text.charCodeAt(++i);
  while (isAsciiWord(c));
  if (c >= 128) return true;
  while (isSpace(text.charCodeAt(i))) i++;
  c = text.charCodeAt(i);
  return c === 59 || c === 47 || c === 39;
}

/** May the token ending at or before offset `j` be `]` or `)`, or `pub` after such a token? */
function closerBefore(text: string, j: number): boolean {
  for (let pub = 0; ; pub++) {
    while (j >= 0 && isSpace(text.charCodeAt(j))) j--;
    if (j < 0) return false;
    const c = text.charCodeAt(j);
    if (c === 93 || c === 41 || c === 47 || c === 39 || text.lastIndexOf("//", j) > text.lastIndexOf("\n", j)) return true;
    if (pub > 0 || !(c === 98 && text.startsWith("pub", j - 2))) return false;
    j -= 3;
  }
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

