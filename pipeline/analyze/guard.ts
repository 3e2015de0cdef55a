/**
 * Rust generated from a path condition: a boolean expression that is true exactly when the
 * conditions from the function's entry to the site hold, and, when it reads only the function's
 * parameters, a `would_panic` guard and a `check` function taking the same parameters. Every name
 * in the output comes from the facts (that is, from the source) except `would_panic`, `check`,
 * `reaches` and std's `matches!`, `IntoIterator`, `Result`, `Ok`, `Err`. A guard never has
 * effects: none is written from conditions that call a consuming, mutating, blocking or
 * panicking method, assign, or use `?` (`mayHaveEffects`). Pure.
 *
 * Note: a `match` arm whose head path differs from every earlier arm's is rendered as
 * `matches!(scrutinee, pattern if …)`; otherwise the arms before it are repeated (answering
 * `false`) so the guard keeps `match`'s first-arm-wins order; no guard is written where an arm carries
 * a `#[cfg]` (the library's build, which the user's code cannot test).
 * Note: guards read the parameters' entry values; facts list as unchanged only parameters that
 * are neither `mut` nor `&mut` nor rebound by `let` before the site. Interior mutability (`Cell`,
 * `RefCell`) is not visible in the syntax tree: a guard over such a parameter can be wrong.
 */
import type { Condition, FunctionFact, SiteFacts } from "../schema-types.generated.js";
import { withoutValues } from "../message.js";
import { boundNames, constantNames, genericNames, headPaths, isCopyType, mayHaveEffects, singleName, operand, readNames, rustString, typeNames } from "./rust.js";

/** What the generator produced, and why a form is missing. */
export interface Guards {
  /** `fn would_panic(<params>) -> bool`, or the bare expression when it reads locals; null when none can be derived. */
  readonly typeGuard: string | null;
  /** `fn check(<params>) -> Result<(), &'static str>`; only in the function form. */
  readonly validationCode: string | null;
  readonly form: "function" | "expression" | null;
  /** The expression itself (null when nothing can be derived). */
  readonly expression: string | null;
  /** The names the expression reads from outside it (parameters or locals of the function). */
  readonly reads: readonly string[];
  /** The function's `let` statements the function form repeats, as written. */
  readonly lets: readonly string[];
}

export const NO_GUARDS: Guards = { typeGuard: null, validationCode: null, form: null, expression: null, reads: [], lets: [] };

/**
 * The guards of a site from its facts and the record's message. Null forms when the site sits
 * in another macro's token tree, behind a closure or `macro_rules!` arm (whether they run is not
 * in the tree), on an `.expect` (Option or Result is not in the tree), or when nothing is
 * conditional (an unconditional panic needs no guard: every call that gets there panics).
 */
export function generateGuards(facts: SiteFacts, message: string): Guards {
  if (facts.macro !== null || facts.exitInPath) return NO_GUARDS;
  const conditions = facts.conditions;
  // Note: `while` and `loop` bodies run with state that earlier iterations changed: their entry
  // condition says nothing sure about the iteration that panics.
  if (conditions.some((c) => c.kind === "closure" || c.kind === "async-block" || c.kind === "macro-rule" || c.kind === "expect" || c.kind === "while" || c.kind === "while-let" || c.kind === "loop")) return NO_GUARDS;
  if (conditions.length === 0) return NO_GUARDS;

  // Inside out: the innermost condition first, each wrapping what is below it.
  let expr = "true";
  const reads = new Set<string>();
  const generics = new Set([...genericNames(facts.function?.generics ?? null), ...genericNames(facts.function?.implGenerics ?? null)]);
  const bound: string[][] = conditions.map((c) => (c.kind === "match" || c.kind === "if-let" && c.holds || c.kind === "while-let" || c.kind === "for" ? boundNames(c.pattern ?? "") : []));
  for (let i = conditions.length - 1; i >= 0; i--) {
    const c = conditions[i]!;
    const outer = new Set(bound.slice(0, i).flat());
    const note = (src: string | null | undefined, alsoBound: readonly string[]) => {
      for (const n of readNames(src ?? "")) if (!outer.has(n) && !alsoBound.includes(n)) reads.add(n);
      // Note: a constant the function reads (`MAX_LEN`, a `const` of its body or module) is a name from outside the expression too; a const generic of the function or its impl is the caller's type's.
      for (const n of constantNames(src ?? "")) if (!generics.has(n)) reads.add(n);
    };
    const wrapped = wrap(c, expr, note);
    if (wrapped === null) return NO_GUARDS;
    expr = wrapped;
  }
  if (expr === "true") return NO_GUARDS;
  // Note: a guard only compares: one whose conditions call, assign or lock would change what it checks.
  if (mayHaveEffects(expr)) return NO_GUARDS;
  // Names bound inside the path (a `let` in a loop body or branch) do not exist where the guard is evaluated.
  if (facts.boundInside.some((n) => reads.has(n))) return NO_GUARDS;

  const fn = facts.function;
  const fnForm = fn === undefined || facts.exitBeforePath ? null : functionForm(fn, expr, [...reads], message, facts.gates);
  if (fnForm !== null) return { ...fnForm, form: "function", expression: expr, reads: [...reads].sort() };
  // Note: evaluating the conditions again where a `&mut self` or `mut self` method is would repeat
  // calls that may change `self` (`self.items.pop()`): no guard then.
  if (reads.has("self") && fn?.receiver != null && /\bmut\b/.test(fn.receiver)) return NO_GUARDS;
  return { typeGuard: expr, validationCode: null, form: "expression", expression: expr, reads: [...reads].sort(), lets: [] };
}

/** Records the names `src` reads that no enclosing pattern (nor `alsoBound`) binds. */
type Note = (src: string | null | undefined, alsoBound: readonly string[]) => void;

/** `a && b`, dropping `&& true`; `a` is already an operand of `&&`. */
function and(a: string, b: string): string {
  return b === "true" ? a : `${a} && ${b.startsWith("match ") ? `(${b})` : b}`;
}

/** `a` as an operand of `&&`: parenthesised only when it holds `||`, a range, an assignment, a closure or a jump. */
function conjunct(a: string): string {
  return /\|\||\.\.|(?<![=!<>])=(?!=)|\||\b(?:return|break|move)\b/.test(a.replace(/"(?:[^"\\]|\\.)*"/g, '""')) ? `(${a.trim()})` : a.trim();
}

function not(a: string): string {
  return a.startsWith("matches!(") ? `!${a}` : `!${operand(a)}`;
}

/** `rest` under condition `c`; null when `c` cannot be written as an expression. */
function wrap(c: Condition, rest: string, note: Note): string | null {
  switch (c.kind) {
    case "if":
    case "while": {
      if (c.condition === undefined || /\blet\b/.test(c.condition)) return null;
      note(c.condition, []);
      return c.kind === "if" && c.holds === false ? and(not(c.condition), rest) : and(conjunct(c.condition), rest);
    }
    case "if-let":
    case "while-let":
    case "let-else": {
      if (c.pattern === undefined || c.value === undefined) return null;
      note(c.value, []);
      const holds = c.kind === "while-let" || (c.kind === "if-let" && c.holds !== false);
      if (holds) return rest === "true" ? `matches!(${c.value}, ${c.pattern})` : `matches!(${c.value}, ${c.pattern} if ${rest})`;
      return and(`!matches!(${c.value}, ${c.pattern})`, rest);
    }
    case "for":
      if (c.pattern === undefined || c.value === undefined) return null;
      note(c.value, []);
      return `IntoIterator::into_iter(${c.value}).any(|${c.pattern}| ${rest})`;
    case "loop":
      return rest;
    case "match":
      return wrapMatch(c, rest, note);
    case "assert": {
      if (c.condition !== undefined) {
        note(c.condition, []);
        return and(not(c.condition), rest);
      }
      if (c.left === undefined || c.right === undefined) return null;
      note(c.left, []);
      note(c.right, []);
      const eq = `${operand(c.left)} == ${operand(c.right)}`;
      return and(c.macro?.endsWith("_ne") ? eq : `!(${eq})`, rest);
    }
    default:
      return null;
  }
}

function wrapMatch(c: Condition, rest: string, note: Note): string | null {
  if (c.scrutinee === undefined || c.pattern === undefined) return null;
  note(c.scrutinee, []);
  note(c.guard, boundNames(c.pattern));
  const earlier = c.earlierArms ?? [];
  for (const arm of earlier) note(arm.guard, boundNames(arm.pattern));
  const inner = c.guard == null ? rest : and(conjunct(c.guard), rest);
  const own = headPaths(c.pattern);
  const taken = new Set(earlier.flatMap((a) => headPaths(a.pattern) ?? ["\0overlap"]));
  if (own !== null && own.every((h) => !taken.has(h))) {
    return inner === "true" ? `matches!(${c.scrutinee}, ${c.pattern})` : `matches!(${c.scrutinee}, ${c.pattern} if ${inner})`;
  }
  // Note: an arm's `#[cfg]` is the library's build; repeated in a user's guard it would test the user's own crate's features: no guard.
  if ([...earlier.map((a) => a.attributes), c.attributes ?? []].some((attributes) => attributes.some((a) => /^#\s*\[\s*cfg\s*\(/.test(a)))) return null;
  const lines = earlier.map((a) => `    ${a.pattern}${a.guard == null ? "" : ` if ${a.guard}`} => false,`);
  const catchAll = c.guard == null && (c.pattern.trim() === "_" || /^[a-z_]\w*$/.test(c.pattern.trim()));
  lines.push(`    ${c.pattern}${c.guard == null ? "" : ` if ${c.guard}`} => ${rest},`);
  if (!catchAll) lines.push("    _ => false,");
  return `match ${c.scrutinee} {\n${lines.join("\n")}\n}`;
}

/**
 * The `would_panic` and `check` functions, when the expression reads only parameters that still
 * hold their entry values (or names bound by the plain `let`s the guard repeats) and nothing ties
 * it to the enclosing `impl` (`self`, `Self`, the impl's type parameters).
 */
function functionForm(fn: FunctionFact, expr: string, reads: readonly string[], message: string, gates: readonly string[]): { typeGuard: string; validationCode: string; lets: string[] } | null {
  // The lets the expression needs, transitively (last to first), then checked in source order.
  const needed = new Set(reads);
  const parsed = fn.lets.map((stmt) => {
    const eq = stmt.indexOf("=");
    return { stmt: stmt.trim(), binds: boundNames(stmt.slice(3, eq).replace(/:[^=]*$/, "")), reads: readNames(stmt.slice(eq + 1).replace(/;\s*$/, "")) };
  });
  const used = new Set<number>();
  for (let i = parsed.length - 1; i >= 0; i--) {
    const l = parsed[i]!;
    if (!l.binds.some((b) => needed.has(b))) continue;
    used.add(i);
    for (const b of l.binds) needed.delete(b);
    for (const r of l.reads) needed.add(r);
  }
  const available = new Set(fn.unchangedParams);
  const lets: string[] = [];
  for (const [i, l] of parsed.entries()) {
    if (!used.has(i)) continue;
    if (!l.reads.every((n) => available.has(n)) || mayHaveEffects(l.stmt.slice(l.stmt.indexOf("=") + 1))) return null;
    lets.push(l.stmt);
    for (const b of l.binds) available.add(b);
  }
  if (!reads.every((n) => available.has(n) && n !== "self")) return null;
  const implNames = new Set([...genericNames(fn.implGenerics), "Self"]);
  const mentions = [expr, ...lets, ...fn.params.map((p) => p.type), fn.whereClause ?? ""].flatMap(typeNames);
  if (mentions.some((n) => implNames.has(n)) || /\bself\b/.test(expr)) return null;

  const head = `${fn.generics ?? ""}(${fn.params.map((p) => `${p.pattern}: ${p.type}`).join(", ")})`;
  // Note: it takes its arguments as the function does: a value a call moves is passed as a clone, to keep it for the call.
  const moved = fn.params.flatMap((p) => {
    const name = singleName(p.pattern);
    return name === null || isCopyType(p.type) ? [] : [name];
  });
  const note = moved.length === 0 ? "" : `// Takes its arguments as \`${fn.name}\` does: pass ${moved.map((m) => `\`${m}.clone()\``).join(", ")} to keep ${moved.length === 1 ? "the value" : "the values"} for the call.\n`;
  const where = fn.whereClause === null ? "" : `\n${fn.whereClause}`;
  const body = (lines: string[]) => lines.map((l) => l.split("\n").map((x) => `    ${x}`).join("\n")).join("\n");
  // Note: the guard exists in the same builds as the panic: its gates become one `#[cfg]`. A feature in it is the library's, which a `#[cfg]` in the user's code reads as the user's own: a comment says so.
  const features = gates.filter((g) => /\bfeature\s*=/.test(g));
  const cfg = gates.length === 0 ? "" : `${features.length === 0 ? "" : `// ${features.join(" and ")} ${features.length === 1 ? "is a feature" : "are features"} of the library, which the check needs: in your crate, keep this \`#[cfg]\` only if a feature of yours of that name enables ${features.length === 1 ? "it" : "them"} on the library, else drop it and enable ${features.length === 1 ? "it" : "them"} on the dependency.\n`}#[cfg(${gates.length === 1 ? gates[0] : `all(${gates.join(", ")})`})]\n`;
  const typeGuard = `${note}${cfg}fn would_panic${head} -> bool${where} {\n${body([...lets, expr])}\n}`;
  const validationCode = `${note}${cfg}fn check${head} -> Result<(), &'static str>${where} {\n${body([...lets, `let reaches = ${expr};`, `if reaches {\n    return Err(${rustString(withoutValues(message))});\n}`, "Ok(())"])}\n}`;
  return { typeGuard, validationCode, lets };
}
