/**
 * The explanation fields of one record, written only from its facts: templates per panic kind
 * and handling strategy, filled with names and snippets the syntax tree gave. Pure.
 *
 * `handlingStrategy` follows the record's frame (frame.ts: what the deciding check tests):
 * `.expect` and closures std calls on None/Err → `handle-error`; `todo!`, and `unimplemented!` or
 * a panic whose message says "not supported" → `implement-missing`; `unreachable!` and checks of
 * the function's own locals → `fix-invariant`; checks of the parameters, of values computed from
 * them or of a configuration's fields, and checks of `self` → `validate-input`, or `type-guard`
 * when a `match`/`if let` on them decides (also in a function users reach only through other
 * public functions, except for a debug assertion there, which checks what the crate's own callers
 * promise: `fix-invariant`); such checks in a function no public one is found to reach, and
 * branches on the function's own values (not the build's or the environment's settings) →
 * `fix-invariant`; no condition at all → `catch-unwind`; another macro's
 * tokens → `catch-unwind` for `panic!`, `fix-invariant` for `assert*`.
 * `tryCatchPattern` is written only where catching is the advice (see `analysisFields`).
 * A returned error (`errorType` `error`) is no panic: its fields say where its text is written or
 * the error returned, and that the caller handles it (`handle-error`); nothing of a panic's
 * containment (`catch_unwind`) or guards applies (`returnedFields`).
 */
import type { Condition, EntryPoint, Envelope, FunctionFact, MessageSource, OtherSite, ParamFact, ProcMacro, RecordFacts, SiteFacts, SiteKind } from "../schema-types.generated.js";
import { FORMAT_TRAITS, optionOrResult, PRIMITIVE_TYPES, typeHead } from "../rust/index.js";
import { MACRO_RULES, RULES } from "../rules/index.js";
import { withoutValues } from "../message.js";
import { errorTypeOf } from "../sources/returned.js";
import { generateGuards, type Guards, NO_GUARDS } from "./guard.js";
import { calledByUsers, conditionSource, frameOf, type Frame, type Framing, ERROR_HANDLERS, errorArm, isCatchAll, isDrop, paramsBehind } from "./frame.js";
import { boundNames, declaredKind, genericNames, isCopyType, settingsRead, singleName, headPaths, lastCall, letValue, lex, passesSelf, pathCalls, splitTopLevel, readNames, receiverKind, rustString, stdFailure, typeNames, wholeVariant } from "./rust.js";
import { isStrLiteral, tokenize } from "../tokens.js";
import { list, type OwnWords, withOwnWords } from "./words.js";
import { type PlaceFacts, withPlace } from "../workspace/place.js";

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

/** Crate and module of a file by its folders alone (`crates/x/src/a/b.rs` → `x`, `a::b`): a key of the folder's crate where no layout is at hand (sources/wrappers.ts); records name the package and module the workspace's layout gives (`placeFacts`). */
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

/** The record facts: the site's, with what the workspace's layout says of its place (`placeFacts`), the ids of records raised in the same function and the record's other sites (absent when none). */
export function recordFacts(site: SiteFacts, place: PlaceFacts, sameFunction: readonly string[], otherSites: readonly OtherSite[] = []): RecordFacts {
  return { ...withPlace(site, place), sameFunction: [...sameFunction].sort(), ...(otherSites.length === 0 ? {} : { otherSites: [...otherSites] }) };
}

/** A snippet as a code span on one line: line breaks before `.`/`?`/closers and after openers dropped, other runs of white space made one space. */
function code(s: string): string {
  const one = withoutComments(s).replace(/\s*\n\s*(?=[.?)\]}])/g, "").replace(/([(\[{])\s*\n\s*/g, "$1").replace(/,\s*\n\s*(?=[)\]}])/g, "").replace(/\s+/g, " ").trim();
  return one.includes("`") ? `\`\` ${one} \`\`` : `\`${one}\``;
}

/** `s` without its comments (each gap that holds one kept as white space), so that one line of it does not read as commented out; as it is when it holds no `//` or `/*`. */
function withoutComments(s: string): string {
  if (!s.includes("//") && !s.includes("/*")) return s;
  let out = "";
  let end = 0;
  for (const t of tokenize(s)) {
    const gap = s.slice(end, t.start);
    out += /^\s*$/.test(gap) ? gap : gap.includes("\n") ? "\n" : " ";
    out += s.slice(t.start, t.end);
    end = t.end;
  }
  return out;
}

function itemPath(facts: SiteFacts): string {
  return facts.items.map((i) => (i.kind === "impl" ? `impl ${i.name}` : i.kind === "macro-rules" ? `macro_rules! ${i.name}` : `${i.kind} ${i.name}`)).join(" → ");
}

/**
 * A value's state for a pattern of one whole variant (`wholeVariant`: `Some(x)` fails only on
 * `None`), matched (`matches`) or not: "is `Some(…)`", "is None", "is an Err"; null for other patterns,
 * said as matching them.
 */
function variantState(pattern: string, matches: boolean): string | null {
  const variant = wholeVariant(pattern);
  if (variant === null) return null;
  const other = { Some: "None", Ok: "an Err", Err: "an Ok value" }[variant];
  return matches ? `is \`${variant}(…)\`` : `is ${other}`;
}

/** One step of the path condition in words; snippets in code spans are verbatim source. */
export function describeCondition(c: Condition, facts: SiteFacts | null = null): string {
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
      return `${scrutinee} matches ${code(c.pattern ?? "")}${guard}${exclusive || earlier.length === 0 ? "" : earlier.length === 1 ? " and not the arm before it" : ` and none of the ${earlier.length} arms before it`}`;
    }
    case "if":
      return `${code(c.condition ?? "")} is ${c.holds === false ? "false" : "true"}`;
    case "if-let":
      return `${code(c.value ?? "")} ${variantState(c.pattern ?? "", c.holds !== false) ?? `${c.holds === false ? "does not match" : "matches"} ${code(c.pattern ?? "")}`}`;
    case "let-else":
      return `${code(c.value ?? "")} ${variantState(c.pattern ?? "", false) ?? `does not match ${code(c.pattern ?? "")}`} (the \`else\` of a \`let … else\`)`;
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
    case "async-block":
      return `the \`async\` block${c.callee === undefined ? "" : ` passed to ${code(c.callee)}`} is polled`;
    case "macro-rule":
      // Note: a long matcher says more as its line than as its tokens.
      return (c.matcher ?? "").length > 60 ? `the invocation takes the \`macro_rules!\` arm of line ${c.line}` : `the \`macro_rules!\` arm ${code(c.matcher ?? "")} matches the invocation`;
    case "assert":
      if (c.condition !== undefined) return `${code(c.condition)} is false`;
      return `${code(c.left ?? "")} and ${code(c.right ?? "")} are ${c.macro?.endsWith("_ne") ? "equal" : "not equal"}`;
    case "expect":
      return c.method === "expect_err" ? `${c.receiver === undefined ? "the receiver" : code(c.receiver)} is an Ok value` : `${c.receiver === undefined ? "the receiver" : code(c.receiver)} ${emptyState(c.receiver ?? "", facts)}`;
  }
}

/**
 * When std calls a closure passed to `unwrap_or_else`, `or_else`, `map_err` or `ok_or_else`, by
 * what the syntax shows: `map_err` is a Result's, `ok_or_else` an Option's; of the others, an
 * Option's takes no argument (`||`), a Result's the error (`|e|`).
 */
function handlerState(closure: Condition): string {
  const method = /\.\s*(\w+)\s*$/.exec(closure.callee ?? "")?.[1];
  const noArgument = /^\s*(?:move\s*)?\|\s*\|/.test(closure.params ?? "");
  if (method === "map_err" || ((method === "unwrap_or_else" || method === "or_else") && !noArgument)) return "is an Err";
  if (method === "ok_or_else" || noArgument) return "holds no value (None)";
  return "is None or an Err";
}

/**
 * What makes `.expect`/`.unwrap` on `receiver` panic, as far as the syntax shows: an Option's
 * None, a Result's Err, or either when the last call is not one of std's (said as a guess).
 */
function emptyState(receiver: string, facts: SiteFacts | null): string {
  const declared = facts === null ? null : declaredKind(receiver, facts.function?.params ?? [], facts.function?.lets ?? [], facts.conditions.flatMap((c) => [c.condition, c.scrutinee, c.value].filter((x): x is string => x !== undefined)));
  if (declared === "option") return "holds no value (None)";
  if (declared === "result") return "is an Err (the panic message ends with the error's Debug form)";
  // Note: by the functions of the last call's name in the repository: a match by name, said as one.
  const named = (facts as RecordFacts | null)?.receiverReturns;
  const method = (facts as RecordFacts | null)?.receiverMethod;
  const field = (facts as RecordFacts | null)?.receiverField;
  if (field !== undefined && named === "option") return `holds no value (None) (its struct declares \`${field}\` an Option)`;
  if (field !== undefined && named === "result") return `is an Err (its struct declares \`${field}\` a Result; the panic message ends with the error's Debug form)`;
  if (method !== undefined && named === "option") return `holds no value (None) (\`${method}\` returns an Option)`;
  if (method !== undefined && named === "result") return `is an Err (\`${method}\` returns a Result; the panic message ends with the error's Debug form)`;
  const called = lastCall(receiver);
  if (named === "option") return `holds no value (None) (every function named \`${called}\` in the repository returns an Option)`;
  if (named === "result") return `is an Err (every function named \`${called}\` in the repository returns a Result; the panic message ends with the error's Debug form)`;
  // Note: a receiver that is a name a `let` binds to a call (`let value = self.value.take();`) is read as that call.
  const value = letValue(receiver.trim(), facts?.function?.lets ?? []) ?? receiver;
  const kind = receiverKind(value);
  const by = lastCall(value);
  const why = stdFailure(value);
  // Note: a guess from the method's name alone, said as one: the receiver's type is not resolved.
  // Note: `.ok()`/`.err()` settle it (std's only give an Option); of other names, the kind is std's, said as a guess.
  // Note: where no function of the workspace has the name, the method is std's or a dependency's: std's meaning is said without "a guess", the dependency left open.
  const outside = (facts as RecordFacts | null)?.receiverOutsideRepo === true && by === lastCall(receiver);
  const std = by === undefined || by === "ok" || by === "err"
    ? ""
    : outside
    ? ` (no function of the repository is named \`${by}\`: std's \`${by}\` gives ${kind === "option" ? "an Option" : "a Result"}${why === null ? "" : `, ${kind === "option" ? "None" : "an Err"} when ${why}`}, unless a dependency's method of that name is meant)`
    : why === null ? ` (a guess from the name \`${by}\` alone: std's gives ${kind === "option" ? "an Option" : "a Result"})` : ` (if \`${by}\` is std's, a guess from its name alone: std's is ${kind === "option" ? "None" : "an Err"} when ${why})`;
  if (kind === "option") return `holds no value (None)${std}`;
  if (kind === "result") return `is an Err${std} (the panic message ends with the error's Debug form)`;
  // Note: after a `?` an Err of the call itself has already left the function: what `.expect` gets is the call's Ok value.
  if (/\?\s*$/.test(value)) return "is None (or an Err, where the call's Ok value is itself a Result); an Err of the call itself has already been returned by the `?` and does not reach this panic";
  return "is None or an Err (which one, the syntax does not show)";
}

function lastClosure(facts: SiteFacts): Condition | undefined {
  return [...facts.conditions].reverse().find((c) => c.kind === "closure" || c.kind === "async-block");
}

/** What an `assert*` step needs to hold, in words. */
function assertion(c: Condition): string {
  if (c.condition !== undefined) return `${code(c.condition)} holds`;
  return `${code(c.left ?? "")} ${c.macro?.endsWith("_ne") ? "differs from" : "equals"} ${code(c.right ?? "")}`;
}

/** The handling strategy of a frame: where a caller can act on the panic. */
function strategyOf(kind: SiteKind, framing: Framing): Strategy {
  switch (framing.frame) {
    case "error":
      return "handle-error";
    case "missing":
      return "implement-missing";
    case "invariant":
    case "internal":
    // Note: a branch on the function's own values is nothing a caller passes or can guard against (what the build or the environment sets is `settingsOfPath`'s).
    case "path":
      return "fix-invariant";
    case "relayed":
      // Note: a check of what public functions hand down is the library's check of its input; a debug assertion, compiled out of release builds, checks what the crate's own callers promise.
      if (RULES.some((r) => r.id === kind && r.debugOnly)) return "fix-invariant";
      return inputStrategy(kind, framing);
    case "expansion":
      return kind === "panic" ? "catch-unwind" : "fix-invariant";
    case "always":
      return "catch-unwind";
    case "input":
    case "state":
    case "callee":
      return inputStrategy(kind, framing);
  }
}

/** The strategy of a check of input: a guard on the shape of a value for a pattern, a validation of it otherwise. */
function inputStrategy(kind: SiteKind, framing: Framing): Strategy {
  return framing.deciding.some((c) => c.kind === "match" || c.kind === "if-let" || c.kind === "let-else" || c.kind === "while-let") && !kind.includes("assert") ? "type-guard" : "validate-input";
}

/**
 * The frame's class tag; `unconditional` only when nothing gates or conditions the site: no
 * `#[cfg]` on the way down (module or site), no other macro's tokens around it, and no step of
 * the path condition (a loop may not run, a closure may not be called).
 */
function classTag(framing: Framing, facts: SiteFacts, carried = false): string[] {
  const tag = carried ? CLASS.input : CLASS[framing.frame];
  if (tag === "unconditional" && (facts.macro !== null || facts.gates.length > 0 || facts.conditions.length > 0 || facts.exitBeforePath)) return [];
  return [tag];
}

/** The message as the panic prints it where std puts words before it (`unreachable!("m")` prints `internal error: entered unreachable code: m`). */
function printedMessage(kind: SiteKind, message: string): string {
  const rule = kind === "unreachable" || kind === "todo" || kind === "unimplemented" ? MACRO_RULES.get(kind) : undefined;
  const [prefix, bare] = rule?.words ?? [];
  return prefix === undefined || bare === undefined || message === bare || message.startsWith(prefix) ? message : `${prefix}${message}`;
}

/** What a panic in a proc-macro crate is to its users: an error of their compilation, with the message as rustc's help line. */
function procMacroNote(crate: string | null, message: string, facts: RecordFacts): string {
  const help = `\`= help: message: ${quoteMessage(message).slice(1, -1)}\``;
  // Note: where every entry point found is a macro of one kind, rustc's words for that kind; else the three.
  const kinds = [...new Set((facts.entryPoints ?? []).map((e) => e.procMacro?.kind ?? null))];
  const one = kinds.length === 1 && kinds[0] !== null ? PROC_MACRO_ERROR[kinds[0]!] : null;
  const error = one !== null ? `a compile error \`${one}\` with ${help}` : `a compile error (\`${PROC_MACRO_ERROR.derive}\` for a derive, \`${PROC_MACRO_ERROR.attribute}\` for an attribute, \`${PROC_MACRO_ERROR.function}\` for a function-like macro) with ${help}`;
  return `${crate === null ? "This crate" : code(crate)} is a proc-macro crate: the panic happens inside rustc while it expands the macro in a user's crate, and that user sees ${error}; no run-time code of theirs can catch it.`;
}

/**
 * The input of the proc macro that reaches the site, as users write it: the item they derive with
 * `#[derive(Deserialize)]` (and its `#[serde(…)]` attributes), where every entry point found is one
 * derive; else the macro's input in general.
 */
function macroInput(facts: RecordFacts): string {
  const macros = [...new Map((facts.entryPoints ?? []).flatMap((e) => (e.procMacro === undefined ? [] : [[e.symbol, e.procMacro] as const]))).values()];
  const derives = [...new Set(macros.filter((p) => p.kind === "derive" && p.derives !== undefined).map((p) => p.derives!))];
  if (macros.length === 0 || derives.length !== macros.length || macros.length > 3) return "input of the macro (the item it is applied to, its attributes)";
  const helpers = [...new Set(macros.flatMap((p) => p.helpers ?? []))];
  return `item you derive ${list(derives.map((d) => code(`#[derive(${d})]`)))} for${helpers.length === 0 ? "" : ` (its fields and variants, and their ${list(helpers.map((h) => code(`#[${h}(…)]`)))} attributes)`}`;
}

/** True when the deciding conditions read no value at all, only the type parameters (`D >= 2`): they hold or fail for every call with the same types. */
function typesAlone(framing: Framing): boolean {
  return framing.deciding.every((c) => readNames(conditionSource(c)).every((n) => framing.generics.includes(n)));
}

/**
 * The values a check reads that the function changes as it goes (`Framing.mutated`), in words: those
 * it binds with `let mut`, and the fields of `self` it assigns before the site.
 */
function mutatedWords(mutated: readonly string[]): string {
  const lets = mutated.filter((n) => !n.startsWith("self."));
  const fields = mutated.filter((n) => n.startsWith("self."));
  const parts = [
    ...(lets.length === 0 ? [] : [`${list(lets.map(code))}, which the function binds with \`let mut\` and may change after with values not read here`]),
    ...(fields.length === 0 ? [] : [`${list(fields.map(code))}, which the function assigns before the site (\`${fields[0]} += …\` or \`= …\`) with values not read here`]),
  ];
  return parts.join("; and ");
}

/** The first line of rustc's error for a proc macro that panics, by the macro's kind. */
const PROC_MACRO_ERROR: Readonly<Record<ProcMacro["kind"], string>> = {
  derive: "error: proc-macro derive panicked",
  attribute: "error: custom attribute panicked",
  function: "error: proc macro panicked",
};

/**
 * For a panic that formats an error value (`RecordFacts.forwards`): where that value comes from
 * and the texts found for it, in words; else nothing.
 */
function forwardedSentences(facts: RecordFacts, message: string): string[] {
  const f = facts.forwards;
  if (f === undefined) return [];
  const texts = list(f.errors.map((e) => `${quoteMessage(e.message)} (${code(`${e.path}:${e.line}`)})`));
  const whole = /^(?:\s*\{[^{}]*\})+\s*$/.test(message);
  const part = whole ? `Its text is that of ${code(f.binding)}` : `Its ${code(`{${f.binding}}`)} part is the text of ${code(f.binding)}`;
  if (f.through === "parameter") {
    const own = f.functions[0]!;
    return [`${part}, the error that the closure ${code(f.call)} passed to ${code(own.symbol)} returns: the closures its callers pass return ${texts}${f.errors.length >= 8 ? ", among others" : ""}. Errors those closures pass on from their own calls (\`?\`) are not followed.`];
  }
  const by = f.functions.every((x) => x.confidence === "name") ? " (a function of that name: the call's receiver is not resolved)" : "";
  const fns = list(f.functions.map((x) => code(x.symbol)));
  return [`${part}, the error of ${code(f.call.length > 80 ? `${f.call.slice(0, 77)}…` : f.call)}: ${fns}${by} ${f.functions.length === 1 ? "returns" : "return"} ${texts} in ${f.functions.length === 1 ? "its" : "their"} own body; errors passed on from ${f.functions.length === 1 ? "its" : "their"} own callees (\`?\`) are not followed.`];
}

/** For a message that is only placeholders (`{}`, `{err:?}`): that its text is what the values print, so the place identifies it; else nothing. */
function onlyHoles(message: string, returned: string | null = null): string[] {
  if (!/^(?:\s*\{[^{}]*\})+\s*$/.test(message)) return [];
  // Note: a returned error's text is what its type displays: a variant's `#[error("…")]` or `Display` may write more around the value.
  if (returned !== null) return [`The text written here is only what ${code(message.trim())} formats: the values' own text; what users see of ${code(returned)} is what its \`Display\` makes of it (its pattern accepts any message, so the place identifies it).`];
  return [`Its text is only what ${code(message.trim())} formats: the values' own text shows through, so its pattern accepts any message and the place (the \`panicked at\` line, or the code that made the value) is what identifies it.`];
}

/** The macros whose tokens a proc macro emits as code (the `quote` and `syn` crates'). */
const QUOTING: ReadonlySet<string> = new Set(["quote", "quote_spanned", "parse_quote", "parse_quote_spanned"]);

/** A solution that advises `catch_unwind` is no advice for a proc macro's panic (it ends the user's build): the input is what to change. */
function withoutCatchUnwind(solution: string): string {
  if (!solution.includes("catch_unwind")) return solution;
  return "Change the macro's input (the item it is applied to, its attributes) so that expansion does not reach the panic; a proc macro's panic cannot be caught by the crate that uses it.";
}

/** Advice that needs the panic's place at run time: a backtrace, or the expanded code. */
const RUN_TIME_TRACE = /RUST_BACKTRACE|cargo expand/;

/** What a backtrace shows of a panic in an `async` block: what polls the future, not the call that made it. */
const POLLED_TRACE = " The site is in an `async` block, though: it runs when the future the block makes is polled, so the backtrace shows the calls of what polls it (an executor's, on the thread that runs it), not necessarily the call of yours that made the future.";

/** A solution or tip that sends the user to a backtrace, with what it shows of a site in an `async` block (`POLLED_TRACE`). */
function withPolledTrace(solution: string): string {
  return /RUST_BACKTRACE/.test(solution) ? `${solution}${POLLED_TRACE}` : solution;
}

/**
 * A solution or tip of a proc macro's panic without advice to read a backtrace or the expanded code: the
 * panic happens while rustc expands the macro, which prints no backtrace on stable (only nightly's
 * `-Z proc-macro-backtrace` does) and no expansion (it stops at the same panic).
 */
function withoutRunTimeTrace(solution: string): string {
  if (!RUN_TIME_TRACE.test(solution)) return solution;
  const where = "rustc's error points at the item the macro is applied to (for a function-like macro, at its invocation) and shows the panic's message as its help line, not where in the macro it panicked (stable rustc prints no backtrace for it, and `cargo expand` stops at the same panic)";
  // Note: advice toward a report (a state the code holds impossible) stays one: the user's item is what the report needs, not what to change.
  return /\breport\b|\bbug\b/.test(solution) ? `${where}: that item is what a report to the crate needs.` : `${where}: that item or its attributes are what reach the panic.`;
}

const CLASS: Record<Frame, string> = {
  error: "unhandled-error",
  missing: "not-implemented",
  invariant: "invariant-violation",
  input: "precondition",
  internal: "internal-check",
  relayed: "internal-check",
  state: "precondition",
  path: "path-condition",
  callee: "precondition",
  always: "unconditional",
  expansion: "in-macro",
};

function backgroundOf(kind: SiteKind, strategy: Strategy, framing: Framing, facts: SiteFacts): string {
  if (kind === "expect") return "failed-expect";
  if ((kind === "panic" || kind === "wrapper-call") && strategy === "handle-error") return "failed-unwrap";
  if (facts.macro !== null) return kind.includes("assert") ? "failed-assertion" : "macro-generated-panic";
  if (kind === "expect-err") return "unexpected-ok";
  if (kind === "todo") return "todo";
  if (kind === "unreachable") return "unreachable-reached";
  if (framing.frame === "missing") return "not-implemented";
  if (kind.includes("assert")) return framing.frame === "input" || (framing.frame === "relayed" && strategy === "validate-input") ? "failed-precondition" : "failed-assertion";
  if (strategy === "catch-unwind") return facts.exitBeforePath ? "panic-after-early-exits" : "unconditional-panic";
  if (strategy === "validate-input") return "rejected-input";
  const last = [...facts.conditions].reverse().find((c) => c.kind === "match" || c.kind === "if-let" || c.kind === "let-else" || c.kind === "while-let" || c.kind === "macro-rule");
  if (last?.kind === "let-else" || (last?.kind === "if-let" && last.holds === false)) return "pattern-mismatch";
  if (last?.kind === "match" && isCatchAll(last.pattern ?? "")) return "unmatched-variant";
  if (last?.kind === "macro-rule") return "macro-arm";
  return "matched-variant";
}

function callOf(fn: FunctionFact, args: (p: ParamFact, i: number) => string = argName): string {
  // Note: a formatting trait's `fmt` takes a `Formatter` no user makes: they call it through a format string.
  const placeholder = fn.name === "fmt" && fn.receiver !== null ? FORMAT_TRAITS.get((fn.implTrait ?? "").replace(/^(?:(?:std|core)::)?fmt::/, "")) : undefined;
  if (placeholder !== undefined) return `format!("${placeholder}", value)`;
  const list = fn.params.map(args).join(", ");
  // Note: the receiver stands as `value`, unless an argument is named so (`send_item(value)`).
  if (fn.receiver !== null) return `${fn.params.some((p, i) => args(p, i) === "value") ? "receiver" : "value"}.${fn.name}(${list})`;
  if (fn.implTrait !== null && fn.implType !== null) return `<${fn.implType} as ${traitOf(fn)}>::${fn.name}(${list})`;
  if (fn.implType !== null) return /</.test(fn.implType) ? `<${fn.implType}>::${fn.name}(${list})` : `${fn.implType}::${fn.name}(${list})`;
  if (fn.traitName !== null) return `<T as ${fn.traitName}>::${fn.name}(${list})`;
  return `${fn.name}(${list})`;
}

/**
 * True when the call `callOf` writes for `fn` can compile in a user's code as far as the
 * declaration shows: `self` is no parameter of its own (`self: Pin<&mut Self>`), the call's path
 * names no generic parameter of the impl (`<StreamReader<S, B> as …>`, whose `S` the user does not
 * have) nor needs a generic trait's arguments (`<T as DistributedOps<B>>`), and the return type names none of the function's own type parameters that no
 * parameter's type names, which rustc cannot infer from a call whose value nothing uses (E0283).
 */
function callCompiles(fn: FunctionFact): boolean {
  if (fn.params.some((p) => p.pattern.replace(/^mut\s+/, "") === "self")) return false;
  // Note: a type parameter a parameter's type names is inferred from the argument.
  const inferred = new Set(fn.params.flatMap((p) => typeNames(p.type)));
  const own = new Set(genericNames(fn.generics).filter((n) => !inferred.has(n) && !n.startsWith("'")));
  if (typeNames(fn.returnType ?? "").some((n) => own.has(n))) return false;
  const impl = new Set(genericNames(fn.implGenerics));
  // Note: a generic trait's default method is called as `<T as Trait<…>>::f`, whose arguments (`DistributedOps<B>`'s `B`) the declaration does not give.
  if (fn.receiver === null && fn.traitName !== null && [...impl].some((n) => !n.startsWith("'"))) return false;
  return fn.receiver !== null || !typeNames(fn.implType ?? "").some((n) => impl.has(n));
}

/**
 * The "if you own the code" advice: `fix` where the function can return an error, and where a trait fixes a signature with no
 * room for one (`fn from_id(id: u8) -> Self`, `Drop::drop`), the check before the call or a fallible method beside it.
 */
function ownFix(fn: FunctionFact | undefined, crate: string | null, fix: string): string {
  if (fn === undefined || (fn.implTrait === null && fn.traitName === null)) return fix;
  const head = fn.returnType === null ? null : typeHead(fn.returnType);
  if (head !== null && optionOrResult(head) !== null) return fix;
  if (isDrop(fn)) return `${maintainers(crate)}\`Drop::drop\` cannot return an error; move the step that fails into a method users call before the value is dropped, which can (as \`File::sync_all\` is to dropping a \`File\`).`;
  const trait = (fn.implTrait ?? fn.traitName!).replace(/<[\s\S]*$/, "");
  return `${maintainers(crate)}the trait ${code(trait)} fixes the signature of ${code(fn.name)} (${fn.returnType === null ? "it returns nothing" : `it returns ${code(fn.returnType)}`}), which leaves no room for an error; check ${fn.params.length > 0 ? "the input" : "what it depends on"} before the call, or offer a fallible method beside it (as \`TryFrom\` is to \`From\`).`;
}

/** The opening of advice for the crate's maintainers, said to them: a user of the crate cannot change its code. */
function maintainers(crate: string | null): string {
  return `For the maintainers of ${crate === null ? "the crate" : code(crate)}: `;
}

/** True when every value the deciding check reads is a parameter or a value the function computes from them: then the caller's arguments and types alone decide it. */
function readsOnlyInputs(framing: Framing): boolean {
  const inputs = new Set([...framing.params, ...framing.viaLocals]);
  return framing.deciding.every((c) => readNames(conditionSource(c)).every((n) => inputs.has(n)));
}

/** The trait an impl implements, as code outside the impl names it: `Self` in its arguments is the impl's type (`QTensorOps<Self>` of `impl QTensorOps<Self> for B` is `QTensorOps<B>`). */
function traitOf(fn: FunctionFact): string {
  return fn.implType === null ? (fn.implTrait ?? "") : (fn.implTrait ?? "").replace(/\bSelf\b/g, fn.implType);
}

function argName(p: ParamFact, i: number): string {
  // Note: `_` is no expression: a name stands for the argument.
  return singleName(p.pattern) ?? `arg${i + 1}`;
}


/** The function as a user names it: `Type::name`, `Trait::name`, or `name`. */
function nameOf(fn: FunctionFact): string {
  const owner = (fn.implType ?? fn.traitName)?.replace(/<[^]*$/, "");
  return owner === undefined ? fn.name : `${owner}::${fn.name}`;
}


function quoteMessage(m: string): string {
  const one = m.replace(/\s+/g, " ").trim();
  return `"${one.length > 90 ? `${one.slice(0, 87)}…` : one}"`;
}


/** True when the record's crate is a proc-macro crate (`facts.crateKind`, when the facts hold it): its panics are compile errors. */
function inProcMacro(facts: RecordFacts): boolean {
  return (facts as { crateKind?: unknown }).crateKind === "proc-macro";
}

/**
 * What keeps a record's deciding check from failing, in words: for a catch-all `match` arm, that
 * the scrutinee matches one of the arms before it; for a single condition, its negation; else
 * that the conditions do not all hold.
 */
function avoidance(framing: Framing): string {
  const d = framing.deciding;
  const only = d.length === 1 ? d[0]! : undefined;
  if (only?.kind === "match" && isCatchAll(only.pattern ?? "") && only.guard == null && (only.earlierArms ?? []).length > 0) {
    const arms = only.earlierArms!;
    return `${code(only.scrutinee ?? "")} matches ${arms.length === 1 ? "" : "one of "}${arms.slice(0, 6).map((a) => code(a.pattern)).join(", ")}${arms.length > 6 ? `, or the ${arms.length - 6} other arms before it` : ""}`;
  }
  if (only?.kind === "if") return `${code(only.condition ?? "")} is ${only.holds === false ? "true" : "false"}`;
  if (only?.kind === "assert") return assertion(only);
  // Note: an arm before it takes such a value first, but may panic itself (burn-dispatch's `Int`, `Bool` and `Quantized` arms): only not matching this arm is said.
  if (only?.kind === "match" && only.guard == null) return `${code(only.scrutinee ?? "")} does not match ${code(only.pattern ?? "")}`;
  if (only?.kind === "if-let") return `${code(only.value ?? "")} ${variantState(only.pattern ?? "", only.holds === false) ?? `${only.holds === false ? "matches" : "does not match"} ${code(only.pattern ?? "")}`}`;
  if (only?.kind === "let-else") return `${code(only.value ?? "")} ${variantState(only.pattern ?? "", true) ?? `matches ${code(only.pattern ?? "")}`}`;
  // Note: the conditions are nested (each inside the one before): the panic needs all of them, so avoiding it needs one to fail. A single condition said and then negated ("… holds does not hold") reads as its opposite.
  return d.length === 1 ? `it is not the case that ${describeCondition(d[0]!)}` : `not all of these hold: ${list(d.map((c) => describeCondition(c)))}`;
}

/** A public function that hands a check's parameters on unchanged (`EntryPoint.carries`), with the pairs of names and the entry point's names in words. */
interface Carrier {
  readonly entry: NonNullable<RecordFacts["entryPoints"]>[number];
  /** `[the checking function's parameter, the entry point's]` for each parameter the check reads. */
  readonly pairs: readonly (readonly [string, string])[];
  /** The entry point's names for them, in words (`its \`length\``, `the value it is called on`). */
  readonly named: string;
  /** The parameters the check reads that the entry point does not hand on unchanged; with `locals`, empty when it hands on all the check reads. */
  readonly rest: readonly string[];
  /** The other names the check reads: the function's own (`let`s, loop variables). */
  readonly locals: readonly string[];
}

/**
 * The first entry point users call (not the checking function itself) that hands every one of
 * `params` down unchanged, by the index's reading of the calls on the way (`carries`); null when none.
 */
function carrierOf(facts: RecordFacts, params: readonly string[], deciding: readonly Condition[]): Carrier | null {
  if (params.length === 0) return null;
  // Note: only a check that reads the parameters themselves and nothing else of the function (no `let`, no loop variable): its words are then the caller's too.
  // Note: an `assert_eq!` holds its operands apart from its condition.
  const read = deciding.flatMap((c) => readNames([conditionSource(c), c.kind === "assert" ? `${c.left ?? ""} ${c.right ?? ""}` : ""].join(" ")));
  // Note: and each of them still holds what the caller passed where the site is (`unchangedParams`: not rebound, not `mut`).
  // Note: a method's `self` is the value it is called on, never rebound.
  const unchanged = [...(facts.function?.unchangedParams ?? []), "self"];
  const usable = (facts.entryPoints ?? []).filter((entry) => entry.via.length >= 2 && entry.confidence !== "name");
  const carrier = (entry: (typeof usable)[number], kept: readonly string[], rest: readonly string[], locals: readonly string[]): Carrier => {
    const carried = new Map((entry.carries ?? []).map(([own, theirs]) => [own, theirs]));
    const pairs = kept.map((p) => [p, carried.get(p)!] as const);
    const named = list(pairs.map(([, theirs]) => (theirs === "self" ? "the value it is called on" : derivedOf(theirs) !== null ? derivedPhrase(theirs) : `its ${code(theirs)}`)));
    return { entry, pairs, named, rest, locals };
  };
  if (read.every((n) => (params.includes(n) && unchanged.includes(n)) || n === "self")) {
    for (const entry of usable) {
      const carried = new Map((entry.carries ?? []).map(([own, theirs]) => [own, theirs]));
      if (!params.every((p) => carried.has(p)) || (read.includes("self") && !carried.has("self"))) continue;
      return carrier(entry, params, [], []);
    }
  }
  // Note: else an entry point that hands on unchanged some of the parameters the check reads (directly or through the function's `let`s): the check is of those in part; the rest is named as not traced.
  for (const entry of usable) {
    const carried = new Set((entry.carries ?? []).map(([own]) => own));
    const kept = params.filter((p) => carried.has(p) && unchanged.includes(p));
    if (kept.length === 0) continue;
    return carrier(entry, kept, params.filter((p) => !kept.includes(p)), [...new Set(read.filter((n) => !params.includes(n) && n !== "self"))]);
  }
  return null;
}

/** The values of a fixed assertion's two sides (`fixedValue`), and whether it fails (`ne`: an `assert_ne!`); null where either side does not evaluate. */
function settle(left: string, right: string, ne: boolean, constants: readonly (readonly (string | number)[])[]): { left: string; right: string; l: number; r: number; fails: boolean } | null {
  const known = new Map(constants.map(([name, value]) => [String(name), Number(value)] as const));
  const [l, r] = [fixedValue(left, known), fixedValue(right, known)];
  return l === null || r === null ? null : { left, right, l, r, fails: ne ? l === r : l !== r };
}

/** The value of an integer expression: a literal (`39`, `1_000usize`), a constant of `known`, or a string literal's `len()` without escapes (its UTF-8 bytes); null otherwise. */
function fixedValue(expr: string, known: ReadonlyMap<string, number>): number | null {
  const e = expr.trim();
  const int = /^([0-9][0-9_]*)(?:[iu](?:8|16|32|64|128|size))?$/.exec(e);
  if (int !== null) return Number(int[1]!.replace(/_/g, ""));
  if (known.has(e)) return known.get(e)!;
  const len = /^"([^"\\]*)"\s*\.\s*len\s*\(\s*\)$/.exec(e);
  return len === null ? null : new TextEncoder().encode(len[1]!).length;
}

/**
 * True when code `src` reads no variable and calls nothing (a call may read state at run time),
 * the length of a string literal aside: constants, literals and operators only.
 */
function fixedValues(src: string): boolean {
  const toks = lex(src);
  const calls = toks.some((t, i) => (t.text === "!" && toks[i - 1]?.kind === "ident") || (t.text === "(" && !(toks[i - 1]?.text === "len" && toks[i - 2]?.text === "." && isStrLiteral(toks[i - 3]))));
  return !calls && readNames(src).length === 0;
}

/** How the carrier hands the values on, in words: which of its names become which of the check's. */
function carrierSentence(carrier: Carrier, who: string): string {
  const handed = carrier.pairs.map(([own, theirs]) => (theirs === "self" ? `the value it is called on as ${code(own)}` : derivedOf(theirs) !== null ? `${code(theirs)} as ${code(own)}` : own === theirs ? code(own) : `its ${code(theirs)} as ${code(own)}`));
  const derived = carrier.pairs.some(([, theirs]) => derivedOf(theirs) !== null);
  return `${code(carrier.entry.symbol)} hands ${who} ${list(handed)}${derived ? "" : " unchanged"} (${code(carrier.entry.via.join(" → "))}: ${derived ? "what a method of its own input answers, computed in its own call and passed on as it is; otherwise " : ""}each call on the way passes it by name, borrowed or through a method that gives the same value such as \`as_slice()\`, as the index reads the calls).`;
}

/** Of a value an entry point hands on, the parameter and the method it reads it through (`self.shape()` → `["self", "shape"]`); null for a parameter itself. */
function derivedOf(theirs: string): [param: string, method: string] | null {
  const m = /^([a-z_]\w*)\.([a-z_]\w*)\(\)$/.exec(theirs);
  return m === null ? null : [m[1]!, m[2]!];
}

/** A value an entry point reads of its input and hands on, in words (`the \`shape()\` of the value it is called on`). */
function derivedPhrase(theirs: string): string {
  const [param, method] = derivedOf(theirs)!;
  return param === "self" ? `the \`${method}()\` of the value it is called on` : `the \`${method}()\` of its ${code(param)}`;
}

/** The environment variables and `cfg!` features `deciding` reads, or null when it reads none. */
function settingsOfPath(deciding: readonly Condition[]): { envs: string[]; features: [string, boolean][] } | null {
  const read = deciding.map((c) => settingsRead(conditionSource(c), c.holds !== false));
  const envs = [...new Set(read.flatMap((r) => r.envs))];
  const features = read.flatMap((r) => r.features);
  return envs.length === 0 && features.length === 0 ? null : { envs, features };
}

/** What a partial carrier's check reads beside what the entry point hands on, in words. */
function alsoRead(carrier: Carrier, facts: RecordFacts): string {
  const rest = carrier.rest.length === 0 ? [] : [`${list(carrier.rest.map(code))}, which that path does not hand on unchanged (how ${code(carrier.entry.symbol)} comes to ${carrier.rest.length === 1 ? "it" : "them"} is not traced here)`];
  // Note: a `let` computed from what the path hands on alone (`let hop_length = options.hop_length;`) is that value's, not another of the function's own.
  const handed = new Set(carrier.pairs.map(([own]) => own));
  const fn = facts.function;
  const derived = carrier.locals.filter((n) => {
    const behind = fn === undefined ? [] : paramsBehind(fn, facts, [n]);
    return behind.length > 0 && behind.every((p) => handed.has(p));
  });
  const own = carrier.locals.filter((n) => !derived.includes(n));
  const locals = [
    ...(derived.length === 0 ? [] : [`${list(derived.map(code))}, which the function computes from ${carrier.pairs.length === 1 ? "that value" : "those values"}`]),
    ...(own.length === 0 ? [] : [`the function's own ${list(own.map(code))}`]),
  ];
  return [...rest, ...locals].join(" and ");
}

/** `text` (in the checking function's names) with each of the carrier's parameters written as the entry point names it, where the names differ (`self` stays as written). */
/** " unchanged" where every value a carrier hands on is a parameter itself; "" where one is a method's answer on one. */
function unchangedWord(carrier: Carrier): string {
  return carrier.pairs.some(([, theirs]) => derivedOf(theirs) !== null) ? "" : " unchanged";
}

function renamed(text: string, carrier: Carrier): string {
  let out = text;
  for (const [own, theirs] of carrier.pairs) if (own !== theirs && theirs !== "self") out = out.replace(new RegExp(`\\b${own}\\b`, "g"), theirs);
  return out;
}

/** What the record's deciding check reads that a caller passes, in words; null when it reads none. */
function inputsOf(framing: Framing, fn: FunctionFact | undefined): string | null {
  const params = framing.params.map(code);
  const generics = framing.generics.map(code);
  const fields = framing.configFields.map(code);
  if (params.length === 0 && fields.length === 0 && generics.length === 0) return null;
  // Note: a check that reads a parameter only through the function's own values (`let tensor = param.consume()`, then rebound by `to_device`) tests those values, which the function computed from it: it names them, and says where they come from.
  const ofParams = (ps: readonly string[], named: boolean) => `${ps.length === 1 ? "the parameter" : "the parameters"} ${list(ps.map(code))}${fn === undefined || !named ? "" : ` of ${code(nameOf(fn))}`}`;
  let p: string | null = null;
  if (params.length > 0 && framing.viaLocals.length === 0) p = ofParams(framing.params, true);
  else if (params.length > 0) {
    const read = new Set(framing.deciding.flatMap((c) => readNames(conditionSource(c))));
    const direct = framing.params.filter((x) => read.has(x));
    const behind = framing.params.filter((x) => !read.has(x));
    const computed = `${list(framing.viaLocals.map(code))}, which ${fn === undefined ? "the function" : code(nameOf(fn))} computes from ${ofParams(behind.length > 0 ? behind : framing.params, false)}`;
    p = direct.length === 0 ? computed : `${ofParams(direct, true)} and ${computed}`;
  }
  const g = generics.length === 0 ? null : `${generics.length === 1 ? "the generic parameter" : "the generic parameters"} ${list(generics)} (which the caller's types choose)`;
  const f = fields.length === 0 ? null : `the configuration ${fields.length === 1 ? "field" : "fields"} ${list(fields)}`;
  return list([p, g, f].filter((x) => x !== null));
}

/** The crate by its package name, with the words its `Cargo.toml` describes it in, marked as theirs: crate `x` (its Cargo.toml: “…”). */
function crateNamed(facts: RecordFacts): string {
  const description = facts.crateDescription?.replace(/\s+/g, " ").trim() ?? "";
  return `crate ${code(facts.crate ?? "")}${description === "" ? "" : ` (its \`Cargo.toml\`: “${description.length > 120 ? `${description.slice(0, 117)}…` : description}”)`}`;
}

/** Where a panic site stands, in words: its items (or the top level), its crate, and `path:line`. */
function placePhrase(facts: RecordFacts, path: string, line: number): string {
  const where = itemPath(facts);
  return `${where === "" ? "at the top level" : `in ${code(where)}`}${facts.crate === null ? "" : ` of ${crateNamed(facts)}`} (${code(`${path}:${line}`)})`;
}

/** The sentence that says under which `#[cfg]` the site is compiled, for the place's sentence. */
/**
 * A record's gates in words, joined by "and": each as written, but one that holds a macro's
 * metavariable (`#[cfg($cfg)]` in a `macro_rules!` body), which each invocation fills in.
 */
function gatesText(gates: readonly string[]): string {
  return gates.map((g) => (g.includes("$") ? `the predicate each invocation of the macro gives (${code(g)})` : code(g))).join(" and ");
}

/** The compiler's own cfg names (set by the target, the profile or the tool, never by a user's `--cfg`), and the predicate words. */
const BUILTIN_CFG: ReadonlySet<string> = new Set(["unix", "windows", "all", "any", "not", "test", "debug_assertions", "doc", "doctest", "feature", "panic", "miri", "proc_macro", "sanitize", "overflow_checks", "relocation_model", "fmt_debug", "ub_checks", "contract_checks"]);

/**
 * What sets the gates a site is compiled under, as a tip: a crate's features (the dependents'
 * `features = [...]`, which `cargo tree` shows), `--cfg` flags (`RUSTFLAGS`), the target; null when
 * there are none. A gate that holds a macro's metavariable is the invocation's, no setting.
 */
function buildsTip(gates: readonly string[], crate: string | null): string | null {
  // Note: a predicate's words in order: `feature = "x"` and `target_os = "y"` whole (their strings are no flags), other names alone.
  const words = new Set(gates.filter((g) => !g.includes("$")).flatMap((g) => [...g.matchAll(/[A-Za-z_][A-Za-z0-9_]*\s*=\s*"[^"]*"|[A-Za-z_][A-Za-z0-9_]*/g)].map((m) => m[0].replace(/\s+/g, " "))));
  const features = [...words].filter((w) => w.startsWith("feature")).map((w) => w.slice(w.indexOf('"') + 1, -1));
  const targets = [...words].filter((w) => w.startsWith("target_") || w === "unix" || w === "windows");
  // Note: the compiler's own settings (`panic = "unwind"`, `miri`, `overflow_checks`, …) are no `--cfg` of the user's; they are left out.
  const flags = [...words].filter((w) => !w.startsWith("feature") && !w.startsWith("target_") && !BUILTIN_CFG.has(w.replace(/\s*=[^]*$/, "")));
  const parts = [
    ...(features.length === 0 ? [] : [`the feature${features.length === 1 ? "" : "s"} ${list(features.map(code))}${crate === null ? "" : ` of ${code(crate)}`}, which a crate's \`Cargo.toml\` turns on (yours or a dependency's; \`cargo tree -e features${crate === null ? "" : ` -i ${crate}`}\` shows which)`]),
    ...(flags.length === 0 ? [] : [`${list(flags.map(code))}, set by \`--cfg\` (\`RUSTFLAGS=${flags[0]!.includes("=") ? `'--cfg ${flags[0]!.replace(/\s*=\s*/, "=")}'` : `"--cfg ${flags[0]}"`}\`) or by the crate's build script`]),
    ...(targets.length === 0 ? [] : [`the target you build for (${list(targets.map(code))})`]),
  ];
  return parts.length === 0 ? null : `Whether your build has this code depends on ${parts.join("; on ")}.`;
}

function compiledOnly(gates: string): string {
  return gates === "" ? "" : `, compiled only with ${gates}`;
}

/** The first sentence of commonSituations: the builds that hold the site. */
function buildsSentence(gates: string, facts?: SiteFacts): string {
  // Note: a `macro_rules!` body is compiled where the macro is invoked, under the gates there, which are not read here.
  if (facts?.macro === "macro_rules") return gates === "" ? "The `macro_rules!` that holds it is not behind any `#[cfg]`; its code is compiled where the macro is invoked, under the gates of each invocation (not read here)." : `The \`macro_rules!\` that holds it is compiled only where ${gates} holds; its code is compiled where the macro is invoked, under the gates of each invocation too (not read here).`;
  return gates === "" ? "Not behind any `#[cfg]`: present in every build." : `Only in builds where ${gates} holds.`;
}

/** When a `debug_assert*`'s check runs, after "its". */
const DEBUG_RUN = "check runs only in builds with `debug_assertions` on (debug builds, by default): a release build skips it";

/** The first sentence of commonSituations for a `debug_assert*`, whose `debug_assertions` says when its check runs. */
function debugBuildsSentence(gates: string): string {
  return `${gates === "" ? "Not behind any `#[cfg]`: compiled in every build" : `Compiled only in builds where ${gates} holds`}, but as a \`debug_assert*\` its ${DEBUG_RUN}.`;
}

/** The sentence for a site outside any other macro's tokens with no branch between the function's entry and it; `gates` (as shown) limit it to the builds that compile it. */
function noBranchSentence(fnName: string, gates: string, exitBefore = false): string {
  // Note: a `return` or `?` before the site's statement (in an earlier block of the function) may leave the function first: then only the calls it does not leave get there.
  const sentence = exitBefore
    ? `no branch, loop or closure of ${fnName} holds the site, but a \`return\` or \`?\` earlier in its body may leave the function before it: the calls that do not leave it there panic here.`
    : `no branch, loop or closure lies between the entry of ${fnName} and the site: every call that gets there panics.`;
  return gates === "" ? `${sentence[0]!.toUpperCase()}${sentence.slice(1)}` : `In builds where ${gates} holds, ${sentence}`;
}

/** The public functions that reach a returned error's site, as words after "avoid the case" (` when you call \`a\` or \`b\``); "" when the index finds none. */
function publicCallers(facts: RecordFacts): string {
  const entries = (facts.entryPoints ?? []).filter((e) => e.confidence !== "name").slice(0, 3);
  return entries.length === 0 ? "" : ` when you call ${list(entries.map((e) => code(e.symbol)))}`;
}

/** Who can call a `pub fn`: with the symbol index, whether its crate's root makes it reachable; without, what the file shows. */
function publicReach(facts: RecordFacts): string {
  const entries = facts.entryPoints;
  if (entries === undefined) return "callable from other modules (whether the crate re-exports it is not in this file)";
  if (entries.some((e) => e.via.length === 1)) return facts.moduleHidden === true ? "reachable from its crate's root, in a module declared `#[doc(hidden)]` on the way: not part of the crate's documented API" : "users call it directly: the symbol index finds it reachable from its crate's root";
  return "`pub`, but the symbol index finds no way to it from its crate's root (a module on the way, or its type, is not public there): users get there only through other functions of the crate";
}

/** Who can reach the function: its visibility, trait and callers in the file. */
function reachSentences(fn: FunctionFact | undefined, facts: RecordFacts): string[] {
  const situations: string[] = [];
  if (fn === undefined) {
    if (facts.macro === "macro_rules") situations.push("In the body of a `macro_rules!` macro: every expansion that takes this arm contains it.");
    return situations;
  }
  // Note: a call of the method runs it; it gets to the site only where the path's conditions hold.
  const there = facts.conditions.some((c) => c.kind !== "assert" && c.kind !== "expect") ? "runs it, and gets to the site where the conditions above hold" : "gets there";
  if (isDrop(fn)) situations.push(`It is the destructor of ${code(fn.implType ?? "")}: it runs whenever such a value is dropped (at the end of its scope, by \`drop(value)\`, or with what holds it); no code calls it directly (E0040).`);
  else if (fn.implTrait !== null) situations.push(`${code(fn.name)} implements ${code(`${fn.implTrait}::${fn.name}`)} for ${code(fn.implType ?? "")}: every call of that trait method on this type ${there}.`);
  else if (fn.traitName !== null) situations.push(`${code(fn.name)} is a default method of trait ${code(fn.traitName)}: a call of it on a type whose implementation does not override it ${there}.`);
  else if (fn.visibility === "pub") situations.push(`${code(`pub fn ${fn.name}`)}${fn.implType === null ? "" : ` of ${code(`impl ${fn.implType}`)}`}: ${publicReach(facts)}.`);
  else if (fn.visibility !== null) situations.push(`${code(`${fn.visibility} fn ${fn.name}`)}: callable only where that visibility allows.`);
  else situations.push(`${code(`fn ${fn.name}`)} is private to its module: users get there only through other code of the crate.`);
  // Note: `facts.callers` are matched by name within the file; the prose names only the callers the symbol index resolves (entry points).
  return situations;
}

/** True when `code` reads one of `fields` (`value.field`, `RecordFacts.privateFields`), not as a method call. */
function readsPrivate(code: string, fields: readonly string[]): boolean {
  return fields.some((f) => {
    const [value, field] = f.split(".");
    return new RegExp(`\\b${value}\\s*\\.\\s*${field}\\b(?!\\s*\\()`).test(code);
  });
}

/** True when `code` calls one of `names` (`f` or `Type::f`, `RecordFacts.privateCalls`) by a plain or a `Type::` path. */
function callsPrivate(code: string, names: readonly string[]): boolean {
  if (names.length === 0) return false;
  return pathCalls(code).some((key) => names.includes(key));
}

/**
 * The guards as written for users: none for a function they do not call, nor one that reads a
 * field of `self` (whose visibility the facts do not hold) unless it is a configuration's, which
 * its users set (`config`: the check reads a configuration's fields); one that reads `self` as a
 * function of the user's value (`selfGuard`).
 */
function usersGuards(guards: Guards, users: boolean, config: boolean, fn: FunctionFact | undefined): Guards {
  const readsField = (code: string | null) => !config && code !== null && /\bself\s*\.\s*[a-z_]\w*\b(?!\s*[(:])/.test(code);
  // Note: the expression form reads what the function holds beside its parameters and `self` (its
  //   locals, its constants), which a caller does not have; the function form reads only those it
  //   takes or repeats (guard.ts).
  const params = new Set(["self", ...(fn?.params ?? []).flatMap((p) => boundNames(p.pattern))]);
  const readsLocals = guards.form === "expression" && guards.reads.some((n) => !params.has(n) && !PRIMITIVE_TYPES.has(n));
  if (users && !readsLocals && !readsField(guards.validationCode) && !readsField(guards.typeGuard)) return selfGuard(guards, fn, config ? "config" : "value");
  return { ...guards, validationCode: null, typeGuard: null, form: null };
}

/**
 * A check that reads `self` (a configuration's own fields, `self.kernel_size >= 3` in
 * `BoxBlurConfig::init`; the value's variant, `matches!(self, BackendTensor::Int(_))`) as a
 * function of the user's value: `self` is a name only inside the method, so the guard takes the
 * value as `name` (`config`, `value`), declaring the impl's type parameters. An expression that
 * reads `self` for a type that cannot be named so is left out.
 */
function selfGuard(guards: Guards, fn: FunctionFact | undefined, name: "config" | "value"): Guards {
  if (guards.form !== "expression" || guards.typeGuard === null || !guards.reads.includes("self")) return guards;
  const type = fn?.implType ?? null;
  // Note: the function takes the value alone: a guard that reads the method's parameters too, or whose name is one of them, has no such form.
  const params = new Set((fn?.params ?? []).flatMap((p) => boundNames(p.pattern)));
  if (type === null || !/^[A-Z]\w*(?:<[^<>]*>)?$/.test(type) || guards.reads.some((n) => n !== "self" && !PRIMITIVE_TYPES.has(n)) || params.has(name)) return { ...guards, typeGuard: null };
  // Note: outside the impl, `Self` is the type's name.
  const body = guards.typeGuard.replace(/\bself\b/g, name).replace(/\bSelf\b/g, type.replace(/<[\s\S]*$/, "")).replace(/\n/g, "\n    ");
  const note = name === "config" ? `// \`config\` is your \`${type}\`; the fields the check reads must be public to you for this to compile.` : `// \`value\` is your \`${type}\`.`;
  return { ...guards, typeGuard: `${note}\nfn would_panic${fn?.implGenerics ?? ""}(${name}: &${type}) -> bool {\n    ${body}\n}` };
}

/** The record's other sites (`facts.otherSites`) in words: each one's function and, when known, its deciding condition. */
function otherSitesSentence(facts: RecordFacts): string | null {
  const others = facts.otherSites ?? [];
  if (others.length === 0) return null;
  const shown = others.slice(0, 6).map((o) => {
    const framing = o.conditions === undefined ? null : frameOf(o.kind, "", { ...EMPTY_FACTS, conditions: o.conditions });
    const when = framing === null || framing.deciding.length === 0 ? "" : ` when ${framing.deciding.map((c) => describeCondition(c, facts)).join(", then ")}`;
    // Note: an owner not found is said as nothing: the place alone (the owner is read by a scan of the text, which may miss it).
    return `${o.owner === "" ? code(`${o.path}:${o.line}`) : `${code(o.owner)} (${code(`${o.path}:${o.line}`)})`}${when}`;
  });
  return `The catalog finds the same message ${others.length === 1 ? "at one other site" : `at ${others.length} other sites`} too: ${shown.join("; ")}${others.length > 6 ? `; and ${others.length - 6} more` : ""}.`;
}

/** How a site's construct is named in prose: the macro, the method, or the call that carries the message. */
function labelOf(kind: SiteKind, source: MessageSource | undefined): string {
  if (kind === "expect") return "`.expect(…)`";
  if (kind === "expect-err") return "`.expect_err(…)`";
  // Note: the wrapper prints what it is given whole or inside a text of its own (`{name}: …`): its message is made from it.
  if (kind === "wrapper-call") return `A call of ${code(`${source?.name ?? "a wrapper"}(…)`)}, a function that panics with a message made from what this call gives it,`;
  if (kind === "declared-call") return `${code(`${source?.name ?? "the declared call"}(…)`)}, whose message a panic elsewhere prints (the configuration declares it),`;
  if (errorTypeOf(kind) === "error") return `The error made by ${RETURNED_HOW[kind] ?? "`Err(…)`"}`;
  return `\`${kind.replaceAll("-", "_")}!\``;
}

/** Words that open a sentence of advice in a message, as an imperative (“Call `enable_io` on the runtime builder to enable IO.”, “Try using `x_async` instead.”). */
const ADVICE_VERBS: ReadonlySet<string> = new Set(["add", "avoid", "call", "change", "check", "configure", "consider", "convert", "disable", "enable", "ensure", "increase", "initialize", "install", "load", "lower", "make", "pass", "please", "provide", "raise", "rebuild", "reduce", "register", "remove", "run", "select", "set", "specify", "switch", "try", "update", "upgrade", "use", "verify", "wrap"]);

/**
 * The sentences of `message` that tell the reader what to do: those opening with an imperative
 * (`ADVICE_VERBS`), not naming a thing with it, and holding at least three words beside its placeholders. Sentences end at
 * `.`, `!` or `?` before white space, never inside backticks.
 */
export function messageAdvice(message: string): string[] {
  const masked = message.replace(/`[^`]*`/g, (m) => "x".repeat(m.length));
  const out: string[] = [];
  let start = 0;
  for (const m of masked.matchAll(/[.!?](?=\s|$)|\n/g)) {
    const end = m.index + (m[0] === "\n" ? 0 : 1);
    out.push(message.slice(start, end).trim());
    start = m.index + 1;
  }
  out.push(message.slice(start).trim());
  return out.filter((sentence) => {
    const words = sentence.replace(/\{[^{}]*\}/g, " ").match(/[A-Za-z_`][\w`'-]*/g) ?? [];
    // Note: a verb that names a thing is no advice: an operation's name before a colon (`select: indices must be 1D`), a noun phrase (`Load error for …`, `Check failed: …`).
    return words.length >= 3 && ADVICE_VERBS.has(words[0]!.toLowerCase()) && !/^\w+\s*:/.test(sentence) && !/^(?:error|errors|failed|failure)$/i.test(words[1]!);
  });
}

/**
 * The analysis fields of a record from its kind, message, facts, the messages of the records
 * raised in the same function, for a returned error its class, and the site's message source.
 * Never states what the facts do not hold.
 */
export function analysisFields(kind: SiteKind, message: string, path: string, line: number, facts: RecordFacts, sameFunction: readonly Peer[], errorClass: string | null = null, source?: MessageSource): AnalysisFields {
  if (facts.neverCompiled === true) return neverCompiledFields(kind, path, line, facts, source);
  const fields = siteFields(kind, message, path, line, facts, sameFunction, errorClass, source);
  // Note: the library's own advice, in the message the user read, comes first: it is the repository's words, quoted as such.
  const advice = messageAdvice(message);
  return advice.length === 0 ? fields : { ...fields, solutions: [`The message itself says what to do: ${advice.map((a) => `“${a}”`).join(" ")}`, ...fields.solutions] };
}

function siteFields(kind: SiteKind, message: string, path: string, line: number, facts: RecordFacts, sameFunction: readonly Peer[], errorClass: string | null, source: MessageSource | undefined): AnalysisFields {
  if (facts.compileTime === true && errorTypeOf(kind) === "panic") return compileTimeFields(kind, message, path, line, facts, source);
  if (errorTypeOf(kind) === "error") return returnedFields(kind, message, path, line, facts, sameFunction, errorClass);
  // Note: a guard is the user's code: the library's module gates are not its own `#[cfg]`s.
  const framing = frameOf(kind, message, facts);
  const users = facts.function !== undefined && calledByUsers(facts.function, facts);
  // Note: a guard that calls a function users cannot call (in a condition or a `let` it repeats) is none a user can compile.
  // Note: a `debug_assert*`'s own `debug_assertions` says when it checks, not when it compiles: its guard compiles in every build.
  const debugRun = RULES.some((r) => r.id === kind && r.debugOnly) && facts.gates.at(-1) === "debug_assertions" && facts.debugGateWritten !== true;
  /** The gates under which the site is compiled: a debug assertion's own `debug_assertions` left out. */
  const compileGates = debugRun ? facts.gates.slice(0, -1) : facts.gates;
  const ownGuards = generateGuards({ ...facts, gates: compileGates.slice(facts.moduleGates.length) }, message);
  const guardCode = [ownGuards.expression ?? "", ...ownGuards.lets].join("\n");
  // Note: a guard that calls a function users cannot call, or reads a field they cannot read, would not compile in their code.
  const guards = callsPrivate(guardCode, facts.privateCalls ?? []) || readsPrivate(guardCode, facts.privateFields ?? []) ? NO_GUARDS : usersGuards(ownGuards, users, framing.configFields.length > 0, facts.function);
  const fn = facts.function;
  /** A public function that hands the check every value it reads unchanged: then the check is of that function's input. */
  const carrier = framing.frame === "relayed" && fn !== undefined ? carrierOf(facts, framing.selfBehind ? [...framing.params, "self"] : framing.params, framing.deciding) : null;
  /** What of the environment and the build the deciding conditions read (a path condition only): the user's settings, not a value of theirs. */
  const settings = framing.frame === "path" ? settingsOfPath(framing.deciding) : null;
  const strategy = carrier !== null || settings !== null ? "validate-input" : strategyOf(kind, framing);
  const lastCheck = facts.conditions.at(-1);
  /** An assertion that reads no variable, parameter or type parameter: both sides are fixed when the crate is compiled. */
  const fixed = framing.frame === "invariant" && kind.includes("assert") && lastCheck?.kind === "assert" && framing.params.length === 0 && framing.generics.length === 0 && framing.configFields.length === 0 && fixedValues([lastCheck.condition, lastCheck.left, lastCheck.right].filter((x) => x != null).join(" "));
  /** For a fixed `assert_eq!`/`assert_ne!` whose sides evaluate (literals, the file's integer constants, a string literal's `len()`): their values and whether it fails. */
  const settled = fixed && lastCheck?.left != null && lastCheck.right != null ? settle(lastCheck.left, lastCheck.right, lastCheck.macro?.endsWith("_ne") === true, facts.constants ?? []) : null;
  const label = labelOf(kind, source);
  const who = fn === undefined ? null : code(nameOf(fn));
  const fnName = fn === undefined ? null : code(`fn ${fn.name}`);
  // Note: a `debug_assert*` is compiled in every build and checks only where `debug_assertions` is on (the last gate its rule adds): that gate is when it runs, not when it is compiled.
  const gates = gatesText(compileGates);
  const runsOnly = debugRun ? ` Its ${DEBUG_RUN}.` : "";
  const steps = facts.conditions.map((c) => describeCondition(c, facts));
  /** True for a site in a `macro_rules!` body with `match` arms or `if`s read from its tokens around it (after the macro's own arm, at `ruleStep`): those are run-time conditions of the code the expansion makes. */
  const ruleStep = facts.conditions.findIndex((c) => c.kind === "macro-rule");
  const tokenRead = facts.macro === "macro_rules" && ruleStep >= 0 && ["match", "if", "if-let"].includes(facts.conditions[ruleStep + 1]?.kind ?? "");
  const deciding = framing.deciding.map((c) => describeCondition(c, facts));
  const inputs = inputsOf(framing, fn);
  const names = list([...framing.params, ...framing.generics, ...framing.configFields].map(code));
  /** A declared call only registers the message: the panic comes where its result is checked. */
  const fails = kind === "declared-call" ? `registers this message (and a panic elsewhere prints it)` : "panics";

  const inMacro = facts.macro === null ? null : code(`${facts.macro}!`);
  /** Sites in another macro's tokens (not `macro_rules!`): the steps say where the macro is written. */
  const tokenTree = facts.macro !== null && facts.macro !== "macro_rules";
  const after = ownGuards.lets.length > 0 ? `after ${ownGuards.lets.map(code).join(" ")}` : null;
  const last = facts.conditions.at(-1);
  const cond = steps.length > 0 ? steps.join(", then ") : null;
  /** The steps that lead to another macro's tokens: the site's own check (an `assert*`'s, an `.expect`'s) is part of the code made from them. */
  const reachSteps = tokenTree && (last?.kind === "expect" || last?.kind === "assert") ? steps.slice(0, -1) : steps;
  const decidingText = deciding.length > 0 ? deciding.join(", then ") : null;
  const avoid = decidingText === null ? null : avoidance(framing);

  // documentation
  const place = placePhrase(facts, path, line);
  const doc: string[] = [`${label} ${place}${compiledOnly(gates)}.${runsOnly}`];
  doc.push(...onlyHoles(message), ...forwardedSentences(facts, message));
  if (kind === "todo") doc.push("`todo!` marks code that is not written yet: reaching it always panics.");
  if (kind === "unimplemented" && framing.frame === "missing") doc.push("`unimplemented!` marks a path the code does not implement: reaching it always panics.");
  if (kind === "unreachable") doc.push("`unreachable!` states that the author holds this point unreachable: reaching it means an assumption of the code does not hold, a bug of the crate or a use it does not foresee, not an argument the message names.");
  if (facts.macro === "macro_rules") doc.push(tokenRead ? `It sits in a \`macro_rules!\` body: every expansion through its arm contains it. The body is read as tokens: its \`match\` arms and \`if\`s around the site are read from them, other code (loops, closures, what the metavariables stand for) is not.` : "It sits in a `macro_rules!` body: every expansion through its arm contains it. The body is read as tokens, so the conditions around the site inside it (in the excerpt) are not analysed here.");
  else if (inMacro !== null) doc.push(`It sits in the tokens of ${inMacro}: the code made from those tokens raises it. Those tokens are not analysed as code here, so when that code runs is not worked out (read the excerpt).`);
  if (steps.length > 0 && facts.macro === "macro_rules") doc.push(`Expansions contain it when ${cond}.`);
  else if (steps.length > 0 && tokenTree) {
    if (reachSteps.length > 0) doc.push(`${inMacro} is reached with them when ${reachSteps.join(", then ")}.`);
  }
  else if (framing.frame === "input" && who !== null && decidingText !== null && users) doc.push(`${who} checks what its caller passes: it ${fails} when ${decidingText}, a check of ${inputs}. The message tells the caller that this input is outside what ${who} accepts.`);
  else if (framing.frame === "input" && who !== null && decidingText !== null) doc.push(`${who} checks what its callers pass: it ${fails} when ${decidingText}, a check of ${inputs}. Users do not call it directly: the values come through the public calls that reach it.`);
  else if (carrier !== null && who !== null && decidingText !== null && carrier.rest.length === 0 && carrier.locals.length === 0) doc.push(`${who} checks what its callers pass: it ${fails} when ${decidingText}, a check of ${inputs ?? `the value ${who} is called on (\`self\`)`}. Users do not call ${who} themselves; ${carrierSentence(carrier, who)} So a call of ${code(carrier.entry.symbol)} gets here when ${renamed(decidingText, carrier)}, for ${carrier.named}; what ${code(carrier.entry.symbol)} does before that call (an earlier check, an early return) is not worked out here.`);
  else if (carrier !== null && who !== null && decidingText !== null) doc.push(`${who} checks what its callers pass: it ${fails} when ${decidingText}, a check of ${inputs ?? `the value ${who} is called on (\`self\`)`}. Users do not call ${who} themselves; ${carrierSentence(carrier, who)} The check reads ${carrier.pairs.length === 1 ? "that value" : "those values"} together with ${alsoRead(carrier, facts)}; what ${code(carrier.entry.symbol)} does before that call (an earlier check, an early return) is not worked out here.`);
  else if (framing.frame === "relayed" && who !== null && decidingText !== null) doc.push(`${who} checks what its callers pass: it ${fails} when ${decidingText}, a check of ${inputs ?? `the value ${who} is called on (\`self\`)`}. Users do not call ${who} themselves: they get there only through other functions of the crate (the trigger names them). Whether those ever pass it such ${inputs === null ? "a value" : "values"}, or check what they are given first, is not worked out here; that a value of the user's is passed on unchanged and is the cause is a guess, not a finding.`);
  else if (framing.frame === "internal" && who !== null && decidingText !== null) doc.push(`${who} checks what its callers in the crate pass${framing.readsSelf ? " against its own state" : ""}: it ${fails} when ${decidingText}, a check of ${inputs}${framing.readsSelf ? `${inputs?.includes(", which ") ? "," : ""} and of \`self\`` : ""}. The symbol index finds no public function that reaches it (it does not follow calls on values whose type the syntax does not show, nor calls a macro writes): if none does, only the crate's own code gets there, and a failure means that code broke what ${who} assumes (a bug of the crate, or a use of it the crate does not foresee).`);
  else if (framing.frame === "state" && who !== null && decidingText !== null) doc.push(`It panics when ${decidingText}: a check of the value ${who} is called on (\`self\`), as the calls before left it${framing.mutated.length === 0 ? "" : ` and as this call changes it: it reads ${mutatedWords(framing.mutated)}`}.`);
  else if (framing.frame === "invariant" && kind.includes("assert") && decidingText !== null && framing.throughEffects.length > 0) doc.push(`It panics when ${decidingText}. The check reads ${framing.throughEffects.length === 1 ? "the parameter" : "the parameters"} ${list(framing.throughEffects.map(code))} of ${who} only through a \`let\` whose value a call with effects gives (it changes or reads state beside its arguments): it tests what that call answered, and reads as an assumption of the code; failing it means a state the code holds impossible.`);
  else if (fixed && decidingText !== null && settled !== null) doc.push(`It panics when ${decidingText}. Both sides are fixed when the crate is compiled: ${code(settled.left)} is ${settled.l} and ${code(settled.right)} is ${settled.r}, so the check ${settled.fails ? "fails on every run that gets here" : "never fails"}.`);
  else if (fixed && decidingText !== null) doc.push(`It panics when ${decidingText}. The check reads no variable, parameter or type parameter: both sides are fixed when the crate is compiled, so it fails on every run that gets here or on none, whatever a caller passes.`);
  // Note: a value bound by `let mut` changes after with what is not read here: the check may well be of the parameters through it.
  else if (framing.frame === "invariant" && kind.includes("assert") && decidingText !== null && framing.mutated.length > 0) doc.push(`It panics when ${decidingText}. It reads ${mutatedWords(framing.mutated)}: whether ${fn === undefined || fn.params.length === 0 ? "what the caller passes" : `the parameters of ${who}`} decide${fn === undefined || fn.params.length === 0 ? "s" : ""} it is not worked out.`);
  else if (framing.frame === "invariant" && kind.includes("assert") && decidingText !== null) doc.push(`It panics when ${decidingText}. No parameter${fn === undefined ? "" : ` of ${who}`} is seen in the check, directly or through the function's \`let\`s: it reads as an assumption of the code, and failing it means a state the code holds impossible.`);
  else if (framing.frame === "callee" && source !== undefined && kind === "declared-call") doc.push(`${code(source.name)} only carries the message: the panic comes where the code that gets its result turns it into one${steps.length > 0 ? `. The call is reached when ${cond}` : ""}.`);
  else if (framing.frame === "callee" && source !== undefined) doc.push(`${code(source.name)} decides whether to panic${steps.length > 0 ? `; the call is reached when ${cond}` : ""}.`);
  else if (steps.length > 0) doc.push(`${after === null ? "It" : `${after[0]!.toUpperCase()}${after.slice(1)}, it`} is raised when ${cond}.`);
  else if (fnName !== null && framing.frame !== "callee" && facts.macro === null) doc.push(noBranchSentence(fnName, gates, facts.exitBeforePath));
  if (framing.frame === "missing" && kind === "panic") doc.push("Its message says that the path is not supported: reaching it always panics.");
  // Note: the comment is the repository's words, quoted as theirs: the analysis does not check it.
  if (facts.comment !== undefined) doc.push(`The code's comment on it says: “${facts.comment.length > 300 ? `${facts.comment.slice(0, 297)}…` : facts.comment}”`);

  // triggerScenarios
  const subject = fn === undefined ? (facts.items.length > 0 ? `In ${code(itemPath(facts))}` : "Here") : `In ${fnName}`;
  const call = fn === undefined ? null : code(callOf(fn));
  const pathTrigger = facts.macro === "macro_rules"
    ? tokenRead
      ? `${subject}: expansions contain it when ${steps.slice(0, ruleStep + 1).join(", then ")}; the code made from them raises it when ${steps.slice(ruleStep + 1).join(", then ")}; of the code inside the macro's body, only the \`match\` arms and \`if\`s are read (read the excerpt for the rest).`
      : `${subject}: expansions contain it when ${steps.length > 0 ? cond : "the macro is invoked"}; the conditions inside the macro's body are not analysed here (read the excerpt).`
    : tokenTree
    ? `${reachSteps.length > 0 ? `${subject}, ${inMacro} is reached with the site's tokens when ${reachSteps.join(", then ")}` : `${subject}, in the tokens of ${inMacro}`}; the conditions of the code made from those tokens are not analysed here (read the excerpt).`
    : framing.frame === "input" && users && call !== null && decidingText !== null
    ? `Calling ${call} with ${names} such that${after === null ? "" : `, ${after},`} ${decidingText}${steps.length > deciding.length ? ` (on the path: ${cond})` : ""}.`
    : steps.length > 0 ? `${subject}${after === null ? "" : `, ${after}`}: ${cond}.` : fn !== undefined ? `Any call of ${code(fn.name)} that reaches line ${line}${framing.frame === "callee" ? `, when ${code(source?.name ?? "the callee")} panics` : facts.exitBeforePath ? ": nothing conditional holds the site itself, but an earlier `return` or `?` may leave the function before it" : ": nothing conditional lies between the function's entry and the site"}.` : `${subject}, unconditionally.`;
  // Note: a path condition with an earlier exit of the function before the site: the conditions are needed, not enough (ser.rs's `return` for the same `Style::Unit`).
  const exits = steps.length > 0 && facts.exitBeforePath && !tokenTree && facts.macro === null ? " An earlier `return` or `?` in the function's body may leave it before this line in some of these cases: the conditions are needed, not enough." : "";
  const trigger = facts.forwards === undefined ? `${pathTrigger}${exits}` : `${pathTrigger}${exits} The error it formats is then one of those found: ${list(facts.forwards.errors.map((e) => quoteMessage(e.message)))}.`;

  // commonSituations
  const situations: string[] = [facts.macro !== "macro_rules" && debugRun ? debugBuildsSentence(gates) : `${buildsSentence(gates, facts)}${runsOnly}`, ...reachSentences(fn, facts)];
  // Note: a drop that tests `panicking()` on the way raises nothing while another panic unwinds.
  if (isDrop(fn) && !facts.conditions.some((c) => /\bpanicking\s*\(\s*\)/.test(describeCondition(c, facts)))) situations.push("It runs in `Drop::drop`: a value dropped while another panic unwinds makes this one abort the process.");
  if (sameFunction.length > 0) situations.push(`The same function raises ${sameFunction.length === 1 ? "another catalogued panic" : `${sameFunction.length} other catalogued panics`}: ${sameFunction.slice(0, 4).map((p) => quoteMessage(p.message)).join("; ")}${sameFunction.length > 4 ? "; …" : ""}.`);
  const others = otherSitesSentence(facts);
  if (others !== null) situations.push(others);

  // solutions and tips
  const callee = who ?? "the code";
  const solutions: string[] = [];
  const tips: string[] = [];
  if (facts.macro !== null) {
    // Note: in another macro's tokens the conditions of the code that panics are not in the tree.
    solutions.push(`The panic is in code made from ${facts.macro === "macro_rules" ? `\`macro_rules! ${facts.items.at(-1)?.name ?? ""}\`` : `the tokens of ${inMacro}`}${tokenRead ? `, raised when ${cond}: read the expanded code (e.g. with \`cargo expand\`) for what the invocation's metavariables make of that` : ": read the expanded code (e.g. with `cargo expand`) for the conditions that lead to it"}.`);
    // Note: a `todo!`/`unimplemented!` there always panics once reached, and an `unreachable!` claims no input gets there: no input of theirs to check.
    if (kind === "todo" || kind === "unimplemented") tips.push("Before relying on the code the macro writes, check which cases it implements.");
    else if (kind !== "unreachable") tips.push("Check the inputs of code generated by macros as you would check the macro's own arguments.");
  } else switch (framing.frame) {
    case "error": {
      const arm = errorArm(facts);
      const handler = lastClosure(facts);
      const armValue = arm === undefined ? undefined : (arm.value ?? arm.scrutinee);
      const recv = last?.kind === "expect" && last.receiver !== undefined ? code(last.receiver) : armValue !== undefined ? code(armValue) : handler?.callee !== undefined ? code(handler.callee.replace(ERROR_HANDLERS, "")) : "the receiver";
      const state = last?.kind === "expect" && last.receiver !== undefined && kind === "expect" ? emptyState(last.receiver, facts) : arm !== undefined ? "is an Err" : handler === undefined ? "is None or an Err" : handlerState(handler);
      const forwarded = facts.forwards;
      // Note: the text printed is the error's own: each error found is a record of its own, which says when it is returned.
      if (forwarded !== undefined) solutions.push(`The text printed is the error's own: ${list(forwarded.errors.map((e) => quoteMessage(e.message)))}${forwarded.errors.length === 1 ? " is" : " are"} catalogued ${forwarded.errors.length === 1 ? "as an error of its own, whose record says" : "as errors of their own, whose records say"} when ${forwarded.errors.length === 1 ? "it is" : "each is"} returned: avoiding that case avoids this panic.`);
      solutions.push(kind === "expect-err" ? `Make sure ${recv} fails before ${callee} gets to line ${line}: the call panics when it is an Ok value.` : `${callee} panics when ${recv} ${state}.`);
      // Note: where the function has a fallible form already (`into_data` beside `try_into_data`), that form is the advice, not a change to the crate.
      if (!(facts.fallible ?? []).some((pair) => pair[0] === facts.entryPoints?.find((x) => x.via.length === 1)?.symbol)) solutions.push(ownFix(fn, facts.crate, `${maintainers(facts.crate)}return the failure to the caller (\`?\`, \`ok_or\`, a \`match\`) instead of ${kind === "expect" || kind === "expect-err" ? `calling ${label}` : arm !== undefined ? "panicking in the `Err` arm" : "panicking in the closure"}.`));
      break;
    }
    case "missing":
      if (decidingText !== null && (framing.params.length > 0 || framing.generics.length > 0) && readsOnlyInputs(framing)) solutions.push(`Call ${callee} only with ${list([...framing.params, ...framing.generics].map(code))} for which ${avoid}: ${callee} does not implement the other cases.`);
      else if (fn?.traitName != null && decidingText === null) solutions.push(`Call ${callee} only on types whose ${code(fn.traitName)} implementation overrides it: this default body is not implemented.`);
      else if (fn?.implTrait != null) solutions.push(`${decidingText === null ? `${code(fn.implType ?? "")} does not implement ${code(`${traitOf(fn)}::${fn.name}`)}` : `${code(fn.implType ?? "")}'s ${code(`${traitOf(fn)}::${fn.name}`)} does not implement the case where ${decidingText}`}: the operation is not available with this type.`);
      else solutions.push(decidingText === null ? `Do not call ${callee}: the path is not implemented in this version.` : `Avoid inputs for which ${decidingText}: ${callee} does not implement that case.`);
      solutions.push(`${maintainers(facts.crate)}implement the missing path or return an error instead of ${label}.`);
      // Note: with no deciding condition, the function implements no case to pick: every call that gets there panics.
      tips.push(decidingText === null ? `Every call of ${callee} that gets to line ${line} panics: do not rely on it in this version.` : `Before relying on ${callee}, check which cases it implements.`);
      break;
    case "invariant":
      if (fixed && settled !== null && !settled.fails) {
        solutions.push(`This check cannot fail (${settled.l === settled.r ? `both sides are ${settled.l}` : `${settled.l} and ${settled.r} differ`}): where a program prints its text, another site with the same text panicked, and the \`panicked at\` line above the message names it.`);
        break;
      }
      if (fixed) {
        solutions.push(`Nothing a caller passes decides it: if it ever fires, the values ${facts.crate === null ? "the crate" : code(facts.crate)} is compiled with disagree (the code holds that ${assertion(last!)}); report it with the version of ${facts.crate === null ? "the crate" : code(facts.crate)} you build.`);
        break;
      }
      if (framing.mutated.length > 0 && (fn?.params.length ?? 0) > 0) solutions.push(`Check what you pass to ${users ? callee : "the public calls that reach it"} against ${users ? "its" : "their"} docs first: the check reads ${list(framing.mutated.map(code))}, which the function computes as it goes, and may be of your arguments through ${framing.mutated.length === 1 ? "it" : "them"} (not worked out here).`);
      solutions.push(`${framing.mutated.length > 0 && (fn?.params.length ?? 0) > 0 ? "Where the arguments are valid, this" : "This"} points to a bug of ${facts.crate === null ? "the crate" : code(facts.crate)} or a use of it that it does not foresee${decidingText === null ? "" : ` (the code holds that ${kind.includes("assert") ? assertion(last!) : `this case never happens: ${decidingText}`})`}: report it with the calls that led here.`);
      // Note: `Drop::drop` has no caller to return an error to.
      solutions.push(isDrop(fn) ? `${maintainers(facts.crate)}find which caller or earlier step breaks that assumption and fix it there; \`Drop::drop\` cannot return an error, so a state reachable on purpose is to be handled before the value is dropped (a method users call first, as \`File::sync_all\` is to dropping a \`File\`).` : `${maintainers(facts.crate)}find which caller or earlier step breaks that assumption and fix it there; if the state is reachable on purpose, return an error the caller can handle.`);
      tips.push("Run with `RUST_BACKTRACE=1` when it fires and keep the backtrace: it shows the calls that led to the state the code holds impossible, which is what a report needs.");
      break;
    case "internal":
      solutions.push(`${callee} is not called by users directly, and the symbol index finds no public function that reaches it: run with \`RUST_BACKTRACE=1\` to see which of your calls led here, and check what you passed to that call against its docs.`);
      solutions.push(`If what you passed is valid, this points to a bug of ${facts.crate === null ? "the crate" : code(facts.crate)}: report it with that input.`);
      tips.push("Read the docs of the public functions you call for the input they accept.");
      break;
    case "relayed":
      if (carrier !== null && avoid !== null) {
        const allDerived = carrier.pairs.every(([, theirs]) => derivedOf(theirs) !== null);
        const selfRead = carrier.pairs.some(([, theirs]) => derivedOf(theirs)?.[0] === "self");
        solutions.push(carrier.rest.length === 0 && carrier.locals.length === 0 && allDerived
          ? `Call ${code(carrier.entry.symbol)} only where ${renamed(avoid, carrier)}${selfRead ? " (`self` there is the value you call it on)" : ""}: it reads ${carrier.pairs.length === 1 ? "that value" : "those values"} of its input and hands ${carrier.pairs.length === 1 ? "it" : "them"} to ${callee}, which checks ${carrier.pairs.length === 1 ? "it" : "them"}.`
          : carrier.rest.length === 0 && carrier.locals.length === 0
          ? `Call ${code(carrier.entry.symbol)} with ${carrier.named} for which ${renamed(avoid, carrier)}: it hands ${carrier.pairs.length === 1 ? "it" : "them"} on${unchangedWord(carrier)} to ${callee}, which checks ${carrier.pairs.length === 1 ? "it" : "them"}.`
          : `Call ${code(carrier.entry.symbol)} with ${carrier.named} that ${carrier.pairs.length === 1 ? "passes" : "pass"} the check of ${callee}: it hands ${carrier.pairs.length === 1 ? "it" : "them"} on${unchangedWord(carrier)} to ${callee}, which fails when ${renamed(decidingText ?? avoid, carrier)}, reading ${carrier.pairs.length === 1 ? "it" : "them"} together with ${alsoRead(carrier, facts)}.`);
        // Note: a check that also reads the value's own state (`self.weights`, set when it was built) may fail for a value built so: valid arguments alone do not make it a bug.
        solutions.push(framing.readsSelf
          ? `The check also reads the state of the value ${code(carrier.entry.symbol)} is called on (what it was built with, such as its configuration, and what was done to it since): where what you pass is valid by the docs, look there before taking this for a bug of ${facts.crate === null ? "the crate" : code(facts.crate)}.`
          // Note: docs seldom list every input a check rejects: a case they leave out is no bug by that alone.
          : `The docs of ${code(carrier.entry.symbol)} may not list every input it rejects: what fails is the condition above, in the values it hands on; only if your input meets it and the panic still fires is it a bug of ${facts.crate === null ? "the crate" : code(facts.crate)} to report with that input.`);
        tips.push(`Validate what you pass to ${code(carrier.entry.symbol)} where it enters your program.`);
        break;
      }
      if (inProcMacro(facts)) {
        solutions.push(`${callee} is reached only through other functions of ${facts.crate === null ? "the crate" : code(facts.crate)}, from the macro's expansion: whether some ${macroInput(facts)} gets there with what fails the check is not worked out here. If your input is valid by the macro's docs, this points to a bug of ${facts.crate === null ? "the crate" : code(facts.crate)}: report it with that input.`);
        break;
      }
      solutions.push(`${callee} is reached only through other functions of ${facts.crate === null ? "the crate" : code(facts.crate)}: run with \`RUST_BACKTRACE=1\` to see which call of yours led here, and read that call's docs for the input it accepts.`);
      if (framing.params.length > 0 || framing.generics.length > 0) solutions.push(`A guess, not worked out here: if that call hands ${callee} what you passed unchanged, input for which ${avoid} avoids the panic.`);
      solutions.push(`Whether that call can pass ${callee} what fails the check is not worked out here, and its docs may not list every input it rejects: compare what you passed with the condition above before taking it for a bug of ${facts.crate === null ? "the crate" : code(facts.crate)}.`);
      tips.push("Read the docs of the public functions you call for the input they accept.");
      break;
    case "input":
      if (!users) solutions.push(`Find the public call of ${facts.crate === null ? "the crate" : code(facts.crate)} your code makes that gets to ${callee}, and give it input for which ${avoid}.`);
      else if (kind.includes("assert") && last?.kind === "assert") solutions.push(`Call ${callee} only with ${names} such that ${assertion(last)}${steps.length > 1 ? ` (checked when ${steps.slice(0, -1).join(", then ")})` : ""}.`);
      else solutions.push(`Call ${callee} only with ${names} for which ${avoid}: other input ${kind === "declared-call" ? "fails the check" : "panics"}.`);
      // Note: a record of several sites: the code repeats the condition of the first only.
      if (guards.validationCode !== null) solutions.push(`Check the arguments first with the validation code, which tests ${(facts.otherSites ?? []).length === 0 ? "the same condition" : `the condition of line ${line} (not those of the message's other sites)`} and returns ${withoutValues(message) === message ? "the message" : "the message's text, its values left out,"} as an \`Err\`.`);
      // Note: a check of the caller's input that panics is the crate's design (its docs often say so under "# Panics"): no advice to its maintainers to change it.
      tips.push(framing.configFields.length > 0 ? "Set configuration fields to values the code accepts when the configuration is built, and test that configuration once." : framing.params.length === 0 && framing.generics.length > 0 && typesAlone(framing) ? `The check reads ${list(framing.generics.map(code))}, which the types of your call choose: it fails on every such call, so a test that makes it once shows it.` : users ? `Validate the arguments of ${callee} where they enter your program.` : "Validate what you pass to the public calls that reach it where it enters your program.");
      break;
    case "state":
      // Note: a method users do not call runs on values the crate's own code builds: no value of theirs to check.
      // Note: no code calls `Drop::drop` (E0040): the value is dropped, in that state.
      solutions.push(isDrop(fn)
        ? `${callee} panics when ${decidingText}, a state of the value being dropped: bring the value to a state for which ${avoid} before it goes out of scope.`
        : users
        ? `${callee} panics when ${decidingText}: call it only on values for which ${avoid}, or check that state first.`
        : `${callee} panics when ${decidingText}, a state of the value it is called on; users do not call ${callee}, and the symbol index finds no public function that reaches it: the crate's own code calls it on values it builds, so this points to a bug of ${facts.crate === null ? "the crate" : code(facts.crate)} or a use of it that it does not foresee. Run with \`RUST_BACKTRACE=1\` to see which call of yours led here, and report it with that.`);
      solutions.push(ownFix(fn, facts.crate, `${maintainers(facts.crate)}handle that case with an error value instead of a panic.`));
      break;
    case "path": {
      // Note: `self` handed to another function (`try_set_current(&self.inner)`): that function's answer decides, and it is not followed into.
      const handed = framing.deciding.some((c) => passesSelf(conditionSource(c)));
      if (settings !== null) {
        const what = [...settings.envs.map((e) => `the environment variable ${code(e)}`), ...settings.features.map(([f, on]) => `whether the build ${on ? "enables" : "leaves out"} the feature ${code(f)}${facts.crate === null ? "" : ` of ${code(facts.crate)}`}`)];
        const fixes = [...(settings.envs.length === 0 ? [] : [`set ${list(settings.envs.map(code))} to a value ${callee} supports in your build, or leave ${settings.envs.length === 1 ? "it" : "them"} unset`]), ...settings.features.map(([f, on]) => `${on ? "build without" : "build with"} the feature ${code(f)}${facts.crate === null ? "" : ` of ${code(facts.crate)}`} (a crate that depends on it may expose it as a feature of its own)`)];
        solutions.push(`${callee} panics when ${decidingText}: what decides it is ${list(what)}, set outside the code. To avoid it, ${fixes.join("; or ")}.`);
        solutions.push(ownFix(fn, facts.crate, `${maintainers(facts.crate)}report the setting that is not supported with an error value instead of a panic.`));
        break;
      }
      solutions.push(framing.effects
        ? `${callee} panics when ${decidingText}: the condition reads what a call with effects (a channel, a lock, I/O, another task) answered at run time, which no check of the arguments decides beforehand; handle that answer where it comes in.`
        : handed
        ? `${callee} panics when ${decidingText}: what decides it is what the function called there answers, which is not followed into that function here; read it for when it gives that answer.`
        : users
        ? `${callee} panics when ${decidingText}, on values it computes itself: what leads there (its arguments, the state it reads) is not worked out here; read the excerpt for how those values come about.`
        : `${callee} panics when ${decidingText}, on values it computes itself, and users reach it only through other code of ${facts.crate === null ? "the crate" : code(facts.crate)}: run with \`RUST_BACKTRACE=1\` to see which of your calls led here; what leads there is not worked out here.`);
      solutions.push(ownFix(fn, facts.crate, `${maintainers(facts.crate)}handle that case with an error value instead of a panic.`));
      break;
    }
    case "callee":
      if (kind === "declared-call" && cond !== null) solutions.push(`The message is registered when ${cond}: ${users ? `call ${callee} only with input for which that does not hold` : "give the public call that reaches it input for which that does not hold"}.`);
      else solutions.push(`The panic's condition is in ${code(source?.name ?? "the callee")}: read it for what it checks, and pass input it accepts to ${callee}.`);
      solutions.push(ownFix(fn, facts.crate, `${maintainers(facts.crate)}return an error instead of panicking.`));
      tips.push(users ? `Validate the arguments of ${callee} where they enter your program.` : "Validate what you pass to the public calls that reach it where it enters your program.");
      break;
    case "always":
    case "expansion":
      solutions.push(fn === undefined
        ? "Nothing in the code decides whether it panics once it gets here: avoid that use."
        : facts.exitBeforePath
        ? `What decides whether ${callee} gets to line ${line} is an earlier \`return\` or \`?\` in its body: the calls it does not leave the function for panic there; read those exits for the case to avoid.`
        : users
        ? `No condition in ${callee} decides whether line ${line} panics once execution gets there: do not call it${gates === "" ? "" : ` in builds where ${gates} holds`}.`
        // Note: a function users cannot call is avoided through the public call that leads to it, which the backtrace shows.
        : `No condition in ${callee} decides whether line ${line} panics once execution gets there, and users do not call ${callee} themselves: run with \`RUST_BACKTRACE=1\` to see which call of yours leads here, and avoid that use${gates === "" ? "" : ` in builds where ${gates} holds`}; if it is a use the docs allow, this points to a bug of ${facts.crate === null ? "the crate" : code(facts.crate)}.`);
      // Note: no condition decides it: there is no case of the function's to pick, only whether to call it; and an error in place of the panic would be returned on every call, no advice to its maintainers.
      tips.push(facts.exitBeforePath ? `Read the exits of ${callee} before line ${line} for the calls that do not panic before relying on it.` : `Every call of ${callee} that gets to line ${line} panics: do not rely on it in this version${gates === "" ? "" : ` in builds where ${gates} holds`}.`);
      break;
  }
  // Note: a public method's fallible form (`try_into_data` of `into_data`) is the user's way to get a failure as a value: by name and type, so whether it gives this one is left open.
  const fallible = facts.fallible ?? [];
  if (fallible.length > 0 && !inProcMacro(facts)) solutions.splice(Math.min(1, solutions.length), 0, `${list(fallible.map((pair) => code(pair[1]!)))} ${fallible.length === 1 ? "is the fallible form" : "are the fallible forms"} of ${list(fallible.map((pair) => code(pair[0]!)))} (${fallible.length === 1 ? "a method" : "methods"} \`try_…\` of the same type that return${fallible.length === 1 ? "s" : ""} a \`Result\` or an \`Option\`): calling ${fallible.length === 1 ? "it" : "them"} instead gives a failure back as a value to handle; whether ${fallible.length === 1 ? "it returns" : "they return"} this one rather than panicking is not worked out here.`);
  if (settings !== null && settings.envs.length > 0) tips.push(`Set ${list(settings.envs.map(code))} only to values documented for ${facts.crate === null ? "the crate" : code(facts.crate)}, and check ${settings.envs.length === 1 ? "it" : "them"} where your program starts.`);
  // Note: a debug assertion's `debug_assertions` is when it checks, said in the documentation, not a build option to know.
  const buildFeatures = [...compileGates, ...(settings?.features ?? []).map(([f]) => `feature = "${f}"`)];
  const buildTip = buildsTip([...new Set(buildFeatures)], facts.crate);
  if (buildTip !== null) tips.push(buildTip);

  const exampleFix = exampleFixOf(kind, message, framing, guards, facts);

  // Note: catching is advice only where the caller can call the function, the panic is no bug of
  //   the crate's (invariant), nor a compile error (a proc-macro crate), nor raised in `Drop::drop`
  //   (whose explicit call rustc rejects), and no guard checks the input beforehand.
  const entryPoint = fn !== undefined && fn.name === "main" && fn.implType === null && fn.traitName === null;
  // Note: and, with the symbol index, only a function it finds users can call (itself an entry point): a `pub fn` of a module the crate's root does not make reachable is no call of theirs.
  const listed = facts.entryPoints === undefined || facts.entryPoints.some((e) => e.via.length === 1);
  const catches = fn !== undefined && facts.macro === null && !entryPoint && users && listed && !isDrop(fn) && !inProcMacro(facts)
    && settings === null
    && (framing.frame === "missing" || framing.frame === "error" || framing.frame === "callee" || (framing.frame === "path" && framing.effects) || ((framing.frame === "input" || framing.frame === "state") && guards.typeGuard === null));
  const tryCatchPattern = !catches || !callCompiles(fn!)
    ? null
    : [
        `// A sketch: the receiver and the arguments stand for your own values. catch_unwind cannot catch panics in builds with panic = "abort".`,
        // Note: a call that gives a borrow (`&mut Self` of a builder method) is made a statement: a closure may not return a borrow of what it captures.
        `let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ${fn!.returnType !== null && fn!.returnType.trim().startsWith("&") ? `{ ${callOf(fn!)}; }` : callOf(fn!)}));`,
        "if let Err(payload) = outcome {",
        "    let message = payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied()).unwrap_or(\"\");",
        `    // ${quoteMessage(message)} is one of the panics \`${nameOf(fn!)}\` can raise: recover here.`,
        "}",
      ].join("\n");

  const tags = ["rust", kind, ...(facts.crate === null ? [] : [facts.crate]), ...facts.gates.flatMap((g) => {
    const f = /^feature\s*=\s*"([^"]+)"$/.exec(g);
    return f ? [`feature-${f[1]}`] : g === "debug_assertions" ? ["debug-only"] : [];
  }), ...classTag(framing, facts, carrier !== null), ...(facts.macro === null ? [] : ["in-macro"]), ...(facts.crateKind === "proc-macro" ? ["proc-macro"] : [])];

  // Note: in a proc-macro crate, the tokens of `quote!` are the code the macro writes into its user's crate: a panic there happens when that code runs.
  const generated = facts.crateKind === "proc-macro" && (facts.macroPath ?? []).concat(facts.macro === null ? [] : [{ name: facts.macro, attribute: null }]).some((m) => QUOTING.has(m.name));
  const procMacro = facts.crateKind === "proc-macro" && !generated;
  // Note: a site in an `async` block runs when the block's future is polled, maybe on another thread (a spawned task's).
  const polled = facts.conditions.some((c) => c.kind === "async-block");
  if (procMacro) doc.push(procMacroNote(facts.crate, printedMessage(kind, message), facts));
  if (generated) doc.push(`${facts.crate === null ? "This crate" : code(facts.crate)} is a proc-macro crate, and the site is in the tokens it quotes: the macro writes this code into the crate that uses it, where it panics at run time when that code runs, not while compiling.`);
  return {
    documentation: doc.join(" "),
    triggerScenarios: trigger,
    commonSituations: situations.join(" "),
    solutions: procMacro ? [...new Set(solutions.map(withoutCatchUnwind).map(withoutRunTimeTrace))] : polled ? solutions.map(withPolledTrace) : solutions,
    exampleFix,
    // Note: a proc macro's panic ends its user's build: the macro's input is what to change, nothing catches it.
    handlingStrategy: procMacro && strategy === "catch-unwind" ? "validate-input" : strategy,
    validationCode: guards.validationCode,
    typeGuard: guards.typeGuard,
    // Note: a proc macro's panic ends the user's compilation: there is no caller to catch it.
    tryCatchPattern: procMacro ? null : tryCatchPattern,
    preventionTips: procMacro ? [...new Set(tips.map(withoutRunTimeTrace))] : polled ? tips.map(withPolledTrace) : tips,
    tags: [...new Set(tags)],
    backgroundTag: backgroundOf(kind, strategy, framing, facts),
  };
}

/**
 * An example of the fix, written from the facts: for an input check with a `would_panic` guard,
 * the call guarded by it (arguments the guard takes by value cloned unless `Copy`); for an
 * `.expect` on an Option or Result of std's, in a function that returns a `Result`, the failure
 * returned instead; null otherwise.
 */
function exampleFixOf(kind: SiteKind, message: string, framing: Framing, guards: Guards, facts: RecordFacts): string | null {
  const fn = facts.function;
  if (fn === undefined || facts.macro !== null) return null;
  // Note: a guard compiled only under a `#[cfg]` (a `debug_assert!`'s, under `debug_assertions`) cannot be called in every build: no fix calls it.
  if (framing.frame === "input" && guards.form === "function" && fn.name !== "main" && !/^\s*#\[cfg\(/m.test(guards.typeGuard ?? "")) {
    const plain = fn.params.every((p) => /^(?:mut\s+)?[a-z_]\w*$/.test(p.pattern));
    if (!plain || fn.params.length === 0) return null;
    // Note: a value of a type parameter or an `impl Trait` (a closure: `new_id: F` with `F: FnMut()`) has no `.clone()` unless its bounds say `Clone`: no fix clones it (rustc E0599).
    const own = new Set(genericNames(fn.generics));
    const bounds = `${fn.generics ?? ""} ${fn.whereClause ?? ""}`;
    if (fn.params.some((p) => !isCopyType(p.type) && (/^impl\b/.test(p.type.trim()) || own.has(p.type.trim())) && !/\bClone\b/.test(/^impl\b/.test(p.type.trim()) ? p.type : bounds))) return null;
    const guardArgs = fn.params.map((p, i) => (isCopyType(p.type) ? argName(p, i) : `${argName(p, i)}.clone()`)).join(", ");
    const call = callOf(fn);
    // Note: the input the guard catches still needs an answer of the program's: the `else` says so instead of skipping the call silently.
    return `// before\n${call};\n// after\nif !would_panic(${guardArgs}) {\n    ${call};\n} else {\n    // the call would panic with this input: correct the input first, or report it to your caller\n}`;
  }
  const last = facts.conditions.at(-1);
  if (kind !== "expect" || last?.kind !== "expect" || last.receiver === undefined || !takesText(fn.returnType)) return null;
  const recv = last.receiver.replace(/\s+/g, " ").trim();
  const literal = rustString(message);
  const fixed = rustString(withoutValues(message));
  const what = receiverKind(recv);
  if (what === "option") return `// before\nlet value = ${recv}.expect(${literal});\n// after (in ${code(nameOf(fn))}, which returns a Result)\nlet Some(value) = ${recv} else {\n    return Err(${fixed}.into());\n};`;
  if (what === "result") return `// before\nlet value = ${recv}.expect(${literal});\n// after (in ${code(nameOf(fn))}, which returns a Result)\nlet value = ${recv}.map_err(|e| format!("{}: {e:?}", ${fixed}))?;`;
  return null;
}

/**
 * True when a function of return type `returnType` can return a message with `?` or `.into()`:
 * `anyhow::Result<T>`, or a `Result<T, E>` whose error `E` converts from a `String` and a `&str`
 * (`String`, `Box<dyn Error>` with or without `Send + Sync`, `anyhow::Error`). Another crate's
 * error type (`io::Error`, `fmt::Error`, the crate's own) converts from neither.
 */
function takesText(returnType: string | null): boolean {
  const t = (returnType ?? "").replace(/\s+/g, " ").trim();
  if (/^anyhow::Result\s*<[^,]*>$/.test(t)) return true;
  const m = /^(?:std::result::|core::result::)?Result\s*<(.*)>$/.exec(t);
  const args = m === null ? [] : splitTypeArgs(m[1]!);
  return args.length === 2 && /^(?:(?:std::string::)?String|anyhow::Error|Box<dyn (?:(?:std|core)::error::)?Error(?: \+ (?:Send|Sync|'static))*>)$/.test(args[1]!);
}

/** The top-level arguments of a type's `<…>` (commas inside nested brackets left alone). */
function splitTypeArgs(inner: string): string[] {
  return splitTopLevel(inner, ",", true).map((a) => a.trim()).filter((a) => a !== "");
}

/** How a returned error's text comes to be, by site kind. */
const RETURNED_HOW: Partial<Record<SiteKind, string>> = {
  "error-attribute": "the `#[error(…)]` attribute that derives its `Display`",
  "display-impl": "its `impl Display`",
  "err-return": "`Err(…)`",
  "ok-or": "`.ok_or(…)` or `.ok_or_else(…)`, which turn a `None` into this error",
  "map-err": "`.map_err(…)`, which turns the error of the call before it into this one",
};

/** True when the site sits in a generic function, impl or trait: rustc evaluates its constants for each use's types. */
export function inGeneric(facts: SiteFacts): boolean {
  const fn = facts.function;
  return fn?.generics != null || fn?.implGenerics != null || facts.items.some((i) => i.kind === "trait" || (i.kind === "impl" && i.name.includes("<")));
}

/** The fields of a site rustc evaluates while compiling (`facts.compileTime`): a failure is the build's error E0080, never a run-time panic. */
function compileTimeFields(kind: SiteKind, message: string, path: string, line: number, facts: RecordFacts, source: MessageSource | undefined): AnalysisFields {
  const place = placePhrase(facts, path, line);
  const gates = gatesText(facts.gates);
  const check = facts.conditions.at(-1);
  const fails = check?.kind === "assert" ? ` when ${describeCondition(check, facts)}` : "";
  return {
    documentation: `${labelOf(kind, source)} ${place}${compiledOnly(gates)}, evaluated while compiling: it is in a \`const\` context. If it fails${fails}, the build that evaluates it stops with rustc's error \`error[E0080]: evaluation panicked: ${quoteMessage(message).slice(1, -1)}\`: ${inGeneric(facts) ? "in a generic item, the build of a crate that uses it with such types (while instantiating it)" : "the build of this crate"}; a running program never panics here.`,
    triggerScenarios: `${inGeneric(facts) ? "Building code that uses it" : "Building the crate"}${gates === "" ? "" : ` with ${gates}`} for a target or with types${fails === "" ? " for which the constant's evaluation panics" : ` for which it fails${fails}`}.`,
    commonSituations: buildsSentence(gates),
    solutions: ["Nothing to handle at run time. If a build stops with this error, the target or the types it is built for do not meet what the constant checks: build for a target that does, or report it to the crate's maintainers."],
    exampleFix: null,
    handlingStrategy: "fix-invariant",
    validationCode: null,
    typeGuard: null,
    tryCatchPattern: null,
    preventionTips: [],
    tags: ["rust", kind, ...(facts.crate === null ? [] : [facts.crate]), "compile-time"],
    backgroundTag: "compile-time-check",
  };
}

/** The fields of a site no build compiles (`facts.neverCompiled`): what its gates say, and that nothing reaches it. */
function neverCompiledFields(kind: SiteKind, path: string, line: number, facts: RecordFacts, source: MessageSource | undefined): AnalysisFields {
  const place = placePhrase(facts, path, line);
  const gates = gatesText(facts.gates);
  const error = errorTypeOf(kind) === "error";
  return {
    documentation: `${labelOf(kind, source)} ${place}, under the gates ${gates}. No build compiles it: those gates cannot all hold in one build, given what each feature of the crate enables (the \`[features]\` of its \`Cargo.toml\`). A program built from this commit never ${error ? "returns this error" : "panics"} here.`,
    triggerScenarios: "None: the site is not compiled in any build of the crate.",
    commonSituations: `Only in builds where ${gates} all hold, and there is no such build.`,
    solutions: [`Nothing to change in your code for this site. If your program printed this message, another site raised it: the \`panicked at\` line names the file and line${error ? ", or the error's source tells where it was made" : ""}.`],
    exampleFix: null,
    handlingStrategy: error ? "handle-error" : "fix-invariant",
    validationCode: null,
    typeGuard: null,
    tryCatchPattern: null,
    preventionTips: [],
    tags: ["rust", kind, ...(facts.crate === null ? [] : [facts.crate]), "never-compiled"],
    backgroundTag: "never-compiled",
  };
}

/**
 * The fields of a returned error: where its text is written or the error returned, the path
 * condition to it when the facts hold one, and that the caller handles it (`?`, `match`), as no
 * panic is raised there. Guards, `catch_unwind` and example fixes are a panic's: null here.
 */
/** Where a returned error goes on an entry point's path (`Route`). */
interface Route {
  /** `returns`: every function of the path passes it on, and the entry point returns it; `panics`, `maps`: `at` unwraps it or maps it; `unknown`: how `at` uses it is not read. */
  readonly kind: "returns" | "panics" | "maps" | "drops" | "unknown";
  /** The function of the path where it stops going up as it is, and how it uses it. */
  readonly at?: string;
  readonly use?: "unwrap" | "expect";
  /** The path as the index reads the calls: `` `X` → `a(…)?` → `b(…).unwrap()` ``. */
  readonly written: string;
}

/**
 * Where a returned error goes on the path of entry point `e`, from the site's function up
 * (`EntryPoint.errorPath`: a reading of the tokens after each call).
 */
function routeOf(e: EntryPoint): Route {
  const known = ROUTES.get(e);
  if (known !== undefined) return known;
  const route = readRoute(e);
  ROUTES.set(e, route);
  return route;
}

/** The routes read so far, by entry point (a record's prose asks for each several times). */
const ROUTES = new WeakMap<EntryPoint, Route>();

function readRoute(e: EntryPoint): Route {
  const uses = e.via.slice(1).map((_, k) => e.errorPath?.[k] ?? null);
  const written = [code(e.via[0]!), ...e.via.slice(1).map((callee, k) => {
    const use = uses[k];
    return code(use === "?" ? `${callee}(…)?` : use === "return" ? `return ${callee}(…)` : use === "unwrap" ? `${callee}(…).unwrap()` : use === "expect" ? `${callee}(…).expect(…)` : use === "map_err" ? `${callee}(…).map_err(…)?` : use === "discard" ? `${callee}(…)` : `${callee}(…)`);
  })].join(" → ");
  for (let k = uses.length - 1; k >= 0; k--) {
    const use = uses[k];
    if (use === "?" || use === "return") continue;
    const at = e.via[k]!;
    if (use === "unwrap" || use === "expect") return { kind: "panics", at, use, written };
    if (use === "discard") return { kind: "drops", at, written };
    if (use !== "map_err") return { kind: "unknown", at, written };
    // Note: the mapped error comes back to the user only where every call above passes it on, to an entry point that returns a `Result`.
    const above = uses.slice(0, k);
    return { kind: e.noResult !== true && above.every((u) => u === "?" || u === "return") ? "maps" : "unknown", at, written };
  }
  return { kind: e.noResult === true ? "unknown" : "returns", written };
}

function returnedFields(kind: SiteKind, message: string, path: string, line: number, facts: RecordFacts, sameFunction: readonly Peer[], errorClass: string | null): AnalysisFields {
  const fn = facts.function;
  const where = itemPath(facts);
  const gates = gatesText(facts.gates);
  const steps = facts.macro === null ? facts.conditions.map((c) => describeCondition(c, facts)) : [];
  const shown = errorClass === null ? "this error" : code(errorClass);
  const how = RETURNED_HOW[kind] ?? "`Err(…)`";
  const place = `${where === "" ? "" : `in ${code(where)}`}${facts.crate === null ? "" : `${where === "" ? "in" : " of"} ${crateNamed(facts)}`} (${code(`${path}:${line}`)})`.trim();
  const value = kind === "err-return" || kind === "ok-or" || kind === "map-err";
  const macroCrate = facts.crateKind === "proc-macro";
  // Note: an `Err` inside a closure is the closure's value: it goes to whoever calls the closure, not out of the function.
  const closure = value ? lastClosure(facts) : undefined;
  const returner = closure !== undefined
    ? `${closure.kind === "async-block" ? "An `async` block" : "A closure"}${closure.callee === undefined ? "" : ` passed to ${code(closure.callee)}`}`
    : fn === undefined ? "The code" : code(`fn ${fn.name}`);
  // Note: code of the crate that panics with the error's text (`RecordFacts.panickedWith`); where it does so on every error it gets (a closure's, taken by its caller's `Err(x)` arm), users meet the text only as that panic.
  const panickers = value ? (facts.panickedWith ?? []) : [];
  const panicker = panickers.find((p) => p.every);
  const doc: string[] = [
    value
      ? `${returner} returns ${shown} through ${how}, ${place}${gates === "" ? "" : `, compiled only with ${gates}`}.${closure === undefined ? "" : closure.kind === "async-block" ? ` What awaits the block gets it${closure.callee === undefined ? "" : ` (the task or future ${code(closure.callee)} makes of it), not the caller of ${fn === undefined ? "the function" : code(fn.name)}`}: where it goes from there is not worked out here.` : " The closure's caller gets it: where it goes from there is not worked out here."}`
      : `The \`Display\` text of ${shown}, written by ${how}, ${place}${gates === "" ? "" : `, compiled only with ${gates}`}: what \`{}\`, \`to_string()\` and a log line show of it.`,
    macroCrate
      ? `${facts.crate === null ? "This crate" : code(facts.crate)} is a proc-macro crate: an error value it makes reaches its users only through the macro's output, which proc macros commonly turn into a compile error of the user's crate (\`syn::Error::to_compile_error\`, \`compile_error!\`); how this crate does is not worked out here.`
      : panicker !== undefined
      ? `It does not reach users as a value: ${code(panicker.symbol)}, which gets it, panics with its text on every error it gets (${code(`${panicker.path}:${panicker.line}`)}), so users see it as a panic with this text.`
      : closure !== undefined
      ? "It is an error value, not a panic of its own: what happens next is up to the code that gets it (`?` passes it on; `unwrap()` or `expect()` on it panics with its Debug form; that code may also log it, or panic with its text)."
      : "It is an error value returned to the caller, not a panic of its own: what happens next is up to the callers (`?` passes it on; `unwrap()` or `expect()` on it panics with its Debug form; a caller may also log it, or panic with its text).",
    ...(panickers.length === 0 ? [] : [`Code of the crate that panics with its text: ${list(panickers.map((p) => `${code(p.symbol)} (${code(`${p.path}:${p.line}`)})`))}${panicker === undefined ? ", where that code gets it; other callers may handle it" : ""}.`]),
    ...onlyHoles(message, value ? (errorClass ?? "the error") : null),
  ];
  if (value && steps.length > 0) doc.push(`It is returned when ${steps.join(", then ")}.`);
  const subject = fn === undefined ? "Here" : `In ${code(`fn ${fn.name}`)}`;
  // Note: a variant's text is shown where a value of it is; the functions that build it are where users meet it, if they return it.
  // Note: a `From::from` that builds it runs where `?` converts another error into it: users do not call it by name, and where they meet it is wherever that `?` stands.
  const allMakers = value ? [] : (facts.madeIn ?? []);
  const errorType = errorClass === null ? null : errorClass.includes("::") ? errorClass.slice(0, errorClass.lastIndexOf("::")) : errorClass;
  const intoError = (m: { symbol: string }) => errorType !== null && m.symbol === `${errorType}::from`;
  const conversions = allMakers.filter(intoError);
  const makers = allMakers.filter((m) => !intoError(m));
  // Note: a maker that gives the error value itself (`fn custom(msg) -> Self`) is where the value is made, not a call whose `Result` carries it.
  // Note: only a function of the error's own type gives the error itself by returning `Self` (`Sender::closed() -> Self` builds a `Sender`).
  const ownConstructor = (m: { symbol: string; constructs?: true }) => m.constructs === true && errorType !== null && m.symbol.startsWith(`${errorType}::`);
  const reachEntries = [...new Set(makers.flatMap((m) => m.entryPoints))].slice(0, 4);
  const makerEntries = [...new Set(makers.flatMap((m) => (ownConstructor(m) ? m.entryPoints.filter((e) => e !== m.symbol) : m.entryPoints)))].slice(0, 4);
  const constructors = [...new Map(makers.filter(ownConstructor).map((m) => [m.symbol, m])).values()];
  const constructed = constructors.length === 0 ? "" : ` ${list(constructors.map((m) => code(m.symbol)))} ${constructors.length === 1 ? "gives" : "give"} the error value itself (${constructors.length === 1 ? "it returns" : "they return"} \`Self\`, not a \`Result\`): a call of ${constructors.length === 1 ? "it" : "them"} makes the value, and the code that calls ${constructors.length === 1 ? "it" : "them"} returns or uses it.`;
  const converted = conversions.length === 0 ? "" : ` ${makers.length === 0 ? "It is" : "It is also"} made by ${list(conversions.map((m) => `${code(m.symbol)} (${code(`${m.path}:${m.line}`)})`))}, a \`From\` conversion: \`?\` calls it on an error of the source type in any function that returns this error, so users meet it in the \`Result\` of such a function, not by calling \`from\` themselves.`;
  const trigger = !value
    ? `Whenever a value of ${shown} is formatted for display (\`{}\`, \`to_string()\`, an error report). ${makers.length === 0
      ? conversions.length > 0 ? converted.trim() : "Which calls return it is where it is made: the symbol index finds no function outside tests that builds it by name (a macro or a conversion may)."
      : `The symbol index finds it built in ${list(makers.map((m) => `${code(m.symbol)} (${code(`${m.path}:${m.line}`)})`))}${reachEntries.length === 0 ? ", which no public function is found to reach" : `; users reach ${makers.length === 1 ? "it" : "them"} through ${list(reachEntries.map(code))}`}. Whether what is built there is returned to the caller unchanged (or built inside a closure that runs later) is not worked out here.${constructed}${converted}`}`
    : kind === "ok-or"
    ? `${subject}${steps.length > 0 ? `, when ${steps.join(", then ")},` : ""} the \`Option\` before the \`.ok_or\` on line ${line} is \`None\`.`
    : kind === "map-err"
    ? `${subject}${steps.length > 0 ? `, when ${steps.join(", then ")},` : ""} the \`Result\` before \`.map_err\` on line ${line} is an \`Err\`.`
    : steps.length > 0
    ? `${subject}: ${steps.join(", then ")}.`
    : // Note: in a macro's tokens the syntax tree holds no conditions: none seen is not none there.
      facts.macro !== null
    ? `${subject}: it stands in the tokens of ${code(`${facts.macro}!`)}, whose branches are not analysed here; when the code made from them returns it is in the excerpt.`
    : `${subject}: every call that reaches line ${line} returns it.`;
  // Note: a function users do not call returns it to the crate's own code: the public functions that reach it are where users meet it, if they pass it on.
  const reaching = value && closure === undefined && fn !== undefined && !calledByUsers(fn, facts) ? (facts.entryPoints ?? []).filter((e) => e.via.length > 1 && e.confidence !== "name").slice(0, 3) : [];
  const situations: string[] = [buildsSentence(gates, facts)];
  if (value && fn !== undefined && closure === undefined) {
    if (fn.implTrait !== null) situations.push(`${code(fn.name)} implements ${code(`${fn.implTrait}::${fn.name}`)} for ${code(fn.implType ?? "")}: every call of that trait method on this type may return it.`);
    else if (fn.traitName !== null) situations.push(`${code(fn.name)} is a default method of trait ${code(fn.traitName)}: implementations that do not override it may return it.`);
    else if (fn.visibility === "pub") situations.push(`${code(`pub fn ${fn.name}`)}: ${publicReach(facts)}; its callers get the error as its return value.`);
    else if (reaching.length > 0) situations.push(`${code(`${fn.visibility === null ? "" : `${fn.visibility} `}fn ${fn.name}`)} returns it to other code of the crate: users reach it through ${list(reaching.map((e) => code(e.symbol)))}${reaching.every((e) => routeOf(e).kind !== "unknown") ? "" : `; whether ${reaching.length === 1 ? "that function passes" : "those pass"} it on to them is not worked out here for ${reaching.length === 1 ? "it" : list(reaching.filter((e) => routeOf(e).kind === "unknown").map((e) => code(e.symbol)))}`}.`);
    else situations.push(`${code(`${fn.visibility === null ? "" : `${fn.visibility} `}fn ${fn.name}`)} returns it to other code of the crate; whether that code passes it on to users is not worked out here.`);
    if (sameFunction.length > 0) situations.push(`The same function returns ${sameFunction.length === 1 ? "another catalogued error" : `${sameFunction.length} other catalogued errors`}: ${sameFunction.slice(0, 4).map((p) => quoteMessage(p.message)).join("; ")}${sameFunction.length > 4 ? "; …" : ""}.`);
  }
  const callee = fn === undefined ? "the call" : code(fn.name);
  // Note: a function users cannot call and no public function is found to reach: "handle it where it is returned" would be advice for the crate's authors.
  const unreached = value && closure === undefined && fn !== undefined && fn.visibility !== "pub" && fn.implTrait === null && fn.traitName === null && !calledByUsers(fn, facts) && reaching.length === 0 && facts.entryPoints !== undefined && facts.entryPoints.length === 0 && !macroCrate && panicker === undefined;
  // Note: an entry point that returns no `Result` (`fn load_record(self, …) -> Self`) cannot hand the error back: it handles it or panics with it.
  // Note: where the way from an entry point is read (`EntryPoint.errorPath`), what happens to the error on it is said; the others keep the hedge.
  const routed = reaching.map((e) => ({ e, route: routeOf(e) }));
  const returning = routed.filter((r) => r.route.kind === "returns").map((r) => r.e);
  const panicking = routed.filter((r) => r.route.kind === "panics");
  const mapping = routed.filter((r) => r.route.kind === "maps");
  const dropping = routed.filter((r) => r.route.kind === "drops");
  const unread = routed.filter((r) => r.route.kind === "unknown").map((r) => r.e);
  const passing = unread.filter((e) => e.noResult !== true);
  const stopping = unread.filter((e) => e.noResult === true);
  const at = passing.length === 0 ? null : `your call of ${list(passing.map((e) => code(e.symbol)))}, which ${passing.length === 1 ? "reaches" : "reach"} ${callee} (whether ${passing.length === 1 ? "it passes" : "they pass"} the error on as it is, map${passing.length === 1 ? "s" : ""} it into ${passing.length === 1 ? "an error of its own" : "errors of their own"} or handle${passing.length === 1 ? "s" : ""} it is not worked out here)`;
  const stopped = stopping.length === 0 ? null : `${list(stopping.map((e) => code(e.symbol)))} ${stopping.length === 1 ? "reaches" : "reach"} ${callee} but ${stopping.length === 1 ? "returns" : "return"} no \`Result\`: the error does not come back to you through ${stopping.length === 1 ? "it" : "them"} as a value; ${stopping.length === 1 ? "it handles" : "they handle"} it or panic${stopping.length === 1 ? "s" : ""} with it (an \`.expect\` or \`unwrap()\` there prints it in its Debug form after its own words), which the \`panicked at\` line of such a panic shows.`;
  const routes = [
    ...(returning.length === 0 ? [] : [`It comes back to you in the \`Result\` of ${list(returning.map((e) => code(e.symbol)))}, as the index reads the calls (${returning.slice(0, 2).map((e) => routeOf(e).written).join("; ")}${returning.length > 2 ? "; …" : ""})${returning.some((e) => e.errorPath?.includes("?") === true) ? ", \`?\` converting it with \`From\` where the error types differ" : ""}: \`match\` on that \`Result\`, or pass it on with \`?\`; \`unwrap()\` and \`expect()\` turn it into a panic.`]),
    ...panicking.slice(0, 2).map(({ e, route }) => `Through ${code(e.symbol)} it does not come back to you as a value (${route.written}): the \`${route.use === "unwrap" ? "unwrap()" : "expect(…)"}\` in ${code(route.at!)} turns it into a panic, which prints ${route.use === "unwrap" ? "“called \`Result::unwrap()\` on an \`Err\` value: ” and then the error's Debug form" : "the \`expect\` message, “: ” and then the error's Debug form"}.`),
    ...mapping.slice(0, 2).map(({ e, route }) => `Through ${code(e.symbol)} (${route.written}), ${code(route.at!)} turns it into another error with \`.map_err(…)\` and passes that on: what comes back in the \`Result\` of ${code(e.symbol)} is that error (whether it keeps this text is not worked out here).`),
    ...dropping.slice(0, 2).map(({ e, route }) => `Through ${code(e.symbol)} it does not come back to you: ${code(route.at!)} drops or handles it where it calls the next function (\`.is_ok()\`, \`.is_err()\`, \`.ok()\`, \`.unwrap_or…\` or \`let _ =\`, as the index reads the call), so there is no error of it to handle at your call.`),
  ];
  const solutions = macroCrate
    ? [`Change the ${macroInput(facts)} so that its expansion does not make this error.`]
    : panicker !== undefined
    ? [`It reaches your code as a panic of ${code(panicker.symbol)}, not as a \`Result\`: there is no error value to match. Avoid the case${steps.length > 0 ? ` (${steps.join(", then ")})` : ""}${publicCallers(facts)}; the docs quoted above, where there are any, say when it happens.`]
    : unreached
    ? [`Users do not call ${callee} (${fn!.visibility === null ? "private" : code(fn!.visibility!)}${facts.callers.length === 0 ? "" : `; called in the crate by ${list(facts.callers.slice(0, 3).map(code))}`}), and the symbol index finds no public function that reaches it: the error goes to the crate's own code, which may handle it there. Where this text does reach your program, it comes through a call of yours into ${facts.crate === null ? "the crate" : code(facts.crate)}: in the error that call returns, or in a panic or a log line of the crate's (which one is not worked out here).`]
    : routes.length > 0
    ? [...routes, ...(at === null ? [] : [`Handle the error at ${at}: \`match\` on the \`Result\`, or pass it on with \`?\`.`]), ...(stopped === null ? [] : [stopped])]
    : at === null && stopped !== null
    ? [stopped]
    : [`Handle the error ${at !== null ? `at ${at}` : makerEntries.length > 0 ? `at your call of ${list(makerEntries.map(code))}, which ${makerEntries.length === 1 ? "reaches" : "reach"} code that builds it (whether the error comes back to you unchanged is not worked out here)` : `where ${value && closure === undefined ? `${callee} returns it` : "it reaches your code"}`}: \`match\` on the \`Result\`, or pass it on with \`?\`; \`unwrap()\` and \`expect()\` turn it into a panic.`];
  if (routes.length === 0 && at !== null && stopped !== null) solutions.push(stopped);
  if (errorClass !== null && errorClass.includes("::")) solutions.push(`To handle this case apart from the others, match the \`${errorClass.slice(errorClass.lastIndexOf("::") + 2)}\` variant of \`${errorClass.slice(0, errorClass.lastIndexOf("::"))}\`.`);
  // Note: a path condition of branches alone says what a caller can check beforehand; one through a loop or a closure does not.
  // Note: and only where users call the function and the conditions read nothing but its parameters: a local or `self`'s state is no caller's to check.
  const params = new Set((fn?.params ?? []).flatMap((p) => boundNames(p.pattern)));
  const checkable = fn !== undefined && calledByUsers(fn, facts) && facts.conditions.every((c) => readNames(conditionSource(c)).every((n) => params.has(n)));
  if (value && checkable && steps.length > 0 && facts.conditions.every((c) => c.kind === "if" || c.kind === "match" || c.kind === "if-let" || c.kind === "let-else")) solutions.push(`It is not returned unless ${steps.join(", then ")}: check that beforehand to avoid it.`);
  const tags = ["rust", kind, ...(facts.crate === null ? [] : [facts.crate]), ...facts.gates.flatMap((g) => {
    const f = /^feature\s*=\s*"([^"]+)"$/.exec(g);
    return f ? [`feature-${f[1]}`] : [];
  }), "returned-error"];
  if (panicker !== undefined) return {
    documentation: doc.join(" "),
    triggerScenarios: trigger,
    commonSituations: situations.join(" "),
    solutions,
    exampleFix: null,
    handlingStrategy: "validate-input",
    validationCode: null,
    typeGuard: null,
    tryCatchPattern: null,
    preventionTips: ["Read the `# Panics` section of the public functions you call: a panic of their own stops the thread, and no `Result` of theirs carries it."],
    tags: [...new Set([...tags, "panicked-error"])],
    backgroundTag: "returned-error",
  };
  return {
    documentation: doc.join(" "),
    triggerScenarios: trigger,
    commonSituations: situations.join(" "),
    solutions,
    exampleFix: null,
    // Note: a proc macro's error ends its user's build as a compile error: no value of theirs to handle, the macro's input is what to change.
    handlingStrategy: macroCrate ? "validate-input" : "handle-error",
    validationCode: null,
    typeGuard: null,
    tryCatchPattern: null,
    preventionTips: [macroCrate ? "Check the macro's input (the item, its attributes) against the macro's documentation: the error is reported where the macro expands, in the user's build." : "Propagate a returned error with `?` or handle it with `match`; keep `unwrap()` and `expect()` out of code that users run."],
    tags: [...new Set(tags)],
    backgroundTag: "returned-error",
  };
}

/** The envelope with the analysis fields, facts and related ids filled in, and the repository's own words (`own`: its tests; words.ts); a new value. */
export function analyzeEnvelope(envelope: Envelope, facts: RecordFacts, sameFunction: readonly Peer[], relatedIds: readonly string[], own?: OwnWords): Envelope {
  const first = envelope.occurrences[0]!;
  const fields = withPanickedAt(envelope, facts, withOwnWords(analysisFields(first.kind, envelope.record.errorMessage, envelope.record.filePath, envelope.record.lineNumber, facts, sameFunction, envelope.record.errorClass, first.source), facts, own, envelope.record.errorMessage, envelope.record.errorType === "error"));
  return withAnalysis(envelope, fields, facts, relatedIds);
}

/**
 * `fields` with what the `panicked at` line says of the site: for a `#[track_caller]` function, that
 * it names the caller's line; for a text other records print too (`RecordFacts.sharedText`), that
 * it tells the sites apart. Not for a returned error (the line is where a caller unwraps it) nor a
 * site in a macro's tokens (the line is where the outermost macro is invoked).
 */
function withPanickedAt(envelope: Envelope, facts: RecordFacts, fields: AnalysisFields): AnalysisFields {
  // Note: a proc macro's panic is a compile error, whose help line holds the message: stable rustc prints no `panicked at` line for it.
  if (envelope.record.errorType !== "panic" || facts.macro !== null || inProcMacro(facts)) return fields;
  if (facts.trackCaller === true) return { ...fields, documentation: `${fields.documentation} ${code(facts.function?.name ?? "The function")} is \`#[track_caller]\`: the \`panicked at\` line Rust prints names the line of the call of it, not this one.` };
  const n = facts.sharedText;
  if (n === undefined) return fields;
  const places = envelope.occurrences.map((o) => code(`${o.filePath}:${o.lineNumber}`));
  const mine = places.length === 1 ? `this record's is ${places[0]}` : `this record's are ${list(places.slice(0, 3))}${places.length > 3 ? " and more" : ""}`;
  return { ...fields, documentation: `${fields.documentation} ${n === 1 ? "One other catalogued record has" : `${n} other catalogued records have`} this same text: the \`panicked at <file>:<line>:<column>\` line Rust prints above the message tells which site it was (${mine}, a path of the repository: under a cargo registry or git checkout it starts at the crate's own folder).` };
}

/** The envelope with the given analysis fields, facts and related ids; a new value. */
export function withAnalysis(envelope: Envelope, fields: AnalysisFields, facts: RecordFacts, relatedIds: readonly string[]): Envelope {
  // Note: the static analysis wrote every field: no `modelFields` a previous version had.
  const { modelFields: _written, ...rest } = envelope;
  return { ...rest, record: { ...envelope.record, ...fields }, facts, relatedIds: [...relatedIds] };
}
