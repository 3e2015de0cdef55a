/**
 * What makes Rust code test code: the attributes of test functions, the `cfg` predicates that
 * hold in test builds only (read by an evaluator over the predicate's tokens, as rustc reads
 * them), `cfg_attr` as rustc expands it, and Cargo's paths for tests, benches, examples and
 * build scripts. Pure: attribute texts and paths in, answers out.
 */
import { codeAt, readDelimited, skipTrivia, splitArgs, type Token } from "../tokens.js";
import type { SiteContext } from "../types.js";

/**
 * The attributes that make a function a test, by the last segment of their path: `#[test]`,
 * `#[tokio::test]`, `#[rstest]`, `#[test_case(…)]`, `#[wasm_bindgen_test]`, `#[quickcheck]`.
 * Such a function is compiled in test builds only.
 */
export const TEST_ATTRIBUTES: ReadonlySet<string> = new Set(["test", "rstest", "test_case", "wasm_bindgen_test", "quickcheck"]);

/**
 * Words one of which every attribute that makes code test code holds (the `test` of `cfg(test)`
 * and of most names in `TEST_ATTRIBUTES`, and `quickcheck`): a text without them holds no such
 * attribute, so a quick check for them may spare reading attributes.
 */
export const TEST_WORDS: readonly string[] = ["test", "quickcheck"];

/** An attribute's meta item as the lexer reads it: its path, and what its parentheses hold. */
export interface Meta {
  /** The path's segments (`["tokio", "test"]`); a leading `::` is left out. */
  readonly path: readonly string[];
  /** The tokens between the parentheses after the path (`cfg(…)`); null when none follow it. */
  readonly args: readonly Token[] | null;
}

/**
 * The meta item of the attribute whose text is `attribute` (`#[…]` or `#![…]`, from its `#` to
 * its `]`, white space and comments allowed between tokens), or null when the text is not one.
 */
export function readAttribute(attribute: string): Meta | null {
  const hash = skipTrivia(attribute, 0);
  if (codeAt(attribute, hash) !== 35 /* # */) return null;
  let i = skipTrivia(attribute, hash + 1);
  if (codeAt(attribute, i) === 33 /* ! */) i = skipTrivia(attribute, i + 1);
  if (codeAt(attribute, i) !== 91 /* [ */) return null;
  const group = readDelimited(attribute, i);
  if (group === null || skipTrivia(attribute, group.end) !== attribute.length) return null;
  return metaOf(group.tokens);
}

/** The meta item `tokens` spell: a path, then parentheses or anything else (`= value`). */
export function metaOf(tokens: readonly Token[]): Meta {
  const path: string[] = [];
  let k = tokens[0]?.text === "::" ? 1 : 0;
  for (;;) {
    // No path, or one that ends in `::`: nothing follows it.
    if (tokens[k]?.kind !== "ident") return { path, args: null };
    path.push(unraw(tokens[k++]!.text));
    if (tokens[k]?.text !== "::") break;
    k++;
  }
  const args = tokens[k]?.text === "(" && closes(tokens, k) ? tokens.slice(k + 1, -1) : null;
  return { path, args };
}

/** An identifier as rustc compares it: `r#test` is `test`. */
function unraw(ident: string): string {
  return ident.startsWith("r#") ? ident.slice(2) : ident;
}

/** True when the delimiter at `open` is closed by the last token and by no token before it. */
function closes(tokens: readonly Token[], open: number): boolean {
  let depth = 0;
  for (let k = open; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.kind === "open") depth++;
    else if (t.kind === "close" && --depth === 0) return k === tokens.length - 1;
  }
  return false;
}

/** A value of three: true, false, or null when it depends on a configuration option other than `test`. */
export type Truth = boolean | null;

/**
 * The value of a `cfg` predicate (its tokens: `test`, `unix`, `feature = "x"`, `all(…)`,
 * `any(…)`, `not(…)`, `true`, `false`) in a build where `test` is as given and every other option
 * is unknown. `all` is false when an argument is, `any` true when one is, `not` turns true and
 * false round; null stays null. A predicate rustc would reject is null.
 */
export function cfgValue(predicate: readonly Token[], test: boolean): Truth {
  const head = predicate[0];
  if (head === undefined || head.kind !== "ident") return null;
  const name = unraw(head.text);
  if (predicate.length === 1) return name === "test" ? test : head.text === "true" ? true : head.text === "false" ? false : null;
  if (predicate[1]!.text !== "(" || !closes(predicate, 1)) return null;
  const args = splitArgs(predicate.slice(2, -1)).map((arg) => cfgValue(arg, test));
  switch (name) {
    case "all":
      return allOf(args);
    case "any":
      return args.includes(true) ? true : args.includes(null) ? null : false;
    case "not":
      return args.length !== 1 || args[0] === null ? null : !args[0];
    default:
      return null;
  }
}

function allOf(values: readonly Truth[]): Truth {
  return values.includes(false) ? false : values.includes(null) ? null : true;
}

/**
 * Whether the item an attribute stands on is compiled, in a build where `test` is as given:
 * `cfg(p)` is `p`'s value; `cfg_attr(p, a, …)` applies `a, …` where `p` holds (so the item is
 * compiled where `p` does not hold or they let it be); a test attribute (outer only) compiles its
 * item in test builds only; any other attribute leaves it be.
 */
function compiled(meta: Meta, inner: boolean, test: boolean): Truth {
  const name = meta.path.length === 1 ? meta.path[0] : undefined;
  if (name === "cfg") return meta.args === null ? null : cfgValue(meta.args, test);
  if (name === "cfg_attr") {
    const [condition, ...applied] = meta.args === null ? [] : splitArgs(meta.args);
    if (condition === undefined) return true;
    const when = cfgValue(condition, test);
    const then = allOf(applied.map((a) => compiled(metaOf(a), inner, test)));
    if (when === false || then === true) return true;
    return when === true ? then : null;
  }
  return !inner && TEST_ATTRIBUTES.has(meta.path.at(-1) ?? "") ? test : true;
}

/**
 * True when an attribute's text makes what it stands on test code: compiled in test builds only.
 * So `#[test]`, `#[tokio::test]`, `#[cfg(test)]`, `#[cfg(all(test, unix))]`,
 * `#[cfg(not(not(test)))]`, `#[cfg_attr(not(test), cfg(test))]` do; `#[cfg(not(test))]`,
 * `#[cfg(any(test, unix))]`, `#[cfg(all(not(test), unix))]`, `#[cfg_attr(test, derive(Debug))]`,
 * `#[cfg_attr(test, test)]` (a plain function in other builds) do not. `inner`: it is an inner
 * attribute (`#![…]`, of the module or file it stands in), where only `cfg` and `cfg_attr` count.
 * Never throws: a text that is not an attribute is not.
 * Note: the caller says whether the attribute is inner: in a tree with errors its `!` may be missing.
 */
export function isTestAttribute(attribute: string, inner: boolean): boolean {
  const attr = readAttribute(attribute);
  if (attr === null || !mayMakeTestCode(attr.path)) return false;
  // Note: test builds only: never compiled without `test`, and not never with it (`cfg(any())`,
  //   compiled nowhere, is not test code).
  return compiled(attr, inner, false) === false && compiled(attr, inner, true) !== false;
}

/** False for a path no attribute that makes test code has: not `cfg`, `cfg_attr` or a test attribute's. */
function mayMakeTestCode(path: readonly string[]): boolean {
  const last = path.at(-1) ?? "";
  return TEST_ATTRIBUTES.has(last) || (path.length === 1 && (last === "cfg" || last === "cfg_attr"));
}

/**
 * The predicate of a `#[cfg(…)]` or `#![cfg(…)]` attribute as written, white space collapsed
 * (`feature = "std"`); null for any other attribute.
 */
export function cfgPredicateText(attribute: string): string | null {
  const attr = readAttribute(attribute);
  if (attr === null || attr.args === null || attr.path.length !== 1 || attr.path[0] !== "cfg") return null;
  // Note: the predicate is spelled from its tokens, one space where white space or a comment stood between two (tokio's `any(` lists hold `// …` lines).
  let out = "";
  for (const [k, t] of attr.args.entries()) out += (k > 0 && attr.args[k - 1]!.end < t.start ? " " : "") + attribute.slice(t.start, t.end);
  return out;
}

/**
 * The context Cargo's layout gives a file's code by its path: `tests/`, `benches/` and
 * `examples/` anywhere on the way, and a `build.rs` outside `src/` (a build script), are not
 * library code.
 */
export function contextOfPath(path: string): SiteContext {
  const parts = path.split("/");
  const dirs = parts.slice(0, -1);
  if (dirs.includes("tests")) return "test";
  if (dirs.includes("benches")) return "bench";
  if (dirs.includes("examples")) return "example";
  if (parts.at(-1) === "build.rs" && !dirs.includes("src")) return "build-script";
  return "library";
}
