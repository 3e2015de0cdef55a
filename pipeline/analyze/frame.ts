/**
 * What a panic's deciding check tests, read from its facts: the function's parameters (an input
 * check), a configuration's fields (`self.config.x`, the fields of a `*Config` type), the value the
 * method is called on, or nothing the caller passes (a state the code holds impossible). The one
 * place that decides how a record is framed (its `handlingStrategy` and the prose's stance). Pure.
 *
 * Note: names are read with the project's lexer (rust.ts): a name a condition reads is a parameter
 * when the function declares it, derived from one when a `let` before the site computes it from
 * parameters (transitively); nothing here resolves types.
 */
import type { Condition, FunctionFact, RecordFacts, SiteFacts, SiteKind } from "../schema-types.generated.js";
import { boundNames, genericNames, isConstantName, lex, mayHaveEffects, passesSelf, readNames, splitTopLevel, typeNames } from "./rust.js";

/**
 * How a record is framed:
 * - `input`: the deciding check reads what the caller passes (parameters, values computed from them, a config's fields), and users call the function or reach it through calls the index resolves;
 * - `internal`: such a check in a function that is not public and that no entry point of the symbol index reaches: the crate's own calls pass what it reads;
 * - `relayed`: such a check, or one of the value the method is called on, in a function users reach only through other functions the index resolves: what those pass it (whether they check first) is not worked out;
 * - `state`: it reads only the value the method is called on (`self`), which earlier calls built;
 * - `path`: a `panic!` under branches on the function's own values (neither inputs nor `self`);
 * - `invariant`: the code says the state cannot happen (`unreachable!`, an `assert*` of its own values);
 * - `missing`: the path is not implemented (`todo!`, `unimplemented!` or a panic that says "not supported");
 * - `error`: an `.expect` or a closure std calls on None or Err;
 * - `always`: nothing conditional decides it once execution gets there;
 * - `expansion`: it sits in another macro's tokens, whose conditions the tree does not show;
 * - `callee`: the site is a call whose callee panics with the message it is given (`wrapper-call`,
 *   `declared-call`), and no condition on the way to the call reads an input: the callee decides.
 */
export type Frame = "input" | "internal" | "relayed" | "state" | "path" | "invariant" | "missing" | "error" | "always" | "expansion" | "callee";

/** A record's frame and the names it rests on. */
export interface Framing {
  readonly frame: Frame;
  /** The parameters the deciding check reads, directly or through the `let`s before it, in declaration order. */
  readonly params: readonly string[];
  /** The function's own values the deciding check reads directly that come from `params` (`tensor` of `let tensor = param.consume()`): what it tests where it does not read the parameters themselves. */
  readonly viaLocals: readonly string[];
  /** The parameters it reads only through a `let` whose value calls with effects (`let prev = map.insert(id, v)`), in declaration order: what it tests is that call's answer. */
  readonly throughEffects: readonly string[];
  /** The generic parameters of the function or its impl it reads (`const D: usize`, `E` of `E::dtype()`): the caller's types choose them. */
  readonly generics: readonly string[];
  /** The configuration fields it reads (`self.config.x` → `config.x`, `self.x` in a `*Config` impl → `x`). */
  readonly configFields: readonly string[];
  /** The deciding conditions: the failing check of an `assert*`, else the branches that lead to the site. */
  readonly deciding: readonly Condition[];
  /** True when the deciding conditions call with effects (`block_on(rx)`, `recv()`): they test what the world answered at run time. */
  readonly effects: boolean;
  /** True when they also read the state of the value the method is called on (`self`, not a configuration's fields), directly or through the `let`s before them. */
  readonly readsSelf: boolean;
  /** True when they read the value the method is called on (`self`) at all, a configuration's included, directly or through the `let`s before them. */
  readonly selfBehind: boolean;
  /** The values they read, directly or through the `let`s before them, that the function binds with `let mut` (`FunctionFact.mutableLets`), and the fields of `self` they read that it assigns before the site (`self.pos`, `FunctionFact.assignedFields`): what it changes them with is not read, so they are not traced to the parameters. */
  readonly mutated: readonly string[];
}

/** Option/Result methods that call their closure argument only on None or Err. */
export const ERROR_HANDLERS = /\.\s*(?:unwrap_or_else|or_else|map_err|ok_or_else)\s*$/;

/**
 * Messages that say a path is not implemented or not supported.
 * Note: words of Rust's and English's, no target's: a dtype or shape mismatch is not among them.
 */
const MISSING_TEXT = /\b(?:not (?:yet )?(?:been )?(?:supported|implemented|available)|unsupported|unimplemented|not (?:yet )?support(?:ed)?|no support|todo)\b|\byet\b/i;

/** A type that configures: its name ends in `Config` or `Options` (the convention of Rust crates' builder structs). */
const CONFIG_TYPE = /(?:Config|Configuration|Options|Settings)$/;

function branchesOf(conditions: readonly Condition[]): Condition[] {
  return conditions.filter((c) => c.kind !== "loop" && c.kind !== "closure" && c.kind !== "async-block" && c.kind !== "for" && c.kind !== "macro-rule");
}

/** The source a condition reads, as one string (the names in it are read with `readNames`). */
export function conditionSource(c: Condition): string {
  switch (c.kind) {
    case "if":
    case "while":
      return c.condition ?? "";
    case "match":
      return `${c.scrutinee ?? ""} ${c.guard ?? ""}`;
    case "if-let":
    case "let-else":
    case "while-let":
    case "for":
      return c.value ?? "";
    case "assert":
      return c.condition ?? `${c.left ?? ""} ${c.right ?? ""}`;
    case "expect":
      return c.receiver ?? "";
    default:
      return "";
  }
}

/**
 * The parameters `names` come from: parameters themselves, through the patterns of the path's
 * `for`, `match`, `if let` and `let … else` (a name they bind comes from what they match), or
 * through the `let`s on the path and then the function's (last to first); `effects` also
 * follows a `let` whose value calls with effects (`map.insert(id, hash)`), whose answer is the
 * world's as much as the caller's.
 */
export function paramsBehind(fn: FunctionFact, facts: SiteFacts, names: readonly string[], effects = false): string[] {
  const params = fn.params.flatMap((p) => boundNames(p.pattern));
  const found = namesBehind(fn, facts, names, effects);
  return params.filter((p) => found.has(p));
}

/** The names `names` come from, themselves included: through the patterns and `let`s of the path and the function, as `paramsBehind` follows them. */
function namesBehind(fn: FunctionFact, facts: SiteFacts, names: readonly string[], effects: boolean): Set<string> {
  const conditions = facts.conditions;
  const pending = new Set(names);
  const follow = (stmts: readonly string[]) => {
    for (let i = stmts.length - 1; i >= 0; i--) {
      const stmt = stmts[i]!;
      const eq = stmt.indexOf("=");
      if (eq < 0) continue;
      const binds = boundNames(stmt.slice(3, eq).replace(/:[^=]*$/, ""));
      // Note: a value a call with effects gives (a channel's answer, a read) is the world's, not the caller's.
      if (!binds.some((b) => pending.has(b)) || (!effects && mayHaveEffects(stmt.slice(eq + 1), false))) continue;
      for (const b of binds) pending.delete(b);
      for (const r of readNames(stmt.slice(eq + 1).replace(/;\s*$/, ""))) pending.add(r);
    }
  };
  follow(facts.pathLets ?? []);
  for (let i = conditions.length - 1; i >= 0; i--) {
    const c = conditions[i]!;
    // Note: a let chain (`if let Some(w) = &self.weights && D > 1`) binds as an `if let` does.
    if (c.kind === "if" || c.kind === "while") {
      // Note: last part first, as the conditions are walked: a later part's value may read what an earlier part binds.
      for (const [pattern, value] of letChain(c.condition ?? "").reverse()) {
        const chained = boundNames(pattern);
        if (!chained.some((b) => pending.has(b))) continue;
        for (const b of chained) pending.delete(b);
        for (const r of readNames(value)) pending.add(r);
      }
      continue;
    }
    const binds = c.kind === "match" || c.kind === "for" || c.kind === "if-let" || c.kind === "while-let" || c.kind === "let-else" ? boundNames(c.pattern ?? "") : [];
    if (!binds.some((b) => pending.has(b))) continue;
    for (const b of binds) pending.delete(b);
    for (const r of readNames(c.kind === "match" ? (c.scrutinee ?? "") : (c.value ?? ""))) pending.add(r);
  }
  follow(fn.flowLets ?? fn.lets);
  return new Set([...names, ...pending]);
}

/**
 * The `let PATTERN = VALUE` parts of a condition joined by top-level `&&` (a let chain), as
 * `[pattern, value]` pairs; none for a condition without one.
 */
export function letChain(condition: string): [string, string][] {
  if (!/\blet\b/.test(condition)) return [];
  const parts = splitTopLevel(condition, "&&", false);
  return parts.flatMap((part): [string, string][] => {
    const m = /^\s*let\s+([\s\S]*?[^=!<>.])=(?![=>])([\s\S]*)$/.exec(part);
    return m === null ? [] : [[m[1]!.trim(), m[2]!.trim()]];
  });
}

/** The configuration fields a condition's source reads. */
function configFieldsOf(src: string, fn: FunctionFact | undefined): string[] {
  const out = new Set<string>();
  for (const m of src.matchAll(/\bself\s*\.\s*(config|options|settings)\s*\.\s*([a-z_]\w*)/g)) out.add(`${m[1]}.${m[2]}`);
  if (fn?.receiver != null && CONFIG_TYPE.test(fn.implType ?? "")) for (const m of src.matchAll(/\bself\s*\.\s*([a-z_]\w*)\b(?!\s*\()/g)) out.add(m[1]!);
  for (const p of fn?.params ?? []) {
    if (!CONFIG_TYPE.test(p.type.replace(/[&\s]|mut\b|<.*$/g, ""))) continue;
    for (const name of boundNames(p.pattern)) for (const m of src.matchAll(new RegExp(`\\b${name}\\s*\\.\\s*([a-z_]\\w*)\\b(?!\\s*\\()`, "g"))) out.add(`${name}.${m[1]}`);
  }
  return [...out].sort();
}

/** True for a `match` arm pattern that takes every value left (`_`, a binding, a tuple of those: `(_, _)`). */
export function isCatchAll(pattern: string): boolean {
  const p = pattern.trim();
  return p === "_" || /^[a-z_]\w*$/.test(p) || /^\(\s*(?:_|[a-z_]\w*)(?:\s*,\s*(?:_|[a-z_]\w*))*\s*,?\s*\)$/.test(p);
}

/** True for a pattern of constants and integer literals alone (`EMPTY`, `Self::PARKED`, `0 | 1`). */
function isConstantPattern(pattern: string): boolean {
  return pattern.split("|").every((p) => {
    const path = p.trim().split(/\s*::\s*/);
    return /^-?[0-9][0-9_]*$/.test(p.trim()) || (path.every((x) => /^[A-Za-z_]\w*$/.test(x)) && isConstantName(path.at(-1)!));
  });
}

/** True when the message says the path is not implemented or not supported. */
export function saysMissing(message: string): boolean {
  return MISSING_TEXT.test(message);
}

/** True for `Drop::drop`: rustc rejects calling it (E0040), and a panic there while unwinding aborts. */
export function isDrop(fn: FunctionFact | undefined): boolean {
  return fn !== undefined && fn.name === "drop" && /(?:^|::)Drop$/.test(fn.implTrait ?? "");
}

/** True when the function's visibility lets code outside its module call it: `pub`, a trait's method, or an implementation of one (a visibility test only: its module may still be out of users' reach). */
export function callable(fn: FunctionFact): boolean {
  return fn.visibility === "pub" || fn.implTrait !== null || fn.traitName !== null;
}

/**
 * True when users' calls may get to the site's function: the symbol index lists entry points for
 * it (itself or a public function that calls it); where it lists none or the run has no index,
 * when its visibility lets other modules call it (the index may miss a way in: a module declared
 * twice under opposite gates, a call through a function pointer).
 */
export function reachedByUsers(facts: SiteFacts | RecordFacts): boolean {
  const entries = (facts as RecordFacts).entryPoints;
  return (entries ?? []).length > 0 || facts.function === undefined || callableUnlisted(facts.function, entries !== undefined);
}

/**
 * Whether a function the symbol index lists no entry point for is taken as callable all the same
 * (`indexed`: the run has an index): by its visibility (`callable`), but a method of a trait's
 * impl only without an index. The index decides an impl's methods by where its type and trait
 * are declared and re-exported: a type or trait users cannot name leaves none for them, and
 * what it misses (a module declared twice under opposite gates) are free functions' ways in.
 */
function callableUnlisted(fn: FunctionFact, indexed: boolean): boolean {
  return callable(fn) && !(indexed && fn.implTrait !== null && fn.visibility !== "pub");
}

/**
 * True when users call the site's function itself: the symbol index lists it as its own entry
 * point (public, reachable from the crate root); where it lists no entry point at all or the run
 * has no index, when its visibility lets other modules call it. Code written for the user (guards,
 * calls in fixes) calls only such.
 */
export function calledByUsers(fn: FunctionFact, facts: RecordFacts): boolean {
  const entries = facts.entryPoints ?? [];
  return entries.length === 0 ? callableUnlisted(fn, facts.entryPoints !== undefined) : entries.some((e) => e.via.length === 1);
}

/** The last condition of the site's path when it is the `Err(…)` arm of an `if let` or a `match` (`Err(e) => panic!(…)`); else undefined. */
export function errorArm(facts: SiteFacts): Condition | undefined {
  const last = facts.conditions.at(-1);
  if (last === undefined || !((last.kind === "if-let" && last.holds !== false) || last.kind === "match")) return undefined;
  return /^Err\s*\(\s*(?:ref\s+)?(?:[a-z_]\w*|_)\s*\)$/.test((last.pattern ?? "").trim()) ? last : undefined;
}

/** The frame of a panic site from its kind, message and facts. */
export function frameOf(kind: SiteKind, message: string, facts: SiteFacts): Framing {
  const fn = facts.function;
  const branches = branchesOf(facts.conditions);
  const last = facts.conditions.at(-1);
  const deciding = kind.includes("assert") && last?.kind === "assert" ? [last] : branches.filter((c) => c.kind !== "expect");
  const sources = deciding.map(conditionSource).join(" ");
  const reads = readNames(sources);
  const params = fn === undefined ? [] : paramsBehind(fn, facts, reads);
  const throughEffects = fn === undefined ? [] : paramsBehind(fn, facts, reads, true).filter((p) => !params.includes(p));
  const viaLocals = fn === undefined ? [] : reads.filter((n) => n !== "self" && !params.includes(n) && paramsBehind(fn, facts, [n]).length > 0);
  const configFields = configFieldsOf(sources, fn);
  const declared = new Set([...genericNames(fn?.generics ?? null), ...genericNames(fn?.implGenerics ?? null)]);
  const generics = [...new Set([...typeNames(sources), ...lex(sources).filter((t) => t.kind === "ident").map((t) => t.text)])].filter((n) => declared.has(n) && !n.startsWith("'")).sort();
  // Note: `unwrap()` on the way panics but asks the world nothing: the check still tests the values it reads.
  const effects = mayHaveEffects(sources, false);
  const selfBehind = fn?.receiver != null && namesBehind(fn, facts, reads, false).has("self");
  const readsSelf = selfBehind && !(fn!.implType !== null && CONFIG_TYPE.test(fn!.implType));
  const mutable = new Set(fn?.mutableLets ?? []);
  // Note: a field of `self` the function assigns before the site (`self.pos += i`) is changed as it goes, as a `let mut` is.
  const assigned = (fn?.assignedFields ?? []).filter((f) => new RegExp(`\\bself\\s*\\.\\s*${f}\\b`).test(sources)).map((f) => `self.${f}`);
  const mutated = [...(fn === undefined || mutable.size === 0 ? [] : [...namesBehind(fn, facts, reads, false)].filter((n) => mutable.has(n))), ...assigned].sort();
  const of = (frame: Frame): Framing => ({ frame, params, viaLocals, throughEffects, generics, configFields, deciding, effects, readsSelf, selfBehind, mutated });
  if (kind === "expect" || kind === "expect-err") return of("error");
  if (facts.macro !== null) return of("expansion");
  if (kind === "todo") return of("missing");
  if (kind === "unreachable") return of("invariant");
  // Note: a `panic!` in the `Err` arm of an `if let` or a `match` is what an error handler's closure is: the call's answer decides, not a check of the values the call is given.
  // Note: one whose call has effects (`recv()`, `block_on(rx)`) keeps the path's framing, which says that the world's answer decides.
  if (kind === "panic" && !effects && errorArm(facts) !== undefined) return of("error");
  const closure = [...facts.conditions].reverse().find((c) => c.kind === "closure");
  if ((kind === "panic" || kind === "wrapper-call") && closure !== undefined && ERROR_HANDLERS.test(closure.callee ?? "")) return of("error");
  const readsInput = (params.length > 0 || configFields.length > 0 || generics.length > 0) && !effects;
  // Note: a `panic!` that says "unsupported" in the catch-all arm of a `match` on what the caller
  //   passes rejects the values the arms before it do not handle (a dtype outside those); in an arm
  //   of its own, or from `unimplemented!`, it marks a path not implemented.
  const rejectsRest = kind === "panic" && readsInput && last?.kind === "match" && isCatchAll(last.pattern ?? "") && (last.earlierArms ?? []).length > 0;
  if ((kind === "unimplemented" || (kind === "panic" && !rejectsRest)) && (message.trim() === "" ? kind === "unimplemented" : saysMissing(message))) return of("missing");
  // Note: an assertion on a value the function binds with `let mut` and changes as it goes (`dst.len()` after the loop that fills `dst`) checks the function's own work: what the caller passes is behind it only through that work, which is not read here.
  if (kind.includes("assert") && mutated.some((n) => !n.startsWith("self.")) && !effects) return of("invariant");
  // Note: in a binary, what a function checks comes from the program's own input (its command line, its files), which its user gives.
  if (readsInput && (facts as RecordFacts).crateKind === "bin") return of("input");
  if (readsInput) return of(!reachedByUsers(facts) ? "internal" : fn === undefined || calledByUsers(fn, facts as RecordFacts) ? "input" : "relayed");
  // Note: a catch-all arm after arms of constants alone (`EMPTY`, `NOTIFIED`, `PARKED`) on the value's own state (`self.state.swap(…)`), with nothing of the caller's read, is the state the code never stores: its assumption, whatever call answered it.
  if (kind === "panic" && last?.kind === "match" && isCatchAll(last.pattern ?? "") && (last.earlierArms ?? []).length > 0 && last.earlierArms!.every((a) => a.guard == null && isConstantPattern(a.pattern)) && readNames(last.scrutinee ?? "").includes("self") && params.length === 0 && generics.length === 0) return of("invariant");
  if (kind === "wrapper-call" || kind === "declared-call") return of("callee");
  if (deciding.length === 0) return of(kind === "unimplemented" ? "missing" : "always");
  // Note: an assertion on what the value a method is called on holds (`self.n_fft`, directly or through the function's `let`s) checks that value: users who call the method set it; one reached only through other functions checks what they leave; one no user reaches is the code's assumption.
  if (kind.includes("assert")) {
    const ofSelf = selfBehind && !effects && !passesSelf(sources);
    if (ofSelf && calledByUsers(fn!, facts as RecordFacts)) return of("state");
    if (ofSelf && (facts as RecordFacts).entryPoints !== undefined && reachedByUsers(facts)) return of("relayed");
    return of("invariant");
  }
  // Note: a condition that calls with effects (`block_on(rx)`, `recv()`) tests what the world answered, not the receiver's state.
  // Note: `self` passed to another function (`try_set_current(&self.inner)`) is that function's input: its answer is no state of the value alone.
  if (!(reads.includes("self") && fn?.receiver != null && !effects && !passesSelf(sources))) return of("path");
  return of(calledByUsers(fn!, facts as RecordFacts) || !reachedByUsers(facts) ? "state" : "relayed");
}
