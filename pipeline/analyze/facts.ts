/**
 * What the syntax tree proves about one panic site: the items around it, the `#[cfg]` gates on
 * the way down, and the path condition from the function's entry to it. Pure: a node and the
 * file text in, plain JSON out (sites are cached as JSON).
 *
 * Note: everything here is one walk from the site up to the root, plus, once per function name
 * and file, a text scan for its callers: no whole-tree query per site. The walk goes through a
 * `TreeView`, so what one site reads from a shared ancestor (the function, the impl, a match arm,
 * cfg gates) the next site of the file finds there.
 */
import type { Condition, FunctionFact, ItemFact, MacroUse, MatchArm, ParamFact, SiteFacts } from "../schema-types.generated.js";
import { chain, type Hit, type Item, itemAt, type Layout, layoutOf } from "../layout.js";
import { cfgPredicateText, CLOSURE_OPENERS, type Rule } from "../rust/index.js";
import { isAsciiWord, isSpace, matching, readDelimited, skipTrivia, splitArgs, type Token, tokenize } from "../tokens.js";
import { namedChildSpans, type ViewNode } from "../tree-view.js";
import { boundNames, constantNames } from "./rust.js";


/** Parents whose children are statements or items: attributes on those children are siblings before them. */
const LISTS = new Set(["block", "declaration_list", "source_file"]);

/**
 * The facts of one site, read through the file's tree view (tree-view.ts): `chain` is the site's
 * name node (`panic` of `panic!`, `expect` of `.expect`) and its ancestors (`TreeView.chain`),
 * `rule` what its kind checks and whether it is debug-only (a panic kind's rule; a returned error's
 * text checks nothing), `args` the macro call's
 * arguments when the caller has read them (null: read them here). What is read from an ancestor
 * is kept on it for the file's other sites.
 */
export function siteFacts(chain: readonly ViewNode[], rule: Pick<Rule, "name" | "check" | "debugOnly">, args: readonly (readonly Token[])[] | null, callers: (name: string) => readonly string[]): SiteFacts {
  const node = chain[0]!;
  const text = node.view.text;
  const items: ItemFact[] = [];
  const gates: string[] = [];
  const conditions: Condition[] = [];
  let fn: ViewNode | null = null;
  let macro: string | null = null;
  let macroPath: MacroUse[] = [];
  /** The outermost token tree around the site (a macro's arguments, a `macro_rules!` arm's body), when it is in one. */
  let tokenRoot: ViewNode | null = null;
  /** Where the outermost step of the path condition starts (the site itself when there is none). */
  let outerStart = node.start;
  /** True once a `const { … }` block or a `const`/`static` item's value holds the site, with no function or closure between. */
  let compileTime = false;

  for (let k = 1; k < chain.length; k++) {
    const a = chain[k]!;
    const child = chain[k - 1]!;
    const inBody = fn === null;
    const parentType = chain[k + 1]?.type;
    if (parentType !== undefined && LISTS.has(parentType)) gates.push(...cfgBefore(a));
    const stepsBefore = conditions.length;
    if (a.type === "token_tree" && inBody) tokenRoot = a;
    switch (a.type) {
      case "macro_invocation":
        if (k > 1 && macro === null) {
          macroPath = macroPathAt(a, node.start);
          macro = macroPath.at(-1)?.name ?? a.field("macro")?.text ?? null;
        }
        break;
      case "macro_rule": {
        const left = a.field("left");
        if (macro === null) macro = "macro_rules";
        if (inBody && left !== null && child.same(a.field("right"))) conditions.push({ kind: "macro-rule", line: a.line, matcher: left.text });
        break;
      }
      case "macro_definition":
        items.push({ kind: "macro-rules", name: a.field("name")?.text ?? "", visibility: null, line: a.line });
        break;
      case "match_arm":
        if (inBody && child.same(a.field("value"))) {
          const c = matchCondition(a);
          if (c !== null) {
            conditions.push({ ...c });
            for (const attr of [...(c.attributes ?? [])].reverse()) gates.push(...cfgPredicate(attr));
          }
        }
        break;
      case "if_expression":
        if (inBody) {
          const holds = child.same(a.field("consequence")) ? true : child.same(a.field("alternative")) ? false : null;
          const cond = a.field("condition");
          if (holds !== null && cond !== null) {
            conditions.push(cond.type === "let_condition" ? { kind: "if-let", line: a.line, pattern: cond.fieldText("pattern"), value: cond.fieldText("value"), holds } : { kind: "if", line: a.line, condition: cond.text, holds });
          }
        }
        break;
      case "block":
        // Note: `#[cfg(P)] return …;` before the site in its block leaves in builds where P holds: the site is reached as if `if cfg!(P) { return }` stood there.
        if (inBody) for (const p of cfgExitsBefore(child)) conditions.push({ kind: "if", line: p.line, condition: `cfg!(${p.predicate})`, holds: false });
        break;
      case "let_declaration":
        if (inBody && child.same(a.field("alternative"))) conditions.push({ kind: "let-else", line: a.line, pattern: a.fieldText("pattern"), value: a.fieldText("value") });
        break;
      case "for_expression":
        if (inBody && child.same(a.field("body"))) conditions.push({ kind: "for", line: a.line, pattern: a.fieldText("pattern"), value: a.fieldText("value") });
        break;
      case "while_expression":
        if (inBody && child.same(a.field("body"))) {
          const cond = a.field("condition");
          if (cond !== null) conditions.push(cond.type === "let_condition" ? { kind: "while-let", line: a.line, pattern: cond.fieldText("pattern"), value: cond.fieldText("value") } : { kind: "while", line: a.line, condition: cond.text });
        }
        break;
      case "loop_expression":
        if (inBody && child.same(a.field("body"))) conditions.push({ kind: "loop", line: a.line });
        break;
      case "closure_expression":
        if (inBody && child.same(a.field("body"))) {
          // Note: a closure passed as an argument names what it is passed to (`x.unwrap_or_else`).
          const call = a.parent?.type === "arguments" ? a.parent.parent : null;
          const callee = call?.type === "call_expression" ? call.field("function")?.text : undefined;
          conditions.push({ kind: "closure", line: a.line, params: a.fieldText("parameters"), ...(callee === undefined ? {} : { callee }) });
        }
        break;
      case "async_block": {
        // Note: an `async` block is a value of its own, as a closure is: a `?` in it returns from the block (to whoever awaits it), a panic in it happens when it is polled.
        const call = a.parent?.type === "arguments" ? a.parent.parent : null;
        const callee = call?.type === "call_expression" ? call.field("function")?.text : undefined;
        if (inBody) conditions.push({ kind: "async-block", line: a.line, ...(callee === undefined ? {} : { callee }) });
        break;
      }
      case "function_item":
        items.push({ kind: "fn", name: a.fieldText("name"), visibility: visibility(a), line: a.line });
        if (fn === null) fn = a;
        break;
      case "impl_item": {
        const trait = a.field("trait");
        const type = a.fieldText("type");
        items.push({ kind: "impl", name: trait === null ? type : `${trait.text} for ${type}`, visibility: null, line: a.line });
        break;
      }
      case "const_block":
        if (inBody && !conditions.some((c) => c.kind === "closure" || c.kind === "async-block")) compileTime = true;
        break;
      case "trait_item":
      case "mod_item":
      case "const_item":
      case "static_item":
        if ((a.type === "const_item" || a.type === "static_item") && inBody && !conditions.some((c) => c.kind === "closure" || c.kind === "async-block")) compileTime = true;
        items.push({ kind: a.type.slice(0, -"_item".length) as ItemFact["kind"], name: a.fieldText("name"), visibility: visibility(a), line: a.line });
        break;
      case "declaration_list":
      case "source_file":
        gates.push(...innerCfg(a));
        break;
    }
    if (conditions.length > stepsBefore) outerStart = a.start;
  }
  items.reverse();
  conditions.reverse();
  gates.reverse();
  if (tokenRoot !== null) gates.push(...tokenGates(tokenRoot, node.start));
  // Note: a `macro_rules!` body is a token tree to the parser: the `match` arms and `if`s around the site are read from its tokens.
  if (tokenRoot !== null && macro === "macro_rules" && fn === null) conditions.push(...tokenConditions(tokenRoot, node.start));

  const read = checkCondition(chain, rule, args);
  // Note: in a token tree (a macro's body) an `.expect`'s receiver is read from the tokens before it.
  const check = read?.kind === "expect" && read.receiver === undefined && tokenRoot !== null ? withTokenReceiver(read, tokenRoot, node.start) : read;
  if (check !== null) conditions.push(check);
  // Note: a `#[cfg(debug_assertions)]` of its own around a `debug_assert*` is a condition of compiling it, which the one gate `debug_assertions` no longer tells apart from the rule's.
  const debugGateWritten = rule.debugOnly && gates.includes("debug_assertions");
  if (rule.debugOnly) gates.push("debug_assertions");

  const functionFact = fn === null ? undefined : describeFunction(fn, node);
  const bodyStart = fn?.field("body")?.start ?? outerStart;
  const named = check?.kind === "assert" ? constantNames([check.condition, check.left, check.right].filter((x) => x != null).join(" ")) : [];
  const constants = named.length === 0 ? [] : integerConstants(fileConstants(node), named, fn === null ? null : declaredConstants(text.slice(bodyStart, node.start)));
  const inside = code(text.slice(outerStart, node.start));
  return {
    items,
    ...(functionFact === undefined ? {} : { function: functionFact }),
    gates: [...new Set(gates)],
    ...(debugGateWritten ? { debugGateWritten: true as const } : {}),
    conditions,
    macro,
    // Note: listed only when it says more than `macro` (a nested call, or a body's own `#![…]`).
    ...(macroPath.length > 1 || macroPath[0]?.attribute != null ? { macroPath } : {}),
    callers: functionFact === undefined ? [] : [...callers(functionFact.name)],
    boundInside: [...new Set([...inside.matchAll(LET)].flatMap((m) => boundNames(m[1]!)))].sort(),
    ...withLets(text.slice(outerStart, node.start)),
    ...commentAbove(chain),
    exitInPath: EXIT.test(inside),
    // Note: before the path's outermost step, only an exit of the function skips the site: a `break` or `continue` there ends a loop that does not hold it.
    exitBeforePath: FUNCTION_EXIT.test(code(text.slice(bodyStart, outerStart), true)),
    // Note: a closure or an `async` block is a function of its own: `#[track_caller]` does not reach into it, so a panic there is reported at the site.
    ...(fn !== null && trackCaller(fn) && !conditions.some((c) => c.kind === "closure" || c.kind === "async-block") ? { trackCaller: true as const } : {}),
    ...(compileTime ? { compileTime: true as const } : {}),
    ...(constants.length === 0 ? {} : { constants }),
  };
}

/**
 * Of `names`, those declared as an integer constant with a literal value (`const MAX_LEN: usize =
 * 39;`), with that value: `[name, value]`. A declaration in the function's body before the site
 * (`inBody`) is the one its name means there; else the file's (`inFile`), where it declares the name once.
 * Note: a name declared more than once in the file and not in the body (two functions' own `MAX_LEN`) is left out.
 */
function integerConstants(inFile: ReadonlyMap<string, number | null>, names: readonly string[], inBody: ReadonlyMap<string, number | null> | null): [name: string, value: number][] {
  const out: [string, number][] = [];
  for (const name of names) {
    const value = inBody?.has(name) === true ? inBody.get(name) : inFile.get(name);
    if (value != null) out.push([name, value]);
  }
  return out;
}

/** The constants and statics `text` declares, by name: a literal integer constant's value, null for any other or for a name declared more than once. */
function declaredConstants(text: string): ReadonlyMap<string, number | null> {
  const found = new Map<string, number | null>();
  for (const m of text.matchAll(DECLARED_CONSTANT)) {
    const name = m[1]!;
    found.set(name, found.has(name) || m[2] === undefined ? null : Number(m[2].replace(/_/g, "")));
  }
  return found;
}

/** `declaredConstants` of the whole file `node` stands in, read once per file. */
function fileConstants(node: ViewNode): ReadonlyMap<string, number | null> {
  const known = FILE_CONSTANTS.get(node.view);
  if (known !== undefined) return known;
  const found = declaredConstants(node.view.text);
  FILE_CONSTANTS.set(node.view, found);
  return found;
}

/** `fileConstants` by the file's tree. */
const FILE_CONSTANTS = new WeakMap<object, ReadonlyMap<string, number | null>>();

/** A `const` or `static` declaration, with the value of an integer constant's literal. */
const DECLARED_CONSTANT = /\b(?:const|static)\s+(?:mut\s+)?([A-Z][A-Z0-9_]*)\b(?:\s*:\s*[iu](?:8|16|32|64|128|size)\s*=\s*([0-9][0-9_]*)\s*;)?/g;


/**
 * The macro invocations whose tokens hold offset `at`, outermost first: `invocation` itself
 * (a macro call the tree shows) and the `name!(…)` calls inside its flat token tree around `at`,
 * each with the text of a `#![…]` opening its body (`feature! { #![any(…)] … }`).
 * Note: tree-sitter leaves a macro's arguments as flat tokens; the lexer finds the calls in them.
 */
function macroPathAt(invocation: ViewNode, at: number): MacroUse[] {
  const text = invocation.view.text;
  const tokens = invocation.memo("macroTokens", () => tokenize(text.slice(invocation.start, invocation.end)));
  const base = invocation.start;
  const stack: (MacroUse | null)[] = [];
  for (let i = 0; i < tokens.length && tokens[i]!.start + base < at; i++) {
    const t = tokens[i]!;
    if (t.kind === "open") {
      const named = i >= 2 && tokens[i - 1]!.text === "!" && tokens[i - 2]!.kind === "ident";
      let attribute: string | null = null;
      if (named && tokens[i + 1]?.text === "#" && tokens[i + 2]?.text === "!" && tokens[i + 3]?.text === "[") {
        let depth = 0;
        for (let j = i + 3; j < tokens.length; j++) {
          if (tokens[j]!.kind === "open") depth++;
          else if (tokens[j]!.kind === "close" && --depth === 0) {
            if (j > i + 4) attribute = text.slice(base + tokens[i + 4]!.start, base + tokens[j - 1]!.end).replace(/\s+/g, " ");
            break;
          }
        }
      }
      stack.push(named ? { name: tokens[i - 2]!.text, attribute } : null);
    } else if (t.kind === "close") stack.pop();
  }
  return stack.filter((m): m is MacroUse => m !== null);
}

/**
 * The `#[cfg(…)]` predicates the tokens of a macro put on the site, outermost first: the
 * attributes that open each segment (a match arm, a statement, a comma-separated element) holding
 * it, in every group from `root` down (`#[cfg(feature = "x")] (a, _) => panic!(…)` in a
 * `macro_rules!` body). Read with the lexer: tree-sitter leaves these tokens flat.
 * Note: a segment starts after `,`, `;`, a group's opener or the `}` of a block at its depth.
 */
function tokenGates(root: ViewNode, at: number): string[] {
  const text = root.view.text;
  const base = root.start;
  const tokens = root.memo("tokens", () => tokenize(text.slice(root.start, root.end)));
  const frames: { seg: number; outer: number }[] = [];
  for (let i = 0; i < tokens.length && tokens[i]!.start + base < at; i++) {
    const t = tokens[i]!;
    if (t.kind === "open") frames.push({ seg: i + 1, outer: frames.at(-1)?.seg ?? -1 });
    else if (t.kind === "close") {
      frames.pop();
      if (t.text === "}" && frames.length > 0) frames.at(-1)!.seg = i + 1;
    } else if ((t.text === "," || t.text === ";") && frames.length > 0) frames.at(-1)!.seg = i + 1;
    // Note: a macro's repetition `$( … )*` (or `+`, `?`) ends a segment as a `,` would: what follows it (`#[cfg(…)] arm => …`) starts anew.
    else if ((t.text === "*" || t.text === "+" || t.text === "?") && tokens[i - 1]?.text === ")" && frames.length > 0) frames.at(-1)!.seg = i + 1;
  }
  const out: string[] = [];
  const attributesAt = (j: number) => {
    while (j >= 0 && tokens[j]?.text === "#" && tokens[j + 1]?.text === "[") {
      let depth = 0;
      let k = j + 1;
      for (; k < tokens.length; k++) {
        if (tokens[k]!.kind === "open") depth++;
        else if (tokens[k]!.kind === "close" && --depth === 0) break;
      }
      if (k >= tokens.length) return;
      out.push(...cfgPredicate(text.slice(base + tokens[j]!.start, base + tokens[k]!.end)));
      j = k + 1;
    }
  };
  // Note: the root's own group is the macro's arguments; its segments start at its opener.
  for (const f of frames.slice(1)) attributesAt(f.outer);
  if (frames.length > 0) attributesAt(frames.at(-1)!.seg);
  return out;
}

/**
 * `check` with the receiver of the method call whose name starts at `at` in the token tree `root`
 * (`fut.take_output().expect("…").ok()` before `.expect(…)`): the names, paths, calls and indexes
 * chained by `.` and `::` back to what cannot be part of them; as it was where none is read.
 */
function withTokenReceiver(check: Condition, root: ViewNode, at: number): Condition {
  const text = root.view.text;
  const base = root.start;
  const tokens = root.memo("tokens", () => tokenize(text.slice(root.start, root.end)));
  const pair = root.memo("pairs", () => matching(tokens));
  let dot = -1;
  for (let i = 0; i < tokens.length && tokens[i]!.start + base < at; i++) dot = i;
  if (dot < 1 || tokens[dot]!.text !== ".") return check;
  let k = dot - 1;
  for (;;) {
    const x = tokens[k];
    if (x === undefined) break;
    // Note: a group (a call's arguments, an index) is stepped over whole; an unpaired closer ends the receiver.
    if (x.kind === "close") {
      if (pair[k]! >= k) break;
      k = pair[k]! - 1;
      continue;
    }
    if (x.text === "?") {
      k--;
      continue;
    }
    if (x.kind === "ident" && !RECEIVER_STOPS.has(x.text)) {
      // Note: a metavariable (`$fut`, `$crate`) is its `$` and its name.
      if (tokens[k - 1]?.text === "$") k--;
      const before = tokens[k - 1]?.text;
      if (before === "." || before === "::") {
        k -= 2;
        continue;
      }
      k--;
    }
    break;
  }
  const from = k + 1;
  if (from >= dot) return check;
  // Note: a chain written over lines (`fut\n    .take_output()`) is joined; other white space kept as one space.
  const receiver = text.slice(base + tokens[from]!.start, base + tokens[dot - 1]!.end).replace(/\s*\n\s*/g, "").replace(/\s+/g, " ");
  return { ...check, receiver };
}

/** Keywords that end a receiver read backwards (`return x.expect(…)`): they are no part of it. */
const RECEIVER_STOPS: ReadonlySet<string> = new Set(["return", "let", "in", "if", "match", "else", "while", "for", "loop", "break", "continue", "move", "mut", "ref", "unsafe"]);

/** A group of a token tree open around a point, as `tokenConditions` reads it. */
interface TokenFrame {
  /** Where the current statement, argument or arm starts at this level (a token index). */
  seg: number;
  /** The branch this group is the body of (`if`, `if let`, an `else`), if any. */
  readonly branch: Condition | null;
  /** The `if`/`if let` whose block closed last at this level, for an `else` after it. */
  lastIf: Condition | null;
  /** For a `match`'s body, or a `$( … )` repetition of arms in one: the match it holds arms of. */
  readonly match: TokenMatch | null;
  /** For a group that is an arm's value (`=> { … }`): the match it ends an arm of when it closes. */
  readonly armOf: TokenMatch | null;
}

/** A `match` in a token tree: its scrutinee and line, its arms so far, and where the current arm's `=>` is. */
interface TokenMatch {
  readonly scrutinee: string;
  readonly line: number;
  readonly arms: MatchArm[];
  armStart: number;
  arrow: number;
}

/**
 * The `match` arms and `if`/`if let`/`else` branches around offset `at` in a token tree (a
 * `macro_rules!` body), outermost first, read from its tokens: a `match EXPR { … }` group's arms
 * end at a `,` after their `=>`, at the `}` of a block value, or with a `$( … )*` repetition of
 * arms (whose arms count as earlier ones, their metavariables as written). Loops and closures are
 * not read (their bodies are groups like any other).
 */
function tokenConditions(root: ViewNode, at: number): Condition[] {
  const text = root.view.text;
  const base = root.start;
  const tokens = root.memo("tokens", () => tokenize(text.slice(root.start, root.end)));
  const pair = root.memo("pairs", () => matching(tokens));
  const src = (from: number, to: number) => (from > to ? "" : text.slice(base + tokens[from]!.start, base + tokens[to]!.end).replace(/\s+/g, " ").trim());
  const lineAt = (k: number) => root.view.lineOf(base + tokens[k]!.start);
  /** The first token from `from` to `to` (exclusive) at the depth of `from` that is `word`, or -1. */
  const atTop = (from: number, to: number, word: string) => {
    for (let k = from, depth = 0; k < to; k++) {
      const x = tokens[k]!;
      if (x.kind === "open") depth++;
      else if (x.kind === "close") depth--;
      else if (depth === 0 && x.text === word) return k;
    }
    return -1;
  };
  const arm = (m: TokenMatch, end: number): MatchArm => {
    let from = m.armStart;
    const attributes: string[] = [];
    while (tokens[from]?.text === "#" && tokens[from + 1]?.text === "[") {
      const k = Math.min(pair[from + 1]!, end - 1);
      attributes.push(src(from, k));
      from = k + 1;
    }
    const guardAt = atTop(from, end, "if");
    return guardAt < 0 ? { pattern: src(from, end - 1), guard: null, attributes } : { pattern: src(from, guardAt - 1), guard: src(guardAt + 1, end - 1), attributes };
  };
  const endArm = (m: TokenMatch, next: number) => {
    if (m.arrow >= 0) m.arms.push(arm(m, m.arrow));
    m.arrow = -1;
    m.armStart = next;
  };
  const frames: TokenFrame[] = [];
  for (let i = 0; i < tokens.length && tokens[i]!.start + base < at; i++) {
    const t = tokens[i]!;
    const top = frames.at(-1);
    const m = top?.match ?? null;
    if (t.kind === "open") {
      if (top === undefined) {
        frames.push({ seg: i + 1, branch: null, lastIf: null, match: null, armOf: null });
        continue;
      }
      // Note: `$( … )*` among a match's arms holds arms of the same match.
      if (t.text === "(" && tokens[i - 1]?.text === "$" && m !== null && m.arrow < 0) {
        m.armStart = i + 1;
        frames.push({ seg: i + 1, branch: null, lastIf: null, match: m, armOf: null });
        continue;
      }
      let branch: Condition | null = null;
      let match: TokenMatch | null = null;
      if (t.text === "{") {
        // Note: what opens the group is read back to the start of its statement, argument or arm value.
        const lo = m !== null ? (m.arrow >= 0 ? m.arrow + 1 : i) : top.seg;
        // Note: a group on the way back (`match ($a, $b) {`) is stepped over whole; a block's `}` ends the search (what precedes it is another statement's).
        let k = i - 1;
        while (k >= lo && tokens[k]!.text !== "}" && !(tokens[k]!.kind === "ident" && (tokens[k]!.text === "match" || tokens[k]!.text === "if" || tokens[k]!.text === "else")) && tokens[k]!.text !== "=>" && tokens[k]!.text !== ";" && tokens[k]!.text !== ",") k = tokens[k]!.kind === "close" ? Math.min(pair[k]!, k) - 1 : k - 1;
        const word = k >= lo && tokens[k]!.kind === "ident" ? tokens[k]!.text : null;
        if (word === "match") match = { scrutinee: src(k + 1, i - 1), line: lineAt(k), arms: [], armStart: i + 1, arrow: -1 };
        else if (word === "if" && tokens[k + 1]?.text === "let") {
          const eq = atTop(k + 2, i, "=");
          if (eq > k + 2) branch = { kind: "if-let", line: lineAt(k), pattern: src(k + 2, eq - 1), value: src(eq + 1, i - 1), holds: true };
        } else if (word === "if" && k < i - 1) branch = { kind: "if", line: lineAt(k), condition: src(k + 1, i - 1), holds: true };
        else if (word === "else" && k === i - 1 && top.lastIf !== null) branch = { ...top.lastIf, holds: false };
      }
      frames.push({ seg: i + 1, branch, lastIf: null, match, armOf: m !== null && m.arrow === i - 1 ? m : null });
      continue;
    }
    if (t.kind === "close") {
      const done = frames.pop();
      const outer = frames.at(-1);
      if (done === undefined || outer === undefined) continue;
      if (done.branch?.holds === true) outer.lastIf = done.branch;
      if (done.armOf !== null) endArm(done.armOf, i + 1);
      else if (done.match !== null && outer.match === done.match) {
        // Note: after a repetition's `)` come its separator and `*`, `+` or `?`: the next arm starts after them.
        let k = i + 1;
        while (k < tokens.length && (tokens[k]!.text === "*" || tokens[k]!.text === "+" || tokens[k]!.text === "?" || tokens[k]!.text === ",")) k++;
        endArm(done.match, k);
      }
      if (t.text === "}" && outer.match === null) outer.seg = i + 1;
      continue;
    }
    if (m !== null) {
      if (t.text === "=>" && m.arrow < 0) m.arrow = i;
      else if (t.text === "," && m.arrow >= 0) endArm(m, i + 1);
      else if (t.text === "," && m.armStart === i) m.armStart = i + 1;
      continue;
    }
    if (top !== undefined && (t.text === ";" || t.text === ",")) {
      top.seg = i + 1;
      top.lastIf = null;
    }
  }
  const out: Condition[] = [];
  for (const [k, f] of frames.entries()) {
    if (f.branch !== null) out.push(f.branch);
    const m = f.match;
    // Note: the site is in an arm's value once the arm's `=>` is behind it; a repetition of arms inside the body says it once, innermost.
    if (m !== null && m.arrow >= 0 && frames[k + 1]?.match !== m) {
      const own = arm(m, m.arrow);
      out.push({ kind: "match", line: m.line, scrutinee: m.scrutinee, pattern: own.pattern, guard: own.guard, attributes: own.attributes, earlierArms: [...m.arms] });
    }
  }
  return out;
}

/** A `return`, `break`, `continue` or `?` operator: the function or loop may be left there. */
const EXIT = /\b(?:return|break|continue)\b|\?(?=\s*[.;,)\]}])/;
/** A `return` or a `?`: an exit of the function. */
const FUNCTION_EXIT = /\breturn\b|\?(?=\s*[.;,)\]}])/;

/**
 * Where the closure or `async` block that starts at token `k` ends (its last token), or `k` when
 * none starts there: `|…|` or `||` where an operand is expected, then a `{ … }` body or an
 * expression up to a `,`, `;` or closing bracket of its level; `async { … }`, `async move { … }`.
 */
function closureEnd(t: readonly Token[], k: number): number {
  const x = t[k]!;
  const block = (open: number): number => {
    let depth = 0;
    for (let j = open; j < t.length; j++) {
      if (t[j]!.text === "{") depth++;
      else if (t[j]!.text === "}" && --depth === 0) return j;
    }
    return t.length - 1;
  };
  if (x.text === "async") {
    const open = t[k + 1]?.text === "move" ? k + 2 : k + 1;
    return t[open]?.text === "{" ? block(open) : k;
  }
  if ((x.text !== "|" && x.text !== "||") || (k > 0 && !CLOSURE_OPENERS.has(t[k - 1]!.text))) return k;
  let j = k + 1;
  if (x.text === "|") while (j < t.length && t[j]!.text !== "|") j++;
  else j = k;
  j++;
  // An explicit return type (`|x| -> T { … }`) comes before a block body.
  if (t[j]?.text === "->") while (j < t.length && t[j]!.text !== "{") j++;
  if (t[j]?.text === "{") return block(j);
  let depth = 0;
  for (; j < t.length; j++) {
    const y = t[j]!.text;
    if (y === "(" || y === "[" || y === "{") depth++;
    else if (y === ")" || y === "]" || y === "}") {
      if (depth === 0) return j - 1;
      depth--;
    } else if (depth === 0 && (y === "," || y === ";")) return j - 1;
  }
  return t.length - 1;
}

/** The pattern of a `let` (up to its type or `=`). */
const LET = /\blet\s+([^=;:]+?)\s*(?::[^=;]*)?=/g;

/**
 * The code's own `//` comment on the site, as `comment` (nothing when there is none): the lines
 * right above the statement or `match` arm that holds it, joined with spaces, then one written
 * after that statement or arm on its last line (`0 => panic!(), // special case elsewhere`). Doc comments
 * (`///`, `//!`) are an item's; a blank line ends the comment above; a statement that does not
 * start its line, or a site in a token tree, has none above it.
 */
function commentAbove(chain: readonly ViewNode[]): { comment?: string } {
  const node = chain[0]!;
  const text = node.view.text;
  const lines: string[] = [];
  const k = chain.findIndex((n, i) => n.type === "token_tree" || n.type === "match_arm" || chain[i + 1]?.type === "block");
  if (k >= 0 && chain[k]!.type !== "token_tree") {
    const start = chain[k]!.start;
    let lineStart = text.lastIndexOf("\n", start - 1) + 1;
    const startsLine = text.slice(lineStart, start).trim() === "";
    while (startsLine && lineStart > 0) {
      const above = text.lastIndexOf("\n", lineStart - 2) + 1;
      const line = text.slice(above, lineStart - 1).trim();
      if (!line.startsWith("//") || line.startsWith("///") || line.startsWith("//!")) break;
      lines.unshift(line.replace(/^\/\/\s*/, ""));
      lineStart = above;
    }
  }
  const end = k >= 0 && chain[k]!.type !== "token_tree" ? chain[k]!.end : node.end;
  const eol = text.indexOf("\n", end);
  const after = /^[\s,;)]*\/\/(?![\/!])(.*)$/.exec(text.slice(end, eol < 0 ? text.length : eol))?.[1];
  if (after !== undefined) lines.push(after);
  const comment = lines.join(" ").replace(/\s+/g, " ").trim();
  return comment === "" ? {} : { comment };
}

/**
 * The `let` statements of `src` (the text between the path's outermost step and the site), in
 * source order, each from its keyword to the `;` that ends it at its own depth, as `pathLets`
 * (nothing when there are none). An `if let`/`while let` is a condition, not among them.
 * Note: a `let` in a block that closes before the site is among them: a name it binds may be out
 *   of scope at the site, so a reading of them may only add sources, never drop one.
 */
function withLets(src: string): { pathLets?: string[] } {
  const toks = tokenize(src);
  const out: string[] = [];
  for (let i = 0; i < toks.length; i++) {
    const prev = toks[i - 1]?.text;
    if (toks[i]!.kind !== "ident" || toks[i]!.text !== "let" || prev === "if" || prev === "while" || prev === "&&" || prev === "||") continue;
    let depth = 0;
    for (let j = i + 1; j < toks.length; j++) {
      const t = toks[j]!;
      if (t.kind === "open") depth++;
      else if (t.kind === "close" && --depth < 0) break;
      else if (depth === 0 && t.text === ";") {
        out.push(src.slice(toks[i]!.start, t.end));
        break;
      }
    }
  }
  return out.length === 0 ? {} : { pathLets: out };
}

/**
 * Source text as the lexer reads it, for keyword scans: its tokens, string and char literals
 * each blanked to a space, comments and white space between tokens each one space; with
 * `withoutClosures`, the closures and `async` blocks left out (a `return` or `?` there leaves
 * them, not the function).
 */
function code(src: string, withoutClosures = false): string {
  let out = "";
  let end = 0;
  const t = tokenize(src);
  for (let k = 0; k < t.length; k++) {
    const x = t[k]!;
    if (withoutClosures) {
      const skip = closureEnd(t, k);
      if (skip > k) {
        k = skip;
        end = t[Math.min(skip, t.length - 1)]!.end;
        out += " ";
        continue;
      }
    }
    if (x.start > end) out += " ";
    out += x.kind === "string" || x.kind === "char" ? " " : x.text;
    end = x.end;
  }
  return end < src.length ? `${out} ` : out;
}

function visibility(n: ViewNode): string | null {
  // Note: a visibility modifier, when there is one, is an item's first named child.
  return n.memo("visibility", () => {
    const first = n.firstNamedChild;
    return first !== null && first.type === "visibility_modifier" ? first.text : null;
  });
}

/** The predicate of `#[cfg(…)]` / `#![cfg(…)]` (`cfgPredicateText`) as a list of one; nothing for other attributes. */
function cfgPredicate(attribute: string): string[] {
  const predicate = cfgPredicateText(attribute);
  return predicate === null ? [] : [predicate];
}

/**
 * True when an attribute may stand right before offset `start`: the last character before it,
 * past white space and `//` comment lines, is `]` (or a block comment ends there).
 * Note: a text check first; the tree's siblings are walked only when it says yes.
 */
function attributeBefore(text: string, start: number): boolean {
  let j = start - 1;
  for (;;) {
    while (j >= 0 && isSpace(text.charCodeAt(j))) j--;
    if (j < 0) return false;
    if (text[j] === "]" || text[j] === "/") return true;
    const lineStart = text.lastIndexOf("\n", j) + 1;
    if (!/^\s*\/\//.test(text.slice(lineStart, j + 1))) return false;
    j = lineStart - 1;
  }
}

/** True when the function item `fn` has `#[track_caller]` among its outer attributes. */
function trackCaller(fn: ViewNode): boolean {
  for (let s = fn.previousNamedSibling; s !== null; s = s.previousNamedSibling) {
    const type = s.type;
    if (type === "line_comment" || type === "block_comment") continue;
    if (type !== "attribute_item") return false;
    if (/^#\s*\[\s*track_caller\s*\]$/.test(s.text.trim())) return true;
  }
  return false;
}

/** The cfg predicates of the outer attributes right before a statement or item, in reverse source order. Read once per node. */
function cfgBefore(n: ViewNode): readonly string[] {
  return n.memo("cfgBefore", () => {
    // Note: a cfg attribute before `n` is a sibling: it starts between the parent's start and `n`'s.
    if (!attributeBefore(n.view.text, n.start) || !n.view.cfgAttributeBetween(n.parent?.start ?? 0, n.start)) return [];
    const out: string[] = [];
    for (let s = n.previousNamedSibling; s !== null; s = s.previousNamedSibling) {
      const type = s.type;
      if (type === "line_comment" || type === "block_comment") continue;
      if (type !== "attribute_item") break;
      out.push(...cfgPredicate(s.text).reverse());
    }
    // Note: the walk goes inside out and gates are reversed once it is done; so reverse order here.
    return out;
  });
}

/** Statements that leave the block (`return`, `break`, `continue`). */
const EXITS: ReadonlySet<string> = new Set(["return_expression", "break_expression", "continue_expression"]);

/**
 * The `#[cfg(…)]`'d statements before `statement` in its block that leave it, nearest first:
 * each one's predicate (its attributes' joined with `all`) and line.
 */
function cfgExitsBefore(statement: ViewNode): { predicate: string; line: number }[] {
  const out: { predicate: string; line: number }[] = [];
  for (let s = statement.previousNamedSibling; s !== null; s = s.previousNamedSibling) {
    if (s.type !== "expression_statement" || !EXITS.has(s.namedChildren[0]?.type ?? "")) continue;
    const predicates = [...cfgBefore(s)].reverse();
    if (predicates.length > 0) out.push({ predicate: predicates.length === 1 ? predicates[0]! : `all(${predicates.join(", ")})`, line: s.line });
  }
  return out;
}

/** The cfg predicates of the inner attributes (`#![cfg(…)]`) at the top of a file or module body, in reverse source order. Read once per node. */
function innerCfg(n: ViewNode): readonly string[] {
  return n.memo("innerCfg", () => {
    const text = n.view.text;
    const open = n.type === "source_file" ? n.start : n.start + 1;
    if (!/^(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*#\s*!/.test(text.slice(open, open + 4096))) return [];
    const out: string[] = [];
    for (const c of n.namedChildren) {
      if (c.type === "line_comment" || c.type === "block_comment") continue;
      if (c.type !== "inner_attribute_item") break;
      out.push(...cfgPredicate(c.text));
    }
    return out.reverse();
  });
}

/** The `match` step for a site in `arm`'s value: scrutinee, pattern, guard and the arms before it. Read once per arm. */
function matchCondition(arm: ViewNode): Condition | null {
  return arm.memo("matchCondition", (): Condition | null => {
    const block = arm.parent;
    const expr = block?.parent;
    if (block == null || expr == null || expr.type !== "match_expression") return null;
    const own = readArm(arm);
    const earlierArms: MatchArm[] = [];
    const start = arm.start;
    for (const earlier of block.namedChildren) {
      if (earlier.start >= start) break;
      if (earlier.type === "match_arm") earlierArms.push(readArm(earlier));
    }
    return { kind: "match", line: expr.line, scrutinee: expr.fieldText("value"), pattern: own.pattern, guard: own.guard, attributes: own.attributes, earlierArms };
  });
}

/** An arm's pattern, guard and attributes. Read once per arm. */
function readArm(arm: ViewNode): MatchArm {
  return arm.memo("arm", (): MatchArm => {
    const attributes: string[] = [];
    for (const c of arm.namedChildren) {
      if (c.type === "attribute_item") attributes.push(c.text);
      else break;
    }
    const mp = arm.field("pattern");
    if (mp === null) return { pattern: "", guard: null, attributes };
    const guard = mp.field("condition");
    if (guard === null) return { pattern: mp.text, guard: null, attributes };
    // Note: the guard is a field of the pattern node; the pattern proper is what stands before `if`.
    let end = mp.start;
    for (const c of mp.children) {
      if (c.type === "if") break;
      end = c.end;
    }
    return { pattern: mp.text.slice(0, end - mp.start), guard: guard.text, attributes };
  });
}

/** The check the rule names (`Rule.check`): for `assert*`, the asserted condition (the panic needs it false) or the compared operands; for `.expect`, the receiver. */
function checkCondition(chain: readonly ViewNode[], rule: Pick<Rule, "name" | "check">, read: readonly (readonly Token[])[] | null): Condition | null {
  const node = chain[0]!;
  const text = node.view.text;
  const at = node.line;
  const name = rule.name;
  if (rule.check === "receiver") {
    const fe = chain[1];
    const receiver = fe?.type === "field_expression" ? fe.field("value")?.text : undefined;
    return { kind: "expect", line: at, method: name, ...(receiver === undefined ? {} : { receiver }) };
  }
  if (rule.check === null) return null;
  let args = read;
  if (args === null) {
    const i = skipTrivia(text, node.end);
    if (text[i] !== "!") return null;
    const call = readDelimited(text, skipTrivia(text, i + 1));
    if (call === null) return null;
    args = splitArgs(call.tokens);
  }
  const source = (tokens: readonly Token[] | undefined) => (tokens === undefined || tokens.length === 0 ? undefined : text.slice(tokens[0]!.start, tokens.at(-1)!.end));
  const macro = name;
  if (rule.check === "operands") {
    const left = source(args[0]);
    const right = source(args[1]);
    return left === undefined || right === undefined ? null : { kind: "assert", line: at, macro, left, right };
  }
  const condition = source(args[0]);
  return condition === undefined ? null : { kind: "assert", line: at, macro, condition };
}

/** What a function contributes to every site in it; read once per function and file. */
interface FunctionInfo {
  readonly base: Omit<FunctionFact, "lets" | "flowLets" | "unchangedParams" | "mutableLets" | "assignedFields">;
  /** Plain `let` statements at the top of the body, with where they end. */
  readonly lets: readonly { readonly end: number; readonly text: string }[];
  /** Every `let` with a value and without `mut` at the top of the body, in source order, with where it ends and whether it is among `lets`. */
  readonly flow: readonly { readonly end: number; readonly text: string; readonly plain: boolean }[];
  /** The names `let mut` statements at the top of the body bind, with where each statement ends. */
  readonly mutable: readonly { readonly end: number; readonly names: readonly string[] }[];
  /** For each simple, non-`&mut` parameter: where the first `let` that may rebind it starts (Infinity: none). */
  readonly rebound: ReadonlyMap<string, number>;
  /** The assignments to a field of `self` in the body (`self.pos += i`), with where each is. */
  readonly selfAssigns: readonly { readonly at: number; readonly field: string }[];
}

/** The enclosing function as declared, with what generated guards need to repeat it. */
function describeFunction(fn: ViewNode, site: ViewNode): FunctionFact {
  const info = fn.memo("function", () => readFunction(fn));
  const at = site.start;
  const mutableLets = info.mutable.filter((l) => l.end <= at).flatMap((l) => l.names);
  const flow = info.flow.filter((l) => l.end <= at);
  // Note: `self.pos += i` before the site: the field holds what the function computed, not only what the calls before left.
  const assignedFields = [...new Set(info.selfAssigns.filter((a) => a.at < at).map((a) => a.field))].sort();
  return {
    ...info.base,
    lets: info.lets.filter((l) => l.end <= at).map((l) => l.text),
    ...(flow.every((l) => l.plain) ? {} : { flowLets: flow.map((l) => l.text) }),
    unchangedParams: [...info.rebound].filter(([, from]) => from >= at).map(([name]) => name),
    ...(mutableLets.length === 0 ? {} : { mutableLets }),
    ...(assignedFields.length === 0 ? {} : { assignedFields }),
  };
}


/** The assignments to a field of `self` between `from` and `to` of `text`, in code (not comments or strings): offsets in `text`. */
function selfAssignsIn(text: string, from: number, to: number): { at: number; field: string }[] {
  const src = text.slice(from, to);
  // Note: most bodies assign no field of `self`: the raw text is tested first, its tokens read only where it may.
  if (!SELF_ASSIGN_ANY.test(src)) return [];
  const out: { at: number; field: string }[] = [];
  const t = tokenize(src);
  for (let k = 0; k + 3 < t.length; k++) {
    if (t[k]!.text !== "self" || t[k + 1]!.text !== "." || t[k + 2]!.kind !== "ident") continue;
    const op = t[k + 3]!.text;
    if (op === "=" || (op.length >= 2 && op.endsWith("=") && op !== "==" && op !== "!=" && op !== "<=" && op !== ">=" && op !== "=>")) out.push({ at: from + t[k]!.start, field: t[k + 2]!.text });
  }
  return out;
}

/** An assignment to a field of `self` (`self.pos += i`, `self.len = 0`), not a comparison, as the raw text may show one. */
const SELF_ASSIGN_ANY = /\bself\s*\.\s*[a-z_]\w*\s*(?:[-+*\/%^&|]|<<|>>)?=(?![=>])/;

function readFunction(fn: ViewNode): FunctionInfo {
  const text = fn.view.text;
  const params: ParamFact[] = [];
  let receiver: string | null = null;
  const ps = fn.field("parameters");
  for (const p of ps?.namedChildren ?? []) {
    if (p.type === "self_parameter") receiver = p.text;
    else if (p.type === "parameter") {
      const type = p.field("type");
      // Note: `mut` is a sibling of the pattern field; the pattern as written runs up to the `:`.
      const pattern = type === null ? p.text : p.text.slice(0, type.start - p.start).replace(/\s*:\s*$/, "");
      params.push({ pattern, type: type?.text ?? "" });
    }
  }
  let whereClause: string | null = null;
  let visibility: string | null = null;
  for (const c of namedChildSpans(fn)) {
    if (c.type === "where_clause") whereClause = text.slice(c.start, c.end);
    else if (c.type === "visibility_modifier") visibility = text.slice(c.start, c.end);
  }

  let implType: string | null = null;
  let implTrait: string | null = null;
  let implGenerics: string | null = null;
  let traitName: string | null = null;
  const owner = fn.parent?.type === "declaration_list" ? fn.parent.parent : null;
  if (owner?.type === "impl_item") {
    implType = owner.fieldText("type");
    implTrait = owner.field("trait")?.text ?? null;
    implGenerics = owner.field("type_parameters")?.text ?? null;
  } else if (owner?.type === "trait_item") {
    traitName = owner.fieldText("name");
    implGenerics = owner.field("type_parameters")?.text ?? null;
  }

  const body = fn.field("body");
  const bodyText = body === null ? "" : body.text;
  const rebound = new Map<string, number>();
  for (const p of params) {
    if (!/^[A-Za-z_]\w*$/.test(p.pattern) || /&\s*(?:'\w+\s+)?mut\b/.test(p.type)) continue;
    const at = letBinding(bodyText, p.pattern);
    rebound.set(p.pattern, at < 0 || body === null ? Infinity : body.start + at);
  }
  return {
    base: {
      name: fn.fieldText("name"),
      line: fn.line,
      visibility,
      generics: fn.field("type_parameters")?.text ?? null,
      whereClause,
      receiver,
      params,
      returnType: fn.field("return_type")?.text ?? null,
      implGenerics,
      implType,
      implTrait,
      traitName,
    },
    ...(body === null ? { lets: [], flow: [], mutable: [] } : plainLets(body, text)),
    rebound,
    selfAssigns: body === null ? [] : selfAssignsIn(text, body.start, body.end),
  };
}

/**
 * Where `/\blet\b[^=;]*\bname\b/` first matches in `body` (-1: nowhere): a `let` whose pattern,
 * up to the next `=` or `;`, holds the word `name` (itself a word, `[A-Za-z_]\w*`).
 * Note: read with `indexOf` instead of a regex compiled per parameter.
 */
function letBinding(body: string, name: string): number {
  for (let i = body.indexOf("let"); i >= 0; i = body.indexOf("let", i + 1)) {
    if ((i > 0 && isAsciiWord(body.charCodeAt(i - 1))) || isAsciiWord(body.charCodeAt(i + 3))) continue;
    const eq = body.indexOf("=", i + 3);
    const semi = body.indexOf(";", i + 3);
    const stop = Math.min(eq < 0 ? body.length : eq, semi < 0 ? body.length : semi);
    for (let j = body.indexOf(name, i + 3); j >= 0 && j < stop; j = body.indexOf(name, j + 1)) {
      if (!isAsciiWord(body.charCodeAt(j - 1)) && !isAsciiWord(body.charCodeAt(j + name.length))) return i;
    }
  }
  return -1;
}

/**
 * The `let` statements at the top level of `body` that bind without `mut` or `else` and whose
 * value has no `?`, `.await`, jump, `&mut` or `unsafe`: a guard may repeat them. A site sees
 * those that end before it.
 */
function plainLets(body: ViewNode, text: string): { lets: { end: number; text: string }[]; flow: { end: number; text: string; plain: boolean }[]; mutable: { end: number; names: string[] }[] } {
  const out: { end: number; text: string }[] = [];
  const flow: { end: number; text: string; plain: boolean }[] = [];
  const mutable: { end: number; names: string[] }[] = [];
  // Note: in a tree without errors each `let` statement starts with the keyword's text.
  if (!body.view.hasError && !text.slice(body.start, body.end).includes("let")) return { lets: out, flow, mutable };
  for (const s of namedChildSpans(body)) {
    if (s.type !== "let_declaration") continue;
    const stmt = text.slice(s.start, s.end);
    const eq = stmt.indexOf("=");
    const head = stmt.slice(3, eq < 0 ? stmt.length : eq).replace(/:[^]*$/, "");
    // Note: only the names `mut` marks (`let (mut a, b)` binds `b` immutably).
    if (/\bmut\b/.test(head)) mutable.push({ end: s.end, names: [...head.matchAll(/\bmut\s+(?:r#)?([A-Za-z_]\w*)/g)].map((m) => m[1]!) });
    if (eq < 0 || /\bmut\b/.test(stmt.slice(0, eq))) continue;
    const value = code(stmt.slice(eq + 1));
    const plain = !(EXIT.test(value) || /\b(?:else|await|unsafe|async|loop|while|for)\b|&\s*mut\b|=>/.test(value));
    flow.push({ end: s.end, text: stmt, plain });
    if (plain) out.push({ end: s.end, text: stmt });
  }
  return { lets: out, flow, mutable };
}

/**
 * For each of `names`, the names of the functions in this file that call a function so named
 * (`name(`, `.name(`, `X::name(`, with or without a turbofish), the function itself left out,
 * sorted. Read by the lexer, so the callers' items need no parse; each item holding calls is
 * read once for all the names.
 * Note: a match by name, not a resolved call. A call counts where the lexer reads the name as an
 * identifier in code (not in a comment or a string) in a function's body, the innermost such
 * function being the caller. Callers in test code (in an item that `layout`, made with the
 * table's `isTestAttribute`, marks test code, or in an item inside one: a `#[test]` function, a
 * `#[cfg(test)]` module or impl) are not how users get there.
 */
export function callersOf(text: string, layout: Layout, names: Iterable<string>): Map<string, string[]> {
  const calls = new Map<Item, Hit[]>();
  const found = new Map<string, Set<string>>();
  for (const name of names) {
    found.set(name, new Set());
    for (const at of callsNamed(text, name)) {
      if (/\bfn\s+$/.test(text.slice(Math.max(0, at - 8), at))) continue;
      const item = itemAt(layout.items, at);
      if (item === null || chain(item).some((a) => a.test)) continue;
      const hit: Hit = { at: at - item.start, name, macro: false };
      const known = calls.get(item);
      if (known) known.push(hit);
      else calls.set(item, [hit]);
    }
  }
  for (const [item, hits] of calls) {
    // Note: an item starts where a token does, outside any comment or string: it is read alone.
    for (const spot of layoutOf(text.slice(item.start, item.end), hits.sort((x, y) => x.at - y.at), () => false).spots) {
      const caller = spot.code ? spot.functions.at(-1) : undefined;
      if (caller !== undefined && caller !== spot.name && caller !== "") found.get(spot.name)!.add(caller);
    }
  }
  return new Map([...found].map(([name, callers]) => [name, [...callers].sort()]));
}

/** What may stand between a called function's name and its `(`: white space and a turbofish. */
const CALL_TAIL = /\s*(?:::\s*<[^;{}()]*>\s*)?\(/y;

/**
 * Offsets of the calls `name(`, `name::<…>(` in `text`: where `\bname\s*(?:::\s*<[^;{}()]*>\s*)?\(`
 * matches, left to right, each search going on past the previous match.
 * Note: a plain name is found by `indexOf` and its tail by a sticky regex, instead of compiling
 * and running a regex per name over the whole file. In a long text (`indexed`), the words are
 * indexed once and each name looked up: one search per name would make a file of many functions
 * cost its length times the number of its functions (a 10 MB file: seconds).
 */
export function callsNamed(text: string, name: string, indexed = text.length >= INDEX_FROM): number[] {
  const out: number[] = [];
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    const call = new RegExp(`\\b${name.replace(/^r#/, "r#")}\\s*(?:::\\s*<[^;{}()]*>\\s*)?\\(`, "g");
    for (let m = call.exec(text); m !== null; m = call.exec(text)) out.push(m.index);
    return out;
  }
  if (indexed) {
    // Note: a call's name is a whole word (a longer word fails the tail, or is not at a word's
    //   start), so the starts of the words equal to `name` are all the places to try.
    let from = 0;
    for (const at of wordsOf(text).get(name) ?? []) {
      if (at < from) continue;
      CALL_TAIL.lastIndex = at + name.length;
      if (!CALL_TAIL.test(text)) continue;
      out.push(at);
      from = CALL_TAIL.lastIndex;
    }
    return out;
  }
  for (let at = text.indexOf(name); at >= 0; ) {
    CALL_TAIL.lastIndex = at + name.length;
    if ((at > 0 && isAsciiWord(text.charCodeAt(at - 1))) || !CALL_TAIL.test(text)) {
      at = text.indexOf(name, at + 1);
      continue;
    }
    out.push(at);
    at = text.indexOf(name, CALL_TAIL.lastIndex);
  }
  return out;
}

/** From this length of text on, `callsNamed` looks names up in an index of the text's words. */
const INDEX_FROM = 256 * 1024;

/** The last text indexed: the starts of its words (`[A-Za-z0-9_]+`, not starting with a digit), by word. */
let indexedWords: { readonly text: string; readonly words: Map<string, number[]> } | null = null;

/** Drops the index of the last long text (extraction calls it when a file is done: it can be tens of MB). */
export function forgetIndexedWords(): void {
  indexedWords = null;
}

function wordsOf(text: string): Map<string, number[]> {
  if (indexedWords?.text === text) return indexedWords.words;
  const words = new Map<string, number[]>();
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) {
    const c = text.charCodeAt(m.index);
    if (c >= 48 && c <= 57) continue;
    const list = words.get(m[0]);
    if (list === undefined) words.set(m[0], [m.index]);
    else list.push(m.index);
  }
  indexedWords = { text, words };
  return words;
}

const WORD = /[A-Za-z0-9_]+/g;
