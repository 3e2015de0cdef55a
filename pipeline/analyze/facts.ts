/**
 * What the syntax tree proves about one panic site: the items around it, the `#[cfg]` gates on
 * the way down, and the path condition from the function's entry to it. Pure: a node and the
 * file text in, plain JSON out (sites are cached as JSON).
 *
 * Note: everything here is one walk from the site up to the root, plus, once per function name
 * and file, a text scan for its callers: no whole-tree query per site.
 */
import type Parser from "tree-sitter";
import type { Condition, FunctionFact, ItemFact, MatchArm, ParamFact, SiteFacts } from "../schema-types.generated.js";
import { readDelimited, skipTrivia, splitArgs, type Token } from "../tokens.js";
import { boundNames } from "./rust.js";

type Node = Parser.SyntaxNode;

/** Macros whose site facts name the asserted condition. */
const ASSERTS = new Set(["assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne"]);

/** Parents whose children are statements or items: attributes on those children are siblings before them. */
const LISTS = new Set(["block", "declaration_list", "source_file"]);

/**
 * The facts of the site whose name (`panic` of `panic!`, `expect` of `.expect`) is `node`.
 * `text` is the whole file the tree was parsed from. Never throws on broken trees: what the
 * walk cannot see is left out.
 */
export function gatherFacts(node: Node, text: string): SiteFacts {
  const name = node.text;
  const items: ItemFact[] = [];
  const gates: string[] = [];
  const conditions: Condition[] = [];
  let fn: Node | null = null;
  let macro: string | null = null;
  /** Where the outermost step of the path condition starts (the site itself when there is none). */
  let outerStart = node.startIndex;

  // Note: node properties cross into native code (a few µs each): the chain and its types are read once.
  const chain: Node[] = [];
  for (let a: Node | null = node; a !== null; a = a.parent) chain.push(a);
  const types = chain.map((n) => n.type);
  for (let k = 1; k < chain.length; k++) {
    const a = chain[k]!;
    const child = chain[k - 1]!;
    const inBody = fn === null;
    const parentType = types[k + 1];
    if (parentType !== undefined && LISTS.has(parentType)) gates.push(...cfgBefore(a, text));
    const stepsBefore = conditions.length;
    switch (types[k]) {
      case "macro_invocation":
        if (k > 1 && macro === null) macro = a.childForFieldName("macro")?.text ?? null;
        break;
      case "macro_rule": {
        const left = a.childForFieldName("left");
        if (macro === null) macro = "macro_rules";
        if (inBody && left !== null && sameNode(a.childForFieldName("right"), child)) conditions.push({ kind: "macro-rule", line: line(a), matcher: left.text });
        break;
      }
      case "macro_definition":
        items.push({ kind: "macro-rules", name: a.childForFieldName("name")?.text ?? "", visibility: null, line: line(a) });
        break;
      case "match_arm":
        if (inBody && sameNode(a.childForFieldName("value"), child)) {
          const c = matchCondition(a);
          if (c !== null) {
            conditions.push(c);
            for (const attr of [...(c.attributes ?? [])].reverse()) gates.push(...cfgPredicate(attr));
          }
        }
        break;
      case "if_expression":
        if (inBody) {
          const holds = sameNode(a.childForFieldName("consequence"), child) ? true : sameNode(a.childForFieldName("alternative"), child) ? false : null;
          const cond = a.childForFieldName("condition");
          if (holds !== null && cond !== null) {
            conditions.push(cond.type === "let_condition" ? { kind: "if-let", line: line(a), pattern: field(cond, "pattern"), value: field(cond, "value"), holds } : { kind: "if", line: line(a), condition: cond.text, holds });
          }
        }
        break;
      case "let_declaration":
        if (inBody && sameNode(a.childForFieldName("alternative"), child)) conditions.push({ kind: "let-else", line: line(a), pattern: field(a, "pattern"), value: field(a, "value") });
        break;
      case "for_expression":
        if (inBody && sameNode(a.childForFieldName("body"), child)) conditions.push({ kind: "for", line: line(a), pattern: field(a, "pattern"), value: field(a, "value") });
        break;
      case "while_expression":
        if (inBody && sameNode(a.childForFieldName("body"), child)) {
          const cond = a.childForFieldName("condition");
          if (cond !== null) conditions.push(cond.type === "let_condition" ? { kind: "while-let", line: line(a), pattern: field(cond, "pattern"), value: field(cond, "value") } : { kind: "while", line: line(a), condition: cond.text });
        }
        break;
      case "loop_expression":
        if (inBody && sameNode(a.childForFieldName("body"), child)) conditions.push({ kind: "loop", line: line(a) });
        break;
      case "closure_expression":
        if (inBody && sameNode(a.childForFieldName("body"), child)) {
          // Note: a closure passed as an argument names what it is passed to (`x.unwrap_or_else`).
          const call = a.parent?.type === "arguments" ? a.parent.parent : null;
          const callee = call?.type === "call_expression" ? call.childForFieldName("function")?.text : undefined;
          conditions.push({ kind: "closure", line: line(a), params: field(a, "parameters"), ...(callee === undefined ? {} : { callee }) });
        }
        break;
      case "function_item":
        items.push({ kind: "fn", name: field(a, "name"), visibility: visibility(a), line: line(a) });
        if (fn === null) fn = a;
        break;
      case "impl_item": {
        const trait = a.childForFieldName("trait");
        const type = field(a, "type");
        items.push({ kind: "impl", name: trait === null ? type : `${trait.text} for ${type}`, visibility: null, line: line(a) });
        break;
      }
      case "trait_item":
      case "mod_item":
      case "const_item":
      case "static_item":
        items.push({ kind: a.type.slice(0, -"_item".length) as ItemFact["kind"], name: field(a, "name"), visibility: visibility(a), line: line(a) });
        break;
      case "declaration_list":
      case "source_file":
        gates.push(...innerCfg(a, text));
        break;
    }
    if (conditions.length > stepsBefore) outerStart = a.startIndex;
  }
  items.reverse();
  conditions.reverse();
  gates.reverse();

  const check = checkCondition(node, text, name);
  if (check !== null) conditions.push(check);
  if (name.startsWith("debug_assert")) gates.push("debug_assertions");

  const functionFact = fn === null ? undefined : describeFunction(fn, node, text);
  const bodyStart = fn?.childForFieldName("body")?.startIndex ?? outerStart;
  const inside = code(text.slice(outerStart, node.startIndex));
  return {
    items,
    ...(functionFact === undefined ? {} : { function: functionFact }),
    gates: [...new Set(gates)],
    conditions,
    macro,
    callers: functionFact === undefined ? [] : callersOf(functionFact.name, node, text),
    boundInside: [...new Set([...inside.matchAll(LET)].flatMap((m) => boundNames(m[1]!)))].sort(),
    exitInPath: EXIT.test(inside),
    exitBeforePath: EXIT.test(code(text.slice(bodyStart, outerStart))),
  };
}

/** A `return`, `break`, `continue` or `?` operator: the function or loop may be left there. */
const EXIT = /\b(?:return|break|continue)\b|\?(?=\s*[.;,)\]}])/;

/** The pattern of a `let` (up to its type or `=`). */
const LET = /\blet\s+([^=;:]+?)\s*(?::[^=;]*)?=/g;

/** Source text with string and char literals and comments blanked, for keyword scans. */
function code(src: string): string {
  return src.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:[^"\\]|\\.)*"|'(?:[^'\\\n]|\\.)'/g, " ");
}

/** True when both are the same node (tree-sitter hands out new wrapper objects). */
function sameNode(a: Node | null, b: Node | null): boolean {
  return a !== null && b !== null && a.startIndex === b.startIndex && a.endIndex === b.endIndex && a.type === b.type;
}

function line(n: Node): number {
  return n.startPosition.row + 1;
}

function field(n: Node, name: string): string {
  return n.childForFieldName(name)?.text ?? "";
}

function visibility(n: Node): string | null {
  // Note: a visibility modifier, when there is one, is an item's first named child.
  const first = n.firstNamedChild;
  return first !== null && first.type === "visibility_modifier" ? first.text : null;
}

/** The predicate of `#[cfg(…)]` / `#![cfg(…)]`, white space collapsed; nothing for other attributes. */
export function cfgPredicate(attribute: string): string[] {
  const m = /^#\s*!?\s*\[\s*cfg\s*\(([\s\S]*)\)\s*\]$/.exec(attribute.trim());
  return m === null ? [] : [m[1]!.trim().replace(/\s+/g, " ")];
}

/**
 * True when an attribute may stand right before offset `start`: the last character before it,
 * past white space and `//` comment lines, is `]` (or a block comment ends there).
 * Note: a text check first; the tree's siblings are walked only when it says yes.
 */
function attributeBefore(text: string, start: number): boolean {
  let j = start - 1;
  for (;;) {
    while (j >= 0 && /\s/.test(text[j]!)) j--;
    if (j < 0) return false;
    if (text[j] === "]" || text[j] === "/") return true;
    const lineStart = text.lastIndexOf("\n", j) + 1;
    if (!/^\s*\/\//.test(text.slice(lineStart, j + 1))) return false;
    j = lineStart - 1;
  }
}

/** The cfg predicates of the outer attributes right before a statement or item, in reverse source order. */
function cfgBefore(n: Node, text: string): string[] {
  if (!attributeBefore(text, n.startIndex)) return [];
  const out: string[] = [];
  for (let s = n.previousNamedSibling; s !== null; s = s.previousNamedSibling) {
    const type = s.type;
    if (type === "line_comment" || type === "block_comment") continue;
    if (type !== "attribute_item") break;
    out.push(...cfgPredicate(s.text).reverse());
  }
  // Note: the walk goes inside out and gates are reversed once it is done; so reverse order here.
  return out;
}

/** The cfg predicates of the inner attributes (`#![cfg(…)]`) at the top of a file or module body, in reverse source order. */
function innerCfg(n: Node, text: string): string[] {
  const open = n.type === "source_file" ? n.startIndex : n.startIndex + 1;
  if (!/^(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*#\s*!/.test(text.slice(open, open + 4096))) return [];
  const out: string[] = [];
  for (const c of n.namedChildren) {
    if (c.type === "line_comment" || c.type === "block_comment") continue;
    if (c.type !== "inner_attribute_item") break;
    out.push(...cfgPredicate(c.text));
  }
  return out.reverse();
}

/** The `match` step for a site in `arm`'s value: scrutinee, pattern, guard and the arms before it. */
function matchCondition(arm: Node): Condition | null {
  const block = arm.parent;
  const expr = block?.parent;
  if (block == null || expr == null || expr.type !== "match_expression") return null;
  const own = readArm(arm);
  const earlierArms: MatchArm[] = [];
  const start = arm.startIndex;
  for (const c of block.namedChildren) {
    if (c.startIndex >= start) break;
    if (c.type === "match_arm") earlierArms.push(readArm(c));
  }
  return { kind: "match", line: line(expr), scrutinee: field(expr, "value"), pattern: own.pattern, guard: own.guard, attributes: own.attributes, earlierArms };
}

function readArm(arm: Node): MatchArm {
  const attributes: string[] = [];
  for (const c of arm.namedChildren) {
    if (c.type === "attribute_item") attributes.push(c.text);
    else break;
  }
  const mp = arm.childForFieldName("pattern");
  if (mp === null) return { pattern: "", guard: null, attributes };
  const guard = mp.childForFieldName("condition");
  if (guard === null) return { pattern: mp.text, guard: null, attributes };
  // Note: the guard is a field of the pattern node; the pattern proper is what stands before `if`.
  let end = mp.startIndex;
  for (let i = 0; i < mp.childCount; i++) {
    const c = mp.child(i)!;
    if (c.type === "if") break;
    end = c.endIndex;
  }
  return { pattern: mp.text.slice(0, end - mp.startIndex), guard: guard.text, attributes };
}

/** For `assert*`, the asserted condition (the panic needs it false); for `.expect`, the receiver. */
function checkCondition(node: Node, text: string, name: string): Condition | null {
  const at = line(node);
  if (name === "expect" || name === "expect_err") {
    const fe = node.parent;
    const receiver = fe?.type === "field_expression" ? fe.childForFieldName("value")?.text : undefined;
    return { kind: "expect", line: at, method: name, ...(receiver === undefined ? {} : { receiver }) };
  }
  if (!ASSERTS.has(name)) return null;
  let i = skipTrivia(text, node.endIndex);
  if (text[i] !== "!") return null;
  const call = readDelimited(text, skipTrivia(text, i + 1));
  if (call === null) return null;
  const args = splitArgs(call.tokens);
  const source = (tokens: readonly Token[] | undefined) => (tokens === undefined || tokens.length === 0 ? undefined : text.slice(tokens[0]!.start, tokens.at(-1)!.end));
  const macro = name;
  if (name.endsWith("_eq") || name.endsWith("_ne")) {
    const left = source(args[0]);
    const right = source(args[1]);
    return left === undefined || right === undefined ? null : { kind: "assert", line: at, macro, left, right };
  }
  const condition = source(args[0]);
  return condition === undefined ? null : { kind: "assert", line: at, macro, condition };
}

/** What a function contributes to every site in it; read once per function and file. */
interface FunctionInfo {
  readonly base: Omit<FunctionFact, "lets" | "unchangedParams">;
  /** Plain `let` statements at the top of the body, with where they end. */
  readonly lets: readonly { readonly end: number; readonly text: string }[];
  /** For each simple, non-`&mut` parameter: where the first `let` that may rebind it starts (Infinity: none). */
  readonly rebound: ReadonlyMap<string, number>;
}

/** The enclosing function as declared, with what generated guards need to repeat it. */
function describeFunction(fn: Node, site: Node, text: string): FunctionFact {
  const file = fileMemo(text);
  let info = file.functions.get(fn.startIndex);
  if (info === undefined) {
    info = readFunction(fn, text);
    file.functions.set(fn.startIndex, info);
  }
  const at = site.startIndex;
  return {
    ...info.base,
    lets: info.lets.filter((l) => l.end <= at).map((l) => l.text),
    unchangedParams: [...info.rebound].filter(([, from]) => from >= at).map(([name]) => name),
  };
}

function readFunction(fn: Node, text: string): FunctionInfo {
  const params: ParamFact[] = [];
  let receiver: string | null = null;
  const ps = fn.childForFieldName("parameters");
  for (const p of ps?.namedChildren ?? []) {
    if (p.type === "self_parameter") receiver = p.text;
    else if (p.type === "parameter") {
      const type = p.childForFieldName("type");
      // Note: `mut` is a sibling of the pattern field; the pattern as written runs up to the `:`.
      const pattern = type === null ? p.text : p.text.slice(0, type.startIndex - p.startIndex).replace(/\s*:\s*$/, "");
      params.push({ pattern, type: type?.text ?? "" });
    }
  }
  let whereClause: string | null = null;
  let visibility: string | null = null;
  for (const c of fn.namedChildren) {
    if (c.type === "where_clause") whereClause = c.text;
    else if (c.type === "visibility_modifier") visibility = c.text;
  }

  let implType: string | null = null;
  let implTrait: string | null = null;
  let implGenerics: string | null = null;
  let traitName: string | null = null;
  const owner = fn.parent?.type === "declaration_list" ? fn.parent.parent : null;
  if (owner?.type === "impl_item") {
    implType = field(owner, "type");
    implTrait = owner.childForFieldName("trait")?.text ?? null;
    implGenerics = owner.childForFieldName("type_parameters")?.text ?? null;
  } else if (owner?.type === "trait_item") {
    traitName = field(owner, "name");
    implGenerics = owner.childForFieldName("type_parameters")?.text ?? null;
  }

  const body = fn.childForFieldName("body");
  const bodyText = body === null ? "" : text.slice(body.startIndex, body.endIndex);
  const rebound = new Map<string, number>();
  for (const p of params) {
    if (!/^[A-Za-z_]\w*$/.test(p.pattern) || /&\s*(?:'\w+\s+)?mut\b/.test(p.type)) continue;
    const m = new RegExp(`\\blet\\b[^=;]*\\b${p.pattern}\\b`).exec(bodyText);
    rebound.set(p.pattern, m === null || body === null ? Infinity : body.startIndex + m.index);
  }
  return {
    base: {
      name: field(fn, "name"),
      line: line(fn),
      visibility,
      generics: fn.childForFieldName("type_parameters")?.text ?? null,
      whereClause,
      receiver,
      params,
      returnType: fn.childForFieldName("return_type")?.text ?? null,
      implGenerics,
      implType,
      implTrait,
      traitName,
    },
    lets: body === null ? [] : plainLets(body),
    rebound,
  };
}

/**
 * The `let` statements at the top level of `body` that bind without `mut` or `else` and whose
 * value has no `?`, `.await`, jump, `&mut` or `unsafe`: a guard may repeat them. A site sees
 * those that end before it.
 */
function plainLets(body: Node): { end: number; text: string }[] {
  const out: { end: number; text: string }[] = [];
  for (const s of body.namedChildren) {
    if (s.type !== "let_declaration") continue;
    const stmt = s.text;
    const eq = stmt.indexOf("=");
    if (eq < 0 || /\bmut\b/.test(stmt.slice(0, eq))) continue;
    const value = code(stmt.slice(eq + 1));
    if (EXIT.test(value) || /\b(?:else|await|unsafe|async|loop|while|for)\b|&\s*mut\b|=>/.test(value)) continue;
    out.push({ end: s.endIndex, text: stmt });
  }
  return out;
}

const TEST_ATTRIBUTE = /^#\s*\[\s*(?:(?:::)?\w+\s*::\s*)*(?:test|rstest|test_case|wasm_bindgen_test|quickcheck)\b|^#\s*\[\s*cfg\s*\(\s*(?:test\s*\)|all\s*\([^\]]*\btest\b)/;

/** True when the item carries a `#[test]`-like or `#[cfg(test)]`-like attribute. */
function isTestItem(item: Node, text: string): boolean {
  if (!attributeBefore(text, item.startIndex)) return false;
  for (let s = item.previousNamedSibling; s !== null; s = s.previousNamedSibling) {
    const type = s.type;
    if (type === "line_comment" || type === "block_comment") continue;
    if (type !== "attribute_item") return false;
    if (TEST_ATTRIBUTE.test(s.text)) return true;
  }
  return false;
}

/** What is read once per file: callers by function name, functions by start, the file's inner cfg. */
interface FileMemo {
  readonly text: string;
  readonly callers: Map<string, string[]>;
  readonly functions: Map<number, FunctionInfo>;
  rootCfg: string[] | null;
}

let memo: FileMemo | null = null;

/** The memo of `text`; a new file (another string) starts a new one. */
function fileMemo(text: string): FileMemo {
  if (memo === null || memo.text !== text) memo = { text, callers: new Map(), functions: new Map(), rootCfg: null };
  return memo;
}

/**
 * Names of the functions in this file that call a function named `name` (`name(`, `.name(`,
 * `X::name(`, with or without a turbofish), the function itself left out, sorted.
 * Note: a match by name, not a resolved call; comments and strings are skipped through the tree.
 */
function callersOf(name: string, site: Node, text: string): string[] {
  const file = fileMemo(text);
  const known = file.callers.get(name);
  if (known !== undefined) return known;
  const root = site.tree.rootNode;
  const found = new Set<string>();
  const call = new RegExp(`\\b${name.replace(/^r#/, "r#")}\\s*(?:::\\s*<[^;{}()]*>\\s*)?\\(`, "g");
  for (let m = call.exec(text); m !== null; m = call.exec(text)) {
    if (/\bfn\s+$/.test(text.slice(Math.max(0, m.index - 8), m.index))) continue;
    const n = root.descendantForIndex(m.index, m.index + name.length);
    if (n.type !== "identifier" && n.type !== "field_identifier") continue;
    let caller: string | null = null;
    for (let a: Node | null = n.parent; a !== null; a = a.parent) {
      const type = a.type;
      if (caller === null && type === "function_item") caller = field(a, "name");
      // Note: callers in test code (`#[test]`, `#[cfg(test)] mod …`) are not how users get there.
      if ((type === "function_item" || type === "mod_item") && isTestItem(a, text)) {
        caller = null;
        break;
      }
    }
    if (caller !== null && caller !== name && caller !== "") found.add(caller);
  }
  const callers = [...found].sort();
  file.callers.set(name, callers);
  return callers;
}
