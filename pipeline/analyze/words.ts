/**
 * The repository's own words in a record's prose: the doc comments of the site's function and of
 * its entry points (above all their `# Panics` sections), quoted and marked as the docs' words;
 * the entry points a user calls, with their call paths and how sure each is; the tests that
 * trigger the record, and the body of one as the "before" of an example fix. Pure: the fields
 * `fields.ts` wrote and the record's facts in, the fields with these sentences added out.
 */
import type { CheckFirst, DocQuote, EntryPoint, ProcMacro, RecordFacts, Reproduction } from "../schema-types.generated.js";
import { conditionSource, isDrop } from "./frame.js";
import type { RecordReach } from "./reach.js";

/** What the prose reads besides the facts: the record's reproductions and the test to show. */
export type OwnWords = Pick<RecordReach, "reproductions" | "example">;

/** The fields this module adds to. */
interface Prose {
  readonly documentation: string;
  readonly triggerScenarios: string;
  readonly exampleFix: string | null;
  /** The record's tags: `precondition` or `internal-check` where input decides the panic. */
  readonly tags?: readonly string[];
}

/** Longest quote, in characters, before it is cut with `…`. */
const QUOTE = 400;

/** `text` ended with a period unless it ends with one already (inside a closing quote). */
function ended(text: string): string {
  return /[.!?]”?$/.test(text) ? text : `${text}.`;
}

/** A doc text as one quoted line: white space collapsed, cut at `QUOTE` characters. */
function quote(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return `“${one.length > QUOTE ? `${one.slice(0, QUOTE - 1).trimEnd()}…` : one}”`;
}

function code(s: string): string {
  return s.includes("`") ? `\`\` ${s} \`\`` : `\`${s}\``;
}

/** How sure an entry point's call path is, in words (`EntryPoint.confidence`); the site's own function needs none. */
export const HOW_SURE: Readonly<Record<EntryPoint["confidence"], string>> = {
  self: "",
  resolved: "each call resolved by its path, `Self`, a `use` or its file",
  path: "a path call naming a type that more than one crate defines",
  "type-parameter": "through a type parameter: any implementation of the trait's method",
  name: "a call matched by the method's or function's name alone",
};

/** An entry point as a phrase: its name (a proc macro's as users invoke it), and the path to the site's function when it is another. */
function entryPhrase(e: EntryPoint): string {
  if (e.procMacro !== undefined) return macroPhrase(e, e.procMacro);
  if (e.via.length <= 1) return code(e.symbol);
  const through = (e.through ?? []).map(code);
  const how = e.confidence === "type-parameter" && through.length > 0 ? `through a type parameter: any implementation of ${through.length === 1 ? through[0] : `${through.slice(0, -1).join(", ")} and ${through.at(-1)}`}` : HOW_SURE[e.confidence];
  return `${code(e.symbol)} (${code(e.via.join(" → "))}, ${how})`;
}

/** A proc macro entry point as users invoke it (`#[derive(Deserialize)]`), then the macro's function and the path from it. */
function macroPhrase(e: EntryPoint, p: ProcMacro): string {
  const name = e.symbol.slice(e.symbol.lastIndexOf("::") + 1);
  const written = p.kind === "derive" ? `#[derive(${p.derives ?? "…"})]` : p.kind === "attribute" ? `#[${name}]` : `${name}!(…)`;
  const helpers = p.helpers === undefined ? "" : `, which reads the ${list(p.helpers.map((h) => code(`#[${h}(…)]`)))} attributes of the item`;
  const kind = p.kind === "derive" ? "derive" : p.kind === "attribute" ? "attribute" : "function-like";
  const path = e.via.length <= 1 ? "" : `: ${code(e.via.join(" → "))}, ${HOW_SURE[e.confidence]}`;
  const named = p.kind === "attribute" ? ", by the path its crate or a re-export gives it" : "";
  return `${code(written)} (the ${kind} macro ${code(e.symbol)}${named}${helpers}${path})`;
}

/** `a`, `a` and `b`, `a`, `b` and `c`. */
export function list(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** What a `#[doc(hidden)]` module on the way down says of a public function in it. */
const HIDDEN = " A `mod` declaration on the way down is `#[doc(hidden)]`, though: rustdoc leaves it out of the crate's documentation, the mark of code that is not part of the crate's public API.";

/** `fields` with the docs' words (a `returned` error's with their `# Errors` sections), the entry points and the reproductions added to its prose, and an example fix from a test when one panics with the message. */
export function withOwnWords<F extends Prose>(fields: F, facts: RecordFacts, own: OwnWords | undefined, message = "", returned = false): F {
  const docs = facts.docs ?? [];
  const entries = facts.entryPoints ?? [];
  const documentation: string[] = [fields.documentation];
  const mine = docs.find((d) => d.of === "function");
  if (mine !== undefined) {
    if (mine.summary !== "") documentation.push(ended(`The docs of ${code(mine.symbol)} say: ${quote(mine.summary)}${mine.details === undefined ? "" : ` ${quote(mine.details)}`}`));
    else if (mine.details !== undefined) documentation.push(ended(`The docs of ${code(mine.symbol)} say: ${quote(mine.details)}`));
    if (mine.panics !== null) documentation.push(ended(`Under “# Panics” they say: ${quote(mine.panics)}`));
    if (mine.errors !== undefined && returned) documentation.push(ended(`Under “# Errors” they say: ${quote(mine.errors)}`));
  }
  // Note: an error variant's docs say what the error means: quoted first among the docs' words, as the crate's own account of it.
  const variant = docs.find((d) => d.of === "variant");
  if (variant !== undefined) documentation.push(ended(`The docs of the variant ${code(variant.symbol)} say: ${quote(variant.summary)}${variant.details === undefined ? "" : ` ${quote(variant.details)}`}`));
  // Note: the type's docs speak for a function without docs of its own (a `Drop::drop`, a trait method's impl); one with its own docs is said in those.
  const type = mine === undefined ? docs.find((d) => d.of === "type") : undefined;
  if (type !== undefined) documentation.push(ended(`The docs of ${code(type.symbol)}, whose \`impl\` holds ${code(facts.function?.name ?? "the function")}, say: ${quote(type.summary)}${type.details === undefined ? "" : ` ${quote(type.details)}`}`));
  const trigger: string[] = [fields.triggerScenarios];
  const itself = entries.find((e) => e.via.length === 1);
  const outside = entries.filter((e) => e.via.length > 1);
  const sure = outside.filter((e) => e.confidence !== "name");
  const implTrait = facts.function?.implTrait ?? null;
  // Note: a trait impl's method is callable wherever the type and the trait are: the module it is written in does not matter.
  if (itself !== undefined && isDrop(facts.function)) trigger.push(`It runs when a value of ${code(facts.function?.implType ?? "")} is dropped: Rust calls \`Drop::drop\` itself, and no code may call it (E0040).`);
  else if (itself !== undefined && implTrait !== null) trigger.push(`Users call ${code(itself.symbol)} itself, through \`impl ${implTrait} for ${facts.function?.implType ?? ""}\`: a trait's methods are callable wherever the type and the trait are, whatever module the impl is written in.`);
  else if (itself !== undefined) trigger.push(`Users call ${code(itself.symbol)} itself: it is public, in a module its crate's root makes reachable.${facts.moduleHidden === true ? HIDDEN : ""}`);
  // Note: a path with a link matched by name alone is left out of the prose (the facts list it, with its confidence).
  if (sure.length > 0) trigger.push(`Users reach it through ${sure.map(entryPhrase).join("; ")}.`);
  // Note: a check the path makes first, of a function with panics of its own: where it rejects the same input, the user meets that one.
  const firsts = new Map<string, { entry: string; check: CheckFirst }>();
  // Note: only a check whose message shares a word with the site's (std's assertion prefix aside) is said: one about other things (`!params.has_getter` before a check of `deserialize_with`) tells the user nothing of this panic.
  for (const e of sure) for (const c of e.checksFirst ?? []) if (!firsts.has(c.callee) && sharesWords(c.message, message)) firsts.set(c.callee, { entry: e.symbol, check: c });
  for (const { entry, check } of [...firsts.values()].slice(0, 2)) {
    // Note: a message that opens with the same words as the site's says, in the repository's words, that the earlier check tests the same thing: a reading of the words, not of the conditions.
    const same = sameOpening(check.message, message);
    // Note: a function of the path that checks itself before its call of the next one (`callee` is itself).
    const itself = check.callee === check.caller;
    if (itself) trigger.push(`On the way, ${code(check.caller)} checks with a panic of its own on a line before its first call of ${code(check.before)} (${quote(check.message)})${same ? ", which opens with the same words: by those words it checks the same thing, so a call of " + code(entry) + " with such input most likely stops there first, with that message, and does not get here (a reading of the messages, not of their conditions)." : `: where it rejects the same input, a call of ${code(entry)} stops there first, with that message, and not here.`}`);
    else trigger.push(same
      ? `On the way, ${code(check.caller)} calls ${code(check.callee)} before ${code(check.before)} (in the order its code is written), and ${code(check.callee)} raises a panic that opens with the same words (${quote(check.message)}): by those words it checks the same thing, so a call of ${code(entry)} with such input most likely stops there first, with that message, and does not get here (a reading of the messages, not of their conditions).`
      : `On the way, ${code(check.caller)} calls ${code(check.callee)} before ${code(check.before)} (in the order its code is written), and ${code(check.callee)} raises panics of its own (${quote(check.message)}): where it rejects the same input, a call of ${code(entry)} stops there first, with that message, and not here.`);
  }
  const about = aboutSite(message, facts);
  // Note: an entry point that calls the site's function itself speaks of it in its section whatever the words.
  const direct = new Set(entries.filter((e) => e.via.length <= 2).map((e) => e.symbol));
  for (const d of docs) if (d.of === "entry-point" && d.panics !== null && (direct.has(d.symbol) || about(d.panics))) trigger.push(ended(`The docs of ${code(d.symbol)} say under “# Panics”: ${quote(d.panics)}`));
  // Note: a returned error is what an entry point's `# Errors` section speaks of, where it passes the error on.
  if (returned) for (const d of docs) if (d.of === "entry-point" && d.errors !== undefined && (direct.has(d.symbol) || about(d.errors))) trigger.push(ended(`The docs of ${code(d.symbol)} say under “# Errors”: ${quote(d.errors)}`));
  // Note: a test is said to reach the site and to expect a message the record's pattern accepts, not to raise this very record: several checks may print the text it expects.
  const reaching = (own?.reproductions ?? []).filter((r) => r.how === "should-panic-reached");
  const expecting = (own?.reproductions ?? []).filter((r) => r.how === "should-panic-text");
  if (reaching.length > 0) trigger.push(`The repository's \`#[should_panic]\` ${reaching.length === 1 ? "test" : "tests"} ${listed(reaching)} ${reaching.length === 1 ? "reaches" : "reach"} this site through the calls above${reaching.some((r) => r.expected !== null) ? ` and ${reaching.length === 1 ? "expects" : "expect"} a message its pattern accepts` : ""}.`);
  if (expecting.length > 0) trigger.push(`The repository's \`#[should_panic]\` ${expecting.length === 1 ? "test" : "tests"} ${listed(expecting)} ${expecting.length === 1 ? "expects" : "expect"} a message its pattern accepts.`);
  const example = own?.example ?? null;
  // Note: a repository's own test that panics with the message shows the failing call as the code shows it: it is the "before" whenever there is one.
  const input = (fields.tags ?? []).some((t) => t === "precondition" || t === "internal-check");
  const exampleFix = example === null ? fields.exampleFix : exampleOf(example, docs.find((d) => d.panics !== null) ?? null, input);
  return { ...fields, documentation: documentation.join(" "), triggerScenarios: trigger.join(" "), exampleFix };
}

/** Whether two messages open with the same five words or more (holes and std's assertion prefixes left out, case aside). */
function sameOpening(a: string, b: string): boolean {
  const words = (m: string) => m.replace(/^assertion (?:failed:|`left [=!]= right` failed:?)\s*/, "").replace(/\{[^{}]*\}/g, " ").toLowerCase().match(/[a-z0-9_]+/g) ?? [];
  const [x, y] = [words(a), words(b)];
  let n = 0;
  while (n < x.length && n < y.length && x[n] === y[n]) n++;
  return n >= 5;
}

/** Whether two messages share a content word (`contentWords`), std's assertion prefixes and the holes left out. */
function sharesWords(a: string, b: string): boolean {
  const words = (m: string) => contentWords(m.replace(/^assertion (?:failed:|`left [=!]= right` failed:?)\s*/, "").replace(/\{[^{}]*\}/g, " "));
  const x = words(b);
  return [...words(a)].some((w) => x.has(w));
}

/** English words too common to tie two texts together (no repository's words). */
const COMMON = new Set("this that with from have when will does must been than then into only what which their there where also each other should would could because before after these those being more most some such they them your value values".split(" "));

/** The words of a text that may tie it to another: names and words of four letters or more, lowercased, a plural's `s` dropped, common English left out. */
function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/[A-Za-z_][A-Za-z0-9_]{3,}/g)) {
    const w = m[0].toLowerCase().replace(/s$/, "");
    if (!COMMON.has(w) && !COMMON.has(`${w}s`)) out.add(w);
  }
  return out;
}

/**
 * Whether an entry point's `# Panics` section speaks of this site: it shares two words with the
 * message (its one word, if it has only one), or one with the site's conditions (a name the
 * check reads); always, for a message without words of its own. Another panic of that function (a shape check quoted for a path not
 * implemented) is left out.
 */
function aboutSite(message: string, facts: RecordFacts): (panics: string) => boolean {
  const said = contentWords(message);
  const checked = contentWords(facts.conditions.map(conditionSource).join(" "));
  // Note: a message without words of its own (`{}`) leaves nothing to tell it by: the section is kept (a check's names seldom stand in a doc's prose).
  if (said.size === 0) return () => true;
  return (panics) => {
    const words = [...contentWords(panics)];
    return words.filter((w) => said.has(w)).length >= Math.min(2, said.size) && said.size > 0 || words.some((w) => checked.has(w));
  };
}

/** Up to three tests by name and place, and how many more. */
function listed(tests: readonly Reproduction[]): string {
  return `${tests.slice(0, 3).map((r) => `${code(r.name)} (${code(`${r.path}:${r.line}`)})`).join(", ")}${tests.length > 3 ? `, and ${tests.length - 3} more,` : ""}`;
}

/** A test's body as the "before" of an example fix; the "after" names what the docs ask of the input, when they say. */
function exampleOf(example: NonNullable<OwnWords["example"]>, panics: DocQuote | null, input: boolean): string {
  const lines = example.body.split("\n");
  const indent = Math.min(...lines.filter((l) => l.trim() !== "").map((l) => /^\s*/.exec(l)![0].length));
  const body = lines.map((l) => l.slice(Math.min(indent, /^\s*/.exec(l)![0].length))).join("\n");
  // Note: where no input of the caller's decides the panic (a state, another task's panic), what to change is what the test does, not an argument.
  const after = panics === null ? [input ? "// after: pass input for which the failing check holds, or check it before the call." : "// after: avoid what this test does to get here; the conditions above say what leads to the panic."] : [`// after: check the input before the call; the docs of \`${panics.symbol}\` say it panics:`, ...panics.panics!.split("\n").map((l) => `// ${l}`.trimEnd())];
  return [`// before: the repository's test \`${example.name}\` (${example.path}:${example.line}) panics with this message`, body, ...after].join("\n");
}
