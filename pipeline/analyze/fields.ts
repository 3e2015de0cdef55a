/**
 * The explanation fields of one record, written only from its facts: templates per panic kind
 * and handling strategy, filled with names and snippets the syntax tree gave. Pure.
 *
 * `handlingStrategy` is chosen by the first rule that applies:
 * 1. `.expect` / `.expect_err` → `handle-error` (the caller's value is None/Err, or Ok);
 * 2. `todo!` / `unimplemented!` → `implement-missing`;
 * 3. `unreachable!` → `fix-invariant`;
 * 4. a site in another macro's tokens (`macro_rules!`, `quote!`, …) → `catch-unwind` for
 *    `panic!`, `fix-invariant` for `assert*` (the conditions of the code that runs are not in
 *    the tree);
 * 5. `assert*` → `validate-input` when the failing check reads only parameters (a `check`
 *    function can be generated), else `fix-invariant` (it checks the function's own state);
 * 6. `panic!` in a closure passed to `unwrap_or_else`, `or_else`, `map_err` or `ok_or_else` →
 *    `handle-error` (std calls it on None or Err);
 * 7. `panic!` with no branch (loops and closures aside) between the function's entry and the
 *    site → `catch-unwind` (no input check avoids it once execution gets there);
 * 8. `panic!` under a `match` arm, `if let`, `let … else` or `while let` → `type-guard` (which
 *    variant or shape reaches it);
 * 9. other `panic!`s (under `if`/`while` conditions) → `validate-input`.
 * A returned error (`errorType` `error`) is no panic: its fields say where its text is written or
 * the error returned, and that the caller handles it (`handle-error`); nothing of a panic's
 * containment (`catch_unwind`) or guards applies (`returnedFields`).
 */
import type { Condition, Envelope, FunctionFact, RecordFacts, SiteFacts, SiteKind } from "../schema-types.generated.js";
import { errorTypeOf } from "../sources/returned.js";
import { generateGuards, type Guards } from "./guard.js";
import { headPaths } from "./rust.js";
import { type OwnWords, withOwnWords } from "./words.js";

type Strategy = "type-guard" | "validate-input" | "fix-invariant" | "implement-missing" | "catch-unwind" | "handle-error";

/** The record fields the analyze stage writes (the LLM analyzer may rewrite the prose ones). */
export interface AnalysisFields {
  readonly documentation: string;
  readonly triggerScenarios: string;
  readonly commonSituations: string;
  readonly solutions: string[];
  readonly exampleFix: string | null;
  readonly handlingStrategy: Strategy;
  readonly validationCode: string | null;
  readonly typeGuard: string | null;
  readonly tryCatchPattern: string | null;
  readonly preventionTips: string[];
  readonly tags: string[];
  readonly backgroundTag: string;
}

/** The names of the analysis fields, in schema order. */
export const ANALYSIS_FIELDS = ["documentation", "triggerScenarios", "commonSituations", "solutions", "exampleFix", "handlingStrategy", "validationCode", "typeGuard", "tryCatchPattern", "preventionTips", "tags", "backgroundTag"] as const satisfies readonly (keyof AnalysisFields)[];
// A compile-time check that the list names every field: this fails to compile when one is missing.
const _everyField: Record<Exclude<keyof AnalysisFields, (typeof ANALYSIS_FIELDS)[number]>, never> = {};
void _everyField;

/** What a record needs to know of the others. */
export interface Peer {
  readonly id: string;
  readonly message: string;
}

/** The facts of a record whose site has none (e.g. an extraction cache written before facts existed). */
export const EMPTY_FACTS: SiteFacts = { items: [], gates: [], conditions: [], macro: null, callers: [], boundInside: [], exitInPath: false, exitBeforePath: false };

/** Crate and module of a file by Cargo's layout: `crates/x/src/a/b.rs` → `x`, `a::b`. */
export function crateAndModule(path: string): { crate: string | null; module: string | null } {
  const parts = path.split("/");
  const at = parts.findLastIndex((p, i) => i < parts.length - 1 && (p === "src" || p === "tests" || p === "benches" || p === "examples"));
  if (at < 0) return { crate: null, module: null };
  const crate = at > 0 ? parts[at - 1]! : null;
  if (parts[at] !== "src") return { crate, module: null };
  const rest = parts.slice(at + 1);
  const file = rest.pop()!.replace(/\.rs$/, "");
  if (!(rest.length === 0 && (file === "lib" || file === "main")) && file !== "mod") rest.push(file);
  return { crate, module: rest.join("::") };
}

/** The record facts: the site's, with crate, module and the ids of records raised in the same function. */
export function recordFacts(path: string, site: SiteFacts, sameFunction: readonly string[]): RecordFacts {
  return { ...crateAndModule(path), ...site, sameFunction: [...sameFunction].sort() };
}

/** A snippet as a code span on one line: line breaks before `.`/`?`/closers and after openers dropped, other runs of white space made one space. */
function code(s: string): string {
  const one = s.replace(/\s*\n\s*(?=[.?)\]}])/g, "").replace(/([(\[{])\s*\n\s*/g, "$1").replace(/,\s*\n\s*(?=[)\]}])/g, "").replace(/\s+/g, " ").trim();
  return one.includes("`") ? `\`\` ${one} \`\`` : `\`${one}\``;
}

function macroLabel(kind: SiteKind): string {
  if (kind === "expect") return "`.expect(…)`";
  if (kind === "expect-err") return "`.expect_err(…)`";
  return `\`${kind.replaceAll("-", "_")}!\``;
}

function itemPath(facts: SiteFacts): string {
  return facts.items.map((i) => (i.kind === "impl" ? `impl ${i.name}` : i.kind === "macro-rules" ? `macro_rules! ${i.name}` : `${i.kind} ${i.name}`)).join(" → ");
}

function isCatchAll(pattern: string): boolean {
  const p = pattern.trim();
  return p === "_" || /^[a-z_]\w*$/.test(p);
}

/** One step of the path condition in words; snippets in code spans are verbatim source. */
export function describeCondition(c: Condition): string {
  switch (c.kind) {
    case "match": {
      const earlier = c.earlierArms ?? [];
      const guard = c.guard == null ? "" : ` and ${code(c.guard)} holds`;
      const scrutinee = code(c.scrutinee ?? "");
      if (isCatchAll(c.pattern ?? "") && earlier.length > 0) {
        const shown = earlier.slice(0, 6).map((a) => code(a.pattern)).join(", ");
        return `${scrutinee} matches none of the arms before it (${shown}${earlier.length > 6 ? `, and ${earlier.length - 6} more` : ""})${guard}`;
      }
      const own = headPaths(c.pattern ?? "");
      const taken = new Set(earlier.flatMap((a) => headPaths(a.pattern) ?? ["\0"]));
      const exclusive = own !== null && own.every((h) => !taken.has(h));
      return `${scrutinee} matches ${code(c.pattern ?? "")}${guard}${exclusive || earlier.length === 0 ? "" : ` and none of the ${earlier.length} arms before it`}`;
    }
    case "if":
      return `${code(c.condition ?? "")} is ${c.holds === false ? "false" : "true"}`;
    case "if-let":
      return `${code(c.value ?? "")} ${c.holds === false ? "does not match" : "matches"} ${code(c.pattern ?? "")}`;
    case "let-else":
      return `${code(c.value ?? "")} does not match ${code(c.pattern ?? "")} (the \`else\` of a \`let … else\`)`;
    case "while":
      return `${code(c.condition ?? "")} is true in a \`while\` loop`;
    case "while-let":
      return `${code(c.value ?? "")} matches ${code(c.pattern ?? "")} in a \`while let\` loop`;
    case "for":
      return `an iteration of ${code(`for ${c.pattern ?? ""} in ${c.value ?? ""}`)} runs`;
    case "loop":
      return "an iteration of a `loop` runs";
    case "closure":
      return `the closure ${code(c.params ?? "||")}${c.callee === undefined ? "" : ` passed to ${code(c.callee)}`} is called`;
    case "macro-rule":
      return `the \`macro_rules!\` arm ${code(c.matcher ?? "")} matches the invocation`;
    case "assert":
      if (c.condition !== undefined) return `${code(c.condition)} is false`;
      return `${code(c.left ?? "")} and ${code(c.right ?? "")} are ${c.macro?.endsWith("_ne") ? "equal" : "not equal"}`;
    case "expect":
      return c.method === "expect_err"
        ? `${c.receiver === undefined ? "the receiver" : code(c.receiver)} is an Ok value`
        : `${c.receiver === undefined ? "the receiver" : code(c.receiver)} holds no value (None) or an error (Err)`;
  }
}

function lastClosure(facts: SiteFacts): Condition | undefined {
  return [...facts.conditions].reverse().find((c) => c.kind === "closure");
}

/** What an `assert*` step needs to hold, in words. */
function assertion(c: Condition): string {
  if (c.condition !== undefined) return `${code(c.condition)} holds`;
  return `${code(c.left ?? "")} ${c.macro?.endsWith("_ne") ? "differs from" : "equals"} ${code(c.right ?? "")}`;
}

function strategyOf(kind: SiteKind, facts: SiteFacts, guards: Guards): Strategy {
  if (kind === "expect" || kind === "expect-err") return "handle-error";
  if (kind === "todo" || kind === "unimplemented") return "implement-missing";
  if (kind === "unreachable") return "fix-invariant";
  if (facts.macro !== null) return kind === "panic" ? "catch-unwind" : "fix-invariant";
  if (kind.includes("assert")) return guards.form === "function" ? "validate-input" : "fix-invariant";
  const closure = lastClosure(facts);
  if (kind === "panic" && closure !== undefined && ERROR_HANDLERS.test(closure.callee ?? "")) return "handle-error";
  const branches = facts.conditions.filter((c) => c.kind !== "loop" && c.kind !== "for" && c.kind !== "closure");
  if (branches.length === 0) return "catch-unwind";
  if (branches.some((c) => c.kind === "match" || c.kind === "if-let" || c.kind === "let-else" || c.kind === "while-let" || c.kind === "macro-rule")) return "type-guard";
  return "validate-input";
}

/** Option/Result methods that call their closure argument only on None or Err. */
const ERROR_HANDLERS = /\.\s*(?:unwrap_or_else|or_else|map_err|ok_or_else)\s*$/;

const CLASS: Record<Strategy, string> = {
  "handle-error": "unhandled-error",
  "implement-missing": "not-implemented",
  "fix-invariant": "invariant-violation",
  "validate-input": "precondition",
  "type-guard": "precondition",
  "catch-unwind": "unconditional",
};

function backgroundOf(kind: SiteKind, strategy: Strategy, facts: SiteFacts): string {
  if (kind === "expect") return "failed-expect";
  if (kind === "panic" && strategy === "handle-error") return "failed-unwrap";
  if (facts.macro !== null) return kind.includes("assert") ? "failed-assertion" : "macro-generated-panic";
  if (kind === "expect-err") return "unexpected-ok";
  if (kind === "todo") return "todo";
  if (kind === "unimplemented") return "not-implemented";
  if (kind === "unreachable") return "unreachable-reached";
  if (kind.includes("assert")) return strategy === "validate-input" ? "failed-precondition" : "failed-assertion";
  if (strategy === "catch-unwind") return "unconditional-panic";
  if (strategy === "validate-input") return "rejected-input";
  const last = [...facts.conditions].reverse().find((c) => c.kind === "match" || c.kind === "if-let" || c.kind === "let-else" || c.kind === "while-let" || c.kind === "macro-rule");
  if (last?.kind === "let-else" || (last?.kind === "if-let" && last.holds === false)) return "pattern-mismatch";
  if (last?.kind === "match" && isCatchAll(last.pattern ?? "")) return "unmatched-variant";
  if (last?.kind === "macro-rule") return "macro-arm";
  return "matched-variant";
}

function callOf(fn: FunctionFact): string {
  const args = fn.params.map((p, i) => (/^(?:mut\s+)?[a-z_]\w*$/.test(p.pattern) ? p.pattern.replace(/^mut\s+/, "") : `arg${i + 1}`)).join(", ");
  if (fn.receiver !== null) return `value.${fn.name}(${args})`;
  if (fn.implTrait !== null && fn.implType !== null) return `<${fn.implType} as ${fn.implTrait}>::${fn.name}(${args})`;
  if (fn.implType !== null) return `<${fn.implType}>::${fn.name}(${args})`;
  if (fn.traitName !== null) return `<T as ${fn.traitName}>::${fn.name}(${args})`;
  return `${fn.name}(${args})`;
}

const COPY_TYPE = /^(?:&.*|u8|u16|u32|u64|u128|usize|i8|i16|i32|i64|i128|isize|f32|f64|bool|char)$/s;

function quoteMessage(m: string): string {
  const one = m.replace(/\s+/g, " ").trim();
  return `"${one.length > 90 ? `${one.slice(0, 87)}…` : one}"`;
}

/**
 * The analysis fields of a record from its kind, message, facts, the messages of the records
 * raised in the same function and, for a returned error, its class. Never states what the facts
 * do not hold.
 */
export function analysisFields(kind: SiteKind, message: string, path: string, line: number, facts: RecordFacts, sameFunction: readonly Peer[], errorClass: string | null = null): AnalysisFields {
  if (errorTypeOf(kind) === "error") return returnedFields(kind, path, line, facts, sameFunction, errorClass);
  const guards = generateGuards(facts, message);
  const strategy = strategyOf(kind, facts, guards);
  const fn = facts.function;
  const label = macroLabel(kind);
  const where = itemPath(facts);
  const fnName = fn === undefined ? null : code(`fn ${fn.name}`);
  const gates = facts.gates.map(code).join(" and ");
  const steps = facts.conditions.map(describeCondition);
  const inMacro = facts.macro === null ? null : code(`${facts.macro}!`);
  /** Sites in another macro's tokens (not `macro_rules!`): the steps say where the macro is written. */
  const tokenTree = facts.macro !== null && facts.macro !== "macro_rules";
  const after = guards.lets.length > 0 ? `after ${guards.lets.map(code).join(" ")}` : null;

  // documentation
  const place = `${where === "" ? "at the top level" : `in ${code(where)}`}${facts.crate === null ? "" : ` of crate ${code(facts.crate)}`} (${code(`${path}:${line}`)})`;
  const doc: string[] = [`${label} ${place}${gates === "" ? "" : `, compiled only with ${gates}`}.`];
  if (kind === "todo") doc.push("`todo!` marks code that is not written yet: reaching it always panics.");
  if (kind === "unimplemented") doc.push("`unimplemented!` marks a path the code does not implement: reaching it always panics.");
  if (kind === "unreachable") doc.push("`unreachable!` states that the author holds this point unreachable: reaching it means an assumption of the code does not hold.");
  if (facts.macro === "macro_rules") doc.push("It sits in a `macro_rules!` body: every expansion through its arm contains it; what the expanded code does around it is not in this syntax tree.");
  else if (inMacro !== null) doc.push(`It sits in the tokens of ${inMacro}: the code made from those tokens raises it, and when that code runs is not in this syntax tree.`);
  if (steps.length > 0 && facts.macro === "macro_rules") doc.push(`Expansions contain it when ${steps.join(", then ")}.`);
  else if (steps.length > 0 && tokenTree) doc.push(`${inMacro} is reached with them when ${steps.join(", then ")}.`);
  else if (steps.length > 0) doc.push(`${after === null ? "It" : `${after[0]!.toUpperCase()}${after.slice(1)}, it`} is raised when ${steps.join(", then ")}.`);
  else if (fn !== undefined) doc.push(`No branch, loop or closure lies between the entry of ${fnName} and the site: every call that gets there panics.`);

  // triggerScenarios
  const subject = fn === undefined ? (facts.items.length > 0 ? `In ${code(itemPath(facts))}` : "Here") : `In ${fnName}`;
  const trigger = facts.macro === "macro_rules"
    ? `${subject}: expansions contain it when ${steps.length > 0 ? steps.join(", then ") : "the macro is invoked"}; the conditions of the expanded code are not in this syntax tree.`
    : tokenTree
    ? `${steps.length > 0 ? `${subject}, ${inMacro} is reached with the site's tokens when ${steps.join(", then ")}` : `${subject}, in the tokens of ${inMacro}`}; the conditions of the code made from those tokens are not in this syntax tree.`
    : steps.length > 0 ? `${subject}${after === null ? "" : `, ${after}`}: ${steps.join(", then ")}.` : fn !== undefined ? `Any call of ${code(fn.name)} that reaches line ${line}: nothing conditional lies between the function's entry and the site.` : `${subject}, unconditionally.`;

  // commonSituations
  const situations: string[] = [gates === "" ? "Not behind any `#[cfg]`: present in every build." : `Only in builds where ${gates} holds.`];
  if (fn === undefined) {
    if (facts.macro === "macro_rules") situations.push("In the body of a `macro_rules!` macro: every expansion that takes this arm contains it.");
  } else if (fn.implTrait !== null) {
    situations.push(`${code(fn.name)} implements ${code(`${fn.implTrait}::${fn.name}`)} for ${code(fn.implType ?? "")}: every call of that trait method on this type gets there.`);
  } else if (fn.traitName !== null) {
    situations.push(`${code(fn.name)} is a default method of trait ${code(fn.traitName)}: implementations that do not override it get there.`);
  } else if (fn.visibility === "pub") {
    situations.push(`${code(`pub fn ${fn.name}`)}${fn.implType === null ? "" : ` of ${code(`impl ${fn.implType}`)}`}: callable from other modules (whether the crate re-exports it is not in this file).`);
  } else if (fn.visibility !== null) {
    situations.push(`${code(`${fn.visibility} fn ${fn.name}`)}: callable only where that visibility allows.`);
  } else {
    situations.push(`${code(`fn ${fn.name}`)} is private to its module: users get there only through other code of the crate.`);
  }
  if (fn !== undefined) {
    situations.push(facts.callers.length > 0 ? `In this file, ${facts.callers.map((c) => code(c)).join(", ")} ${facts.callers.length === 1 ? "calls" : "call"} a function named ${code(fn.name)}.` : `No other function in this file (outside tests) calls a function named ${code(fn.name)}.`);
  }
  if (sameFunction.length > 0) situations.push(`The same function raises ${sameFunction.length === 1 ? "another catalogued panic" : `${sameFunction.length} other catalogued panics`}: ${sameFunction.slice(0, 4).map((p) => quoteMessage(p.message)).join("; ")}${sameFunction.length > 4 ? "; …" : ""}.`);

  // solutions and tips
  const callee = fn === undefined ? "the code" : code(fn.name);
  const cond = steps.length > 0 ? steps.join(", then ") : null;
  const last = facts.conditions.at(-1);
  const solutions: string[] = [];
  const tips: string[] = [];
  if (facts.macro !== null) {
    // Note: in another macro's tokens the conditions of the code that panics are not in the tree.
    solutions.push(`The panic is in code made from ${facts.macro === "macro_rules" ? `\`macro_rules! ${facts.items.at(-1)?.name ?? ""}\`` : `the tokens of ${inMacro}`}: read the expanded code (e.g. with \`cargo expand\`) for the conditions that lead to it.`);
    solutions.push("Until then, contain it with `std::panic::catch_unwind` around the call that runs the expanded code.");
    tips.push("Check the inputs of code generated by macros as you would check the macro's own arguments.");
  } else switch (strategy) {
    case "handle-error": {
      const handler = lastClosure(facts);
      const recv = last?.kind === "expect" && last.receiver !== undefined ? code(last.receiver) : handler?.callee !== undefined ? code(handler.callee.replace(ERROR_HANDLERS, "")) : "the receiver";
      solutions.push(kind === "expect-err" ? `Make sure ${recv} fails before ${callee} gets to line ${line}: the call panics when it is an Ok value.` : `Make sure ${recv} succeeds (holds a value) before ${callee} gets to line ${line}.`);
      solutions.push(`If you own the code, return the failure to the caller (\`?\`, \`ok_or\`, a \`match\`) instead of ${kind === "panic" ? "panicking in the closure" : `calling ${label}`}.`);
      tips.push(`Treat what ${recv} depends on as fallible input: check it where it comes in.`);
      break;
    }
    case "implement-missing":
      if (fn?.traitName != null && cond === null) solutions.push(`Call ${callee} only on types whose ${code(fn.traitName)} implementation overrides it: this default body is not implemented.`);
      else solutions.push(cond === null ? `Do not call ${callee}: the path is not implemented.` : `Avoid inputs for which ${cond}: that path is not implemented.`);
      solutions.push(`If you own the code, implement the missing path or return an error instead of ${label}.`);
      tips.push(`Check for ${label} in the functions you call before relying on them.`);
      break;
    case "fix-invariant":
      solutions.push(`The code assumes no execution gets here${cond === null ? "" : ` (when ${cond})`}: find which caller or earlier step breaks that assumption and fix it there.`);
      solutions.push("If the state is reachable on purpose, replace the panic with an error value the caller can handle.");
      tips.push("Keep the values this function works on consistent with the assumption the panic states.");
      break;
    case "validate-input":
      if (last?.kind === "assert") solutions.push(`Before calling ${callee}, make sure ${assertion(last)}${steps.length > 1 ? ` whenever ${steps.slice(0, -1).join(", then ")}` : ""}${guards.validationCode === null ? "" : " (the validation code does this check)"}.`);
      else solutions.push(`Before calling ${callee}, make sure this does not hold: ${cond ?? "the failing condition"}${guards.validationCode === null ? "" : " (the validation code does this check)"}.`);
      solutions.push("If you own the code, return an error for such input instead of panicking.");
      tips.push(`Validate the arguments of ${callee} where they enter your program.`);
      break;
    case "type-guard":
      solutions.push(`Before calling ${callee}, make sure this does not hold: ${cond ?? "the path condition"}${guards.typeGuard === null ? "" : " (the type guard tests it)"}.`);
      solutions.push("If you own the code, handle that case with an error value instead of a panic.");
      tips.push("Build the values you pass with the variants and shapes the function handles without panicking.");
      break;
    case "catch-unwind":
      solutions.push(fn === undefined ? "Nothing in the code decides whether it panics once it gets here: avoid that use." : `No condition in ${callee} decides whether line ${line} panics once execution gets there: do not call it${gates === "" ? "" : ` in builds where ${gates} holds`}, or contain it with \`std::panic::catch_unwind\`.`);
      solutions.push("If you own the code, return an error instead of panicking.");
      tips.push(`Find out which operations ${callee} supports before relying on it.`);
      break;
  }
  if (facts.gates.length > 0) tips.push(`Know which of ${gates} your build enables.`);

  // exampleFix: only when the guard is a function and the call can be written with the parameters as they are.
  let exampleFix: string | null = null;
  const entryPoint = fn !== undefined && fn.name === "main" && fn.implType === null && fn.traitName === null;
  if (guards.form === "function" && fn !== undefined && !entryPoint && fn.params.length > 0 && fn.receiver === null && fn.implType === null && fn.traitName === null && fn.params.every((p) => COPY_TYPE.test(p.type.trim()) && /^[a-z_]\w*$/.test(p.pattern))) {
    const args = fn.params.map((p) => p.pattern).join(", ");
    exampleFix = `// before\n${fn.name}(${args});\n// after\nif !would_panic(${args}) {\n    ${fn.name}(${args});\n}`;
  }

  // Note: nobody calls a program's `main`: no wrapper for it.
  const tryCatchPattern =
    fn === undefined || facts.macro !== null || entryPoint
      ? null
      : [
          `// Note: catch_unwind cannot catch panics in builds with panic = "abort".`,
          `let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ${callOf(fn)}));`,
          "if let Err(payload) = outcome {",
          "    let message = payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied()).unwrap_or(\"\");",
          `    // ${quoteMessage(message)} is one of the panics \`${fn.name}\` can raise: recover here.`,
          "}",
        ].join("\n");

  const tags = ["rust", kind, ...(facts.crate === null ? [] : [facts.crate]), ...facts.gates.flatMap((g) => {
    const f = /^feature\s*=\s*"([^"]+)"$/.exec(g);
    return f ? [`feature-${f[1]}`] : g === "debug_assertions" ? ["debug-only"] : [];
  }), CLASS[strategy], ...(facts.macro === null ? [] : ["in-macro"])];

  return {
    documentation: doc.join(" "),
    triggerScenarios: trigger,
    commonSituations: situations.join(" "),
    solutions,
    exampleFix,
    handlingStrategy: strategy,
    validationCode: guards.validationCode,
    typeGuard: guards.typeGuard,
    tryCatchPattern,
    preventionTips: tips,
    tags: [...new Set(tags)],
    backgroundTag: backgroundOf(kind, strategy, facts),
  };
}

/** How a returned error's text comes to be, by site kind. */
const RETURNED_HOW: Partial<Record<SiteKind, string>> = {
  "error-attribute": "the `#[error(…)]` attribute that derives its `Display`",
  "display-impl": "its `impl Display`",
  "err-return": "`Err(…)`",
  "ok-or": "`.ok_or(…)` or `.ok_or_else(…)`, which turn a `None` into this error",
  "map-err": "`.map_err(…)`, which turns the error of the call before it into this one",
};

/**
 * The fields of a returned error: where its text is written or the error returned, the path
 * condition to it when the facts hold one, and that the caller handles it (`?`, `match`), as no
 * panic is raised there. Guards, `catch_unwind` and example fixes are a panic's: null here.
 */
function returnedFields(kind: SiteKind, path: string, line: number, facts: RecordFacts, sameFunction: readonly Peer[], errorClass: string | null): AnalysisFields {
  const fn = facts.function;
  const where = itemPath(facts);
  const gates = facts.gates.map(code).join(" and ");
  const steps = facts.macro === null ? facts.conditions.map(describeCondition) : [];
  const shown = errorClass === null ? "this error" : code(errorClass);
  const how = RETURNED_HOW[kind] ?? "`Err(…)`";
  const place = `${where === "" ? "" : `in ${code(where)}`}${facts.crate === null ? "" : `${where === "" ? "in" : " of"} crate ${code(facts.crate)}`} (${code(`${path}:${line}`)})`.trim();
  const value = kind === "err-return" || kind === "ok-or" || kind === "map-err";
  const doc: string[] = [
    value
      ? `${fn === undefined ? "The code" : code(`fn ${fn.name}`)} returns ${shown} through ${how}, ${place}${gates === "" ? "" : `, compiled only with ${gates}`}.`
      : `The \`Display\` text of ${shown}, written by ${how}, ${place}${gates === "" ? "" : `, compiled only with ${gates}`}: what \`{}\`, \`to_string()\` and a log line show of it.`,
    "It is an error value returned to the caller, not a panic: the program goes on unless a caller calls `unwrap()` or `expect()` on it, which panics with its Debug form.",
  ];
  if (value && steps.length > 0) doc.push(`It is returned when ${steps.join(", then ")}.`);
  const subject = fn === undefined ? "Here" : `In ${code(`fn ${fn.name}`)}`;
  const trigger = !value
    ? `Whenever a value of ${shown} is formatted for display (\`{}\`, \`to_string()\`, an error report); which calls return it is where it is made, not here.`
    : kind === "ok-or"
    ? `${subject}${steps.length > 0 ? `, when ${steps.join(", then ")},` : ""} the \`Option\` before the \`.ok_or\` on line ${line} is \`None\`.`
    : kind === "map-err"
    ? `${subject}${steps.length > 0 ? `, when ${steps.join(", then ")},` : ""} the \`Result\` before \`.map_err\` on line ${line} is an \`Err\`.`
    : steps.length > 0 ? `${subject}: ${steps.join(", then ")}.` : `${subject}: every call that reaches line ${line} returns it.`;
  const situations: string[] = [gates === "" ? "Not behind any `#[cfg]`: present in every build." : `Only in builds where ${gates} holds.`];
  if (value && fn !== undefined) {
    if (fn.implTrait !== null) situations.push(`${code(fn.name)} implements ${code(`${fn.implTrait}::${fn.name}`)} for ${code(fn.implType ?? "")}: every call of that trait method on this type may return it.`);
    else if (fn.traitName !== null) situations.push(`${code(fn.name)} is a default method of trait ${code(fn.traitName)}: implementations that do not override it may return it.`);
    else if (fn.visibility === "pub") situations.push(`${code(`pub fn ${fn.name}`)}: callable from other modules (whether the crate re-exports it is not in this file), which get the error as its return value.`);
    else situations.push(`${code(`${fn.visibility === null ? "" : `${fn.visibility} `}fn ${fn.name}`)} returns it to other code of the crate, which may pass it on.`);
    if (sameFunction.length > 0) situations.push(`The same function returns ${sameFunction.length === 1 ? "another catalogued error" : `${sameFunction.length} other catalogued errors`}: ${sameFunction.slice(0, 4).map((p) => quoteMessage(p.message)).join("; ")}${sameFunction.length > 4 ? "; …" : ""}.`);
  }
  const callee = fn === undefined ? "the call" : code(fn.name);
  const solutions = [`Handle the error where ${value ? `${callee} returns it` : "it is returned"}: \`match\` on the \`Result\`, or pass it on with \`?\`; \`unwrap()\` and \`expect()\` turn it into a panic.`];
  if (errorClass !== null && errorClass.includes("::")) solutions.push(`To handle this case apart from the others, match the \`${errorClass.slice(errorClass.lastIndexOf("::") + 2)}\` variant of \`${errorClass.slice(0, errorClass.lastIndexOf("::"))}\`.`);
  // Note: a path condition of branches alone says what a caller can check beforehand; one through a loop or a closure does not.
  if (value && steps.length > 0 && facts.conditions.every((c) => c.kind === "if" || c.kind === "match" || c.kind === "if-let" || c.kind === "let-else")) solutions.push(`It is not returned unless ${steps.join(", then ")}: check that beforehand to avoid it.`);
  const tags = ["rust", kind, ...(facts.crate === null ? [] : [facts.crate]), ...facts.gates.flatMap((g) => {
    const f = /^feature\s*=\s*"([^"]+)"$/.exec(g);
    return f ? [`feature-${f[1]}`] : [];
  }), "returned-error"];
  return {
    documentation: doc.join(" "),
    triggerScenarios: trigger,
    commonSituations: situations.join(" "),
    solutions,
    exampleFix: null,
    handlingStrategy: "handle-error",
    validationCode: null,
    typeGuard: null,
    tryCatchPattern: null,
    preventionTips: ["Propagate a returned error with `?` or handle it with `match`; keep `unwrap()` and `expect()` out of code that users run."],
    tags: [...new Set(tags)],
    backgroundTag: "returned-error",
  };
}

/** The envelope with the analysis fields, facts and related ids filled in, and the repository's own words (`own`: its tests; words.ts); a new value. */
export function analyzeEnvelope(envelope: Envelope, facts: RecordFacts, sameFunction: readonly Peer[], relatedIds: readonly string[], own?: OwnWords): Envelope {
  const first = envelope.occurrences[0]!;
  const fields = withOwnWords(analysisFields(first.kind, envelope.record.errorMessage, envelope.record.filePath, envelope.record.lineNumber, facts, sameFunction, envelope.record.errorClass), facts, own);
  return withAnalysis(envelope, fields, facts, relatedIds);
}

/** The envelope with the given analysis fields, facts and related ids; a new value. */
export function withAnalysis(envelope: Envelope, fields: AnalysisFields, facts: RecordFacts, relatedIds: readonly string[]): Envelope {
  return { ...envelope, record: { ...envelope.record, ...fields }, facts, relatedIds: [...relatedIds] };
}
