/**
 * The symbols of one Rust file, read by a token pass (tokens.ts): its functions and methods with
 * their owners, visibility, doc comments and the calls they make, its `macro_rules!` macros and
 * the calls in their bodies, its `use` declarations and its `mod` declarations. Pure: text in,
 * plain data out; kept in the extraction cache with the file's sites (by blob).
 *
 * Note: a token pass, not tree-sitter: extraction parses only the items of a few sites, and the
 *   index needs every function of every file. The tokens of a macro's arguments are read like
 *   any other code, so `check!(TensorCheck::narrow(…))` is a call of `TensorCheck::narrow`.
 */
import { itemName } from "../layout.js";
import { decodeStringLiteral } from "../message.js";
import { isTestAttribute } from "../rust/index.js";
import { CLOSURE_OPENERS, KEYWORDS } from "../rust/keywords.js";
import { SAME_VALUE_METHODS } from "../rust/std-methods.js";
import { optionOrResult } from "../rust/std-types.js";
import { matching, type Token, tokenize } from "../tokens.js";

/**
 * A call as the token pass reads it, by its key: `f` (a plain call), `Type::f` (a path: its last
 * two segments, `Self` replaced by the impl's type and `use` aliases by what they name), `.f` (a
 * method call), `self.f` (a method call on `self`), `self.x.f` (a method call on the field `x` of
 * `self`), `Type.f` (a method call on a parameter of that
 * type), `m!` (a macro invocation), `&f` (a function named alone as a macro invocation's argument).
 */
export type CallFact = string;

/**
 * How a function uses the result of a call: `?` (`f(…)?`), `map_err` (`f(…).map_err(…)?`),
 * `return` (`f(…)` the last expression of its body), `unwrap` (`f(…).unwrap()`), `expect`
 * (`f(…).expect(…)`), `discard` (`f(…).is_ok()`, `.ok()`, `.unwrap_or(…)` and the like, `let _ =
 * f(…);`: the error goes no further).
 */
export type ResultUse = "?" | "map_err" | "return" | "unwrap" | "expect" | "discard";

/** The methods of `Result` (and `Option`) that drop an error or handle it: what they give holds no error. */
const ERROR_DROPPING: ReadonlySet<string> = new Set(["is_ok", "is_err", "ok", "unwrap_or", "unwrap_or_default", "unwrap_or_else", "is_some", "is_none"]);

/** How users invoke a proc macro: `function` (`name!(…)`), `attribute` (`#[name]`), or `derive` with the name users derive and its helper attributes (`#[derive(Deserialize)]`, `#[serde(…)]`). */
export type ProcMacro = readonly [kind: "function" | "attribute" | "derive", derived?: string, ...helpers: string[]];

/** The doc comment of an item: its first paragraph and its `# Panics` and `# Errors` sections, as written (`///` and one space taken off). */
export interface DocFact {
  readonly summary: string;
  readonly panics: string | null;
  /** Its `# Errors` section, as `panics`; absent when none. */
  readonly errors?: string;
  /** The code of its first ```` ```should_panic ```` block (a doc test that panics), absent when none. */
  readonly example?: string;
  /** Its prose after the first paragraph up to the first heading, and its `# Arguments` section (`DocQuote.details`); absent when none. */
  readonly details?: string;
}

/** The most of a doc comment's further prose a record quotes. */
const DETAILS_LENGTH = 600;

/** A function or method of the file. */
export interface FunctionSymbol {
  readonly name: string;
  /** The type of its `impl` block, or the trait it is a default method of; null for a free function. */
  readonly owner: string | null;
  /** The trait its `impl Trait for Type` block implements, or (for a trait's default method) the trait; null otherwise. */
  readonly trait: string | null;
  /** True for an item of a `trait` block (a default method or a declaration); absent in an `impl` block, even one of a trait for a type of the same name (`impl ser::Error for Error`). */
  readonly inTrait?: true;
  /** What its return type is by its head: `option` (`Option<…>`), `result` (`Result<…>`, `io::Result<…>`, any path ending in `Result`), `self` (`Self`, or its impl's type by name), `none` (no `->`); absent for others. */
  readonly returns?: "option" | "result" | "self" | "none";
  /** Of an `impl a::Trait for Type` block's trait path, the module segment before the trait's name (`ser` of `ser::Error`); absent for a one-segment path. */
  readonly traitModule?: string;
  /** `pub`, `pub(crate)`, `pub(super)`, … as written; null for none. */
  readonly visibility: string | null;
  /** True when it takes `self`. */
  readonly receiver: boolean;
  /** 1-based lines of `fn` and of the body's closing brace. */
  readonly line: number;
  readonly endLine: number;
  /** The inline modules around it in the file, outermost first, with whether each is `pub`. */
  readonly modules: readonly (readonly [name: string, pub: boolean])[];
  /** Inside a `macro_rules!` body: the macro's name (its expansions define it). */
  readonly inMacro: string | null;
  /** True for a test function (`#[test]` and the like) or one inside test-only items (`#[cfg(test)]`). */
  readonly test: boolean;
  /** `#[should_panic]`: the expected text ("" without one); absent for other functions. */
  readonly expected?: string;
  /** The lines of its body, for a `#[should_panic]` test (a reproduction's code). */
  readonly body?: string;
  /** The type parameters in scope in its body: its own, then its `impl`'s or trait's (`B` of `impl<B: Backend>`); absent when none. Lifetimes and const parameters are left out. */
  readonly generics?: readonly string[];
  /** The traits its type parameters are bound by, its own and its `impl`'s (`B: FusionBackend`, `where R: Runtime`), by their last segment; absent when none. */
  readonly bounds?: readonly (readonly [param: string, traits: readonly string[]])[];
  readonly doc?: DocFact;
  /** For a function a proc-macro attribute makes a macro (`#[proc_macro_derive(Deserialize, attributes(serde))]`): its kind, then for a derive the name users derive and its helper attributes. Absent for others. */
  readonly procMacro?: ProcMacro;
  readonly calls: readonly CallFact[];
  /** The 1-based line of the first call of each of `calls`, in the same order; absent when it makes none. */
  readonly callLines?: readonly number[];
  /** Its parameters' names in order, `self` left out ("" for a pattern that is not one name); absent when it takes none. */
  readonly params?: readonly string[];
  /**
   * Its parameters it hands on unchanged: `[call, argument, parameter]` for each argument of a
   * call (`call` its key, `argument` 0-based in the parentheses) that is one of its parameters
   * (`parameter`, or `self`) by name alone (after `&`, `&mut` or `*`), no `let` or `for` having
   * bound that name in the body before; absent when none.
   */
  readonly passes?: readonly (readonly [call: CallFact, argument: number, parameter: string])[];
  /**
   * How it uses the result of a call, for each callee key whose every call it uses in one of these
   * ways (`ResultUse`): `[call, use]`; absent when none. A reading of the tokens after the call's
   * closing parenthesis (`.await` read through).
   */
  readonly uses?: readonly (readonly [call: CallFact, use: ResultUse])[];
  /** The enum variants its body builds, `Type::Variant`, and the structs, `Type` (`Type(…)`, `Type { … }`, `m::Type(…)`; `Self` read as the impl's type, `use` aliases as what they name; not those a pattern names, `Err(Error::Io(e)) =>`, `if let`, `matches!`, `==`, nor the prelude's `Some`, `Ok`, `Err`): where a returned error of that variant or type is made. Absent when none. */
  readonly makes?: readonly string[];
}

/** A `macro_rules!` macro and the calls its body's tokens make (its invocations make them). */
export interface MacroSymbol {
  readonly name: string;
  readonly line: number;
  readonly calls: readonly CallFact[];
  /** The type aliases its body declares for a type its invocation names (`type B = $crate::backends::$Backend;`): in code an expansion holds, such a name stands for whatever type that is. Absent when none. */
  readonly types?: readonly string[];
}

/** A type or trait the file declares outside test code: its name, whether it is plain `pub`, and the inline modules around it (as `FunctionSymbol.modules`), absent when none. */
export type TypeSymbol = readonly [name: string, pub: boolean, modules?: readonly (readonly [name: string, pub: boolean])[]];

/** What the file's symbols are. */
export interface FileSymbols {
  readonly functions: readonly FunctionSymbol[];
  readonly macros: readonly MacroSymbol[];
  /** `use` declarations, `[alias, path]` (`use a::b::C as D` → `["D", "a::b::C"]`; a glob's alias is `*`). */
  readonly uses: readonly (readonly [alias: string, path: string])[];
  /** The paths `pub use` re-exports (only plain `pub`), as written. */
  readonly reexports: readonly string[];
  /** `mod` declarations at the file's top level (or in a macro invocation there), `[name, pub]` (plain `pub` only; test-only ones left out). */
  readonly modules: readonly (readonly [name: string, pub: boolean])[];
  /** The `struct`, `enum` and `union` types and the traits it declares outside test code. */
  readonly types: readonly TypeSymbol[];
  /** Of those, the ones with a doc comment, `[name, doc]`, in the order declared; absent when none. */
  readonly typeDocs?: readonly (readonly [name: string, doc: DocFact])[];
  /** Of its enums outside test code, the variants with a doc comment, `[enum, variant, doc]`; absent when none. */
  readonly variantDocs?: readonly (readonly [enumName: string, variant: string, doc: DocFact])[];
  /** The named fields of its structs whose type is one named type: `[struct, field, type]`, the type's path as written (`Inner`, `crate::batch::Semaphore`), after a `*` where a wrapper holds it (`Arc<Inner>`: `*Inner`, whose own methods such as `clone` are the wrapper's); absent when none. */
  readonly fields?: readonly (readonly [struct: string, field: string, type: string])[];
  /** Of its structs' named fields, outside test code, those not plain `pub` (none, `pub(crate)`, …), by struct: code outside the crate cannot read them. Absent when none. */
  readonly hiddenFields?: readonly (readonly [struct: string, fields: readonly string[]])[];
}

/** Tokens after which `impl` or `trait` is a type (`x: impl Fn()`, `&dyn Trait`), not an item. */
const TYPE_POSITION = new Set(["::", "(", ":", "->", "&", "<", ",", "dyn", "=", "+", "as"]);

/** The lengths of the keywords the index's walk looks for (`fn`, `mod`, `use`, `impl`, `enum`, `trait`, `union`, `struct`, `macro_rules`), as bits. */
const ITEM_WORD_LENGTHS = (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 11);

/**
 * True for a quasi-quoting macro's name: `quote`, `parse_quote` and their `_spanned` forms (the
 * `quote` and `syn` crates), and the macros named after them that proc-macro crates wrap them in
 * (`quote_block!`, `quote_expr!` of serde_derive).
 * Note: by name: a wrapper is defined in another file, whose body the token pass of this one does not see.
 */
function isQuote(name: string): boolean {
  return name === "quote" || name === "parse_quote" || name.startsWith("quote_") || name.startsWith("parse_quote_");
}

/** Item modifiers that may stand between a visibility and `fn`. */
const MODIFIERS = new Set(["const", "async", "unsafe", "extern", "default", "safe"]);

interface Scope {
  /** What the brace opened. */
  readonly kind: "impl" | "trait" | "mod" | "fn" | "macro" | "block";
  readonly close: number;
  readonly owner?: string | null;
  readonly trait?: string | null;
  readonly traitModule?: string;
  readonly name?: string;
  readonly pub?: boolean;
  readonly test?: boolean;
  readonly calls?: CallFact[];
  /** What `calls` holds, for telling a new callee. */
  readonly called?: Set<CallFact>;
  readonly visibility?: string | null;
  /** The type parameters an `impl` or a trait declares. */
  readonly generics?: readonly string[];
  /** Their bounds (`FunctionSymbol.bounds`). */
  readonly bounds?: readonly (readonly [string, readonly string[]])[];
  /** A macro's type aliases (`MacroSymbol.types`). */
  readonly types?: string[];
  /** A function's parameters by name (`self` when it takes it), and those a `let` or `for` of its body has bound since. */
  readonly params?: ReadonlySet<string>;
  /** Of a function's parameters, those whose type is one named type (`options: StftOptions`, `x: &mut Tensor<B>`): that type's name, not one of the type parameters in scope. */
  readonly paramTypes?: ReadonlyMap<string, string>;
  readonly bound?: Set<string>;
  /** Of a function's own values, those a `let` binds to one named type (`let x: T = …`, `let x = T::new(…);`, `let x = T { … };`), by name; a later `let` or `for` of the name takes it out. */
  readonly localTypes?: Map<string, string>;
  /** A function's type parameters and its impl's, which name no type of the workspace. */
  readonly typeParams?: ReadonlySet<string>;
  readonly passes?: [CallFact, number, string][];
  /** The arguments (`call\0argument`) some call fills with anything but one parameter. */
  readonly mixed?: Set<string>;
  /** A function's `FunctionSymbol.makes`, in the order first met. */
  readonly makes?: string[];
  /** How a function uses each callee's results so far (`FunctionSymbol.uses`): null once two calls of it differ, or one is used otherwise. */
  readonly results?: Map<CallFact, ResultUse | null>;
  /** A function's `FunctionSymbol.callLines`. */
  readonly lines?: number[];
}

/**
 * The symbols of `text` (see the module's doc comment); `t`: its tokens (`tokenize`), when the
 * caller has them. Never throws on bad Rust: what does not read as an item is skipped.
 */
export function indexFile(text: string, t: readonly Token[] = tokenize(text)): FileSymbols {
  const n = t.length;
  const pair = matching(t);
  const lineOf = lineCounter(text);
  const functions: FunctionSymbol[] = [];
  const macros: MacroSymbol[] = [];
  const uses: [string, string][] = [];
  const reexports: string[] = [];
  const modules: [string, boolean][] = [];
  const types: TypeSymbol[] = [];
  const typeDocs: [string, DocFact][] = [];
  const variantDocs: [string, string, DocFact][] = [];
  const fields: [string, string, string][] = [];
  const hiddenFields: [string, string[]][] = [];
  const inlineModules = () => stack.filter((s) => s.kind === "mod").map((s) => [s.name!, s.pub!] as const);
  const typeEntry = (name: string, pub: boolean): TypeSymbol => {
    const around = inlineModules();
    return around.length === 0 ? [name, pub] : [name, pub, around];
  };
  /** Each `use` alias, with the last segment of the path it names. */
  const aliases = new Map<string, string>();
  const stack: Scope[] = [];
  const top = () => stack.at(-1);
  /** The innermost scope that collects calls: a function's body or a macro's. */
  const collector = () => {
    for (let k = stack.length - 1; k >= 0; k--) if (stack[k]!.calls !== undefined) return stack[k]!;
    return undefined;
  };
  const inTest = () => stack.some((s) => s.test === true);
  const selfType = () => {
    for (let k = stack.length - 1; k >= 0; k--) if (stack[k]!.kind === "impl" || stack[k]!.kind === "trait") return stack[k]!.owner ?? null;
    return null;
  };
  const pending: { fn: Omit<FunctionSymbol, "calls" | "endLine">; calls: CallFact[]; lines: number[]; passes: [CallFact, number, string][]; makes: string[]; results: Map<CallFact, ResultUse | null> }[] = [];
  const ended = (p: (typeof pending)[number], endLine: number): FunctionSymbol => {
    const uses = [...p.results].filter((u): u is [CallFact, ResultUse] => u[1] !== null);
    return { ...p.fn, endLine, calls: p.calls, ...(p.lines.length === 0 ? {} : { callLines: p.lines }), ...(p.passes.length === 0 ? {} : { passes: p.passes }), ...(uses.length === 0 ? {} : { uses }), ...(p.makes.length === 0 ? {} : { makes: p.makes }) };
  };

  /** The opening delimiters of the macro invocations around the token (`name!(…)`), innermost last. */
  const macroOpens: number[] = [];
  for (let i = 0; i < n; i++) {
    const tok = t[i]!;
    if (tok.kind === "close") {
      while (stack.length > 0 && top()!.close <= i) {
        const s = stack.pop()!;
        if (s.kind === "fn") {
          functions.push(ended(pending.pop()!, lineOf(tok.start)));
        }
      }
      continue;
    }
    if (tok.kind === "open") {
      if (tok.text === "{") stack.push({ kind: "block", close: pair[i]! });
      continue;
    }
    if (tok.kind !== "ident") continue;
    const next = t[i + 1];
    // Items.
    // Note: a word is compared with the item keywords only when it is as long as one of them (most
    //   are not; one of 32 characters or more may be compared too, as the shift wraps).
    const word = (ITEM_WORD_LENGTHS >> tok.text.length) & 1 ? tok.text : "";
    if (word === "fn" && next?.kind === "ident" && (t[i + 2]?.text === "(" || t[i + 2]?.text === "<")) {
      const head = itemHead(text, t, pair, i);
      let j = i + 2;
      while (j < n && t[j]!.text !== "{" && t[j]!.text !== ";") j = t[j]!.kind === "open" ? pair[j]! + 1 : j + 1;
      if (j >= n) continue;
      const params = t[i + 2]!.text === "(" ? i + 2 : findParams(t, pair, i + 2);
      const scope = top();
      const ownerScope = scope?.kind === "impl" || scope?.kind === "trait" ? scope : undefined;
      const fnMacro = collector()?.kind === "macro" ? collector()!.name! : null;
      const test = inTest() || head.test;
      const generics = [...(t[i + 2]!.text === "<" ? typeParams(t, pair, i + 2) : []), ...(ownerScope?.generics ?? [])];
      const bounds = [...boundsIn(t, pair, i + 2, j), ...(ownerScope?.bounds ?? [])];
      const receiver = params >= 0 && takesSelf(t, params);
      const { names: named, types: paramTypes } = params >= 0 ? paramsOf(t, pair, params, receiver, new Set(generics)) : { names: [], types: new Map<string, string>() };
      const fn: Omit<FunctionSymbol, "calls" | "endLine"> = {
        name: next.text,
        owner: ownerScope?.owner ?? null,
        trait: ownerScope?.trait ?? null,
        ...(ownerScope?.kind === "trait" ? { inTrait: true as const } : {}),
        ...(ownerScope?.traitModule === undefined ? {} : { traitModule: ownerScope.traitModule }),
        ...returnsOf(t, pair, i + 2, j, ownerScope?.owner ?? null),
        // Note: a trait's methods take the trait's visibility.
        visibility: ownerScope?.kind === "trait" ? (ownerScope.visibility ?? null) : head.visibility,
        receiver,
        line: lineOf(tok.start),
        modules: inlineModules(),
        inMacro: fnMacro,
        test,
        ...(generics.length === 0 ? {} : { generics }),
        ...(bounds.length === 0 ? {} : { bounds }),
        ...(named.length === 0 ? {} : { params: named }),
        ...(head.expected === undefined ? {} : { expected: head.expected }),
        ...(head.doc === undefined ? {} : { doc: head.doc }),
        ...(head.procMacro === undefined ? {} : { procMacro: head.procMacro }),
      };
      if (t[j]!.text === ";") {
        functions.push({ ...fn, endLine: lineOf(t[j]!.start), calls: [] });
        i = j;
        continue;
      }
      const calls: CallFact[] = [];
      const passes: [CallFact, number, string][] = [];
      const makes: string[] = [];
      const results = new Map<CallFact, ResultUse | null>();
      const lines: number[] = [];
      pending.push({ fn: head.expected !== undefined ? { ...fn, body: bodyLines(text, t[j]!.start, t[pair[j]!]!.end) } : fn, calls, lines, passes, makes, results });
      const byName = new Set(named.filter((x) => x !== ""));
      if (receiver) byName.add("self");
      stack.push({ kind: "fn", close: pair[j]!, calls, called: new Set(), test, params: byName, ...(paramTypes.size === 0 ? {} : { paramTypes }), bound: new Set(), localTypes: new Map(), typeParams: new Set(generics), passes, mixed: new Set(), makes, results, lines });
      i = j;
      continue;
    }
    if ((word === "impl" || word === "trait") && !TYPE_POSITION.has(t[i - 1]?.text ?? "")) {
      let j = i + 1;
      while (j < n && t[j]!.text !== "{" && t[j]!.text !== ";") j = t[j]!.kind === "open" ? pair[j]! + 1 : j + 1;
      if (j >= n || t[j]!.text === ";") continue;
      const header = text.slice(tok.start, t[j]!.start);
      const head = itemHead(text, t, pair, i);
      const owner = word === "trait" ? (next?.kind === "ident" ? next.text : null) : itemName(header, "impl");
      const path = word === "trait" ? null : implTrait(header);
      const trait = word === "trait" ? owner : (path?.at(-1) ?? null);
      const traitModule = path !== null && path.length > 1 ? path.at(-2)! : undefined;
      if (word === "trait" && owner !== null && !head.test && !inTest()) {
        types.push(typeEntry(owner, head.visibility === "pub"));
        if (head.doc !== undefined) typeDocs.push([owner, head.doc]);
      }
      const angle = word === "impl" ? i + 1 : i + 2;
      const generics = t[angle]?.text === "<" ? typeParams(t, pair, angle) : [];
      const bounds = word === "impl" ? boundsIn(t, pair, angle, j) : [];
      stack.push({ kind: word, close: pair[j]!, owner, trait, ...(traitModule === undefined ? {} : { traitModule }), test: head.test, visibility: head.visibility, ...(generics.length === 0 ? {} : { generics }), ...(bounds.length === 0 ? {} : { bounds }) });
      i = j;
      continue;
    }
    if (word === "mod" && next?.kind === "ident") {
      const head = itemHead(text, t, pair, i);
      const after = t[i + 2];
      const pub = head.visibility === "pub";
      // Note: a declaration in a macro's invocation at the file's top level (`cfg_net! { pub mod net; }`) is one of the file's.
      if (stack.every((x) => x.kind === "block" && x.test !== true) && !head.test) modules.push([next.text, pub]);
      if (after?.text === "{") {
        stack.push({ kind: "mod", close: pair[i + 2]!, name: next.text, pub, test: head.test });
        i += 2;
      }
      continue;
    }
    if ((word === "struct" || word === "enum" || word === "union") && next?.kind === "ident" && !inTest() && t[i - 1]?.text !== "::") {
      const head = itemHead(text, t, pair, i);
      types.push(typeEntry(next.text, head.visibility === "pub"));
      if (head.doc !== undefined) typeDocs.push([next.text, head.doc]);
      if (word === "enum" && !head.test) for (const [variant, doc] of variantDocsOf(text, t, pair, i + 1)) variantDocs.push([next.text, variant, doc]);
      if (word === "struct" && !head.test && !inTest()) {
        const { typed, hidden } = fieldTypes(t, pair, i + 1);
        for (const [field, type] of typed) fields.push([next.text, field, type]);
        if (hidden.length > 0) hiddenFields.push([next.text, hidden]);
      }
      continue;
    }
    if (word === "type" && next?.kind === "ident" && t[i + 2]?.text === "=") {
      const into = collector();
      if (into?.kind === "macro") {
        let j = i + 3;
        while (j < n && t[j]!.text !== ";" && t[j]!.text !== "$") j = t[j]!.kind === "open" ? pair[j]! + 1 : j + 1;
        if (t[j]?.text === "$" && !into.types!.includes(next.text)) into.types!.push(next.text);
      }
      continue;
    }
    if (word === "use" && !inTest()) {
      let j = i + 1;
      while (j < n && t[j]!.text !== ";" && t[j]!.text !== "}") j = t[j]!.kind === "open" ? pair[j]! + 1 : j + 1;
      const head = itemHead(text, t, pair, i);
      for (const [alias, path] of usePaths(t.slice(i + 1, j))) {
        uses.push([alias, path]);
        if (alias !== "*" && alias !== "_") aliases.set(alias, path.split("::").at(-1)!);
        if (head.visibility === "pub") reexports.push(path);
      }
      i = j;
      continue;
    }
    if (word === "macro_rules" && next?.text === "!" && t[i + 2]?.kind === "ident" && t[i + 3]?.kind === "open") {
      const calls: CallFact[] = [];
      const aliases: string[] = [];
      macros.push({ name: t[i + 2]!.text, line: lineOf(tok.start), calls, types: aliases });
      stack.push({ kind: "macro", close: pair[i + 3]!, name: t[i + 2]!.text, calls, called: new Set(), test: inTest(), types: aliases });
      i += 3;
      continue;
    }
    // Note: the tokens of a quasi-quote (`quote! { … }`) are code a proc macro writes into its user's crate: their calls run there, they are none of this function's.
    if (next?.text === "!" && t[i + 2]?.kind === "open" && isQuote(tok.text)) {
      i = pair[i + 2]!;
      continue;
    }
    // A name a `let` or `for` binds hides the parameter of that name from then on.
    if ((tok.text === "let" || tok.text === "for") && next !== undefined) {
      const into = collector();
      if (into?.bound !== undefined) {
        const at = next.text === "mut" ? i + 2 : i + 1;
        const name = t[at];
        if (name?.kind === "ident") {
          into.bound.add(name.text);
          into.localTypes?.delete(name.text);
          const type = tok.text === "let" ? letType(t, pair, at, into.typeParams ?? new Set()) : null;
          const named = type === "Self" ? selfType() : type;
          if (named !== null && named !== undefined) into.localTypes?.set(name.text, named);
        }
      }
      continue;
    }
    // Variants built.
    if (t[i - 1]?.text === "::" && next?.text !== "::" && isVariantName(tok.text)) {
      const into = collector();
      // Note: a path of modules (`error::RecvError(())`, `crate::E { … }`) names a struct, not a variant.
      const made = into?.makes === undefined ? null : /^[a-z_]/.test(t[i - 2]?.text ?? "") ? ((next?.text === "(" || next?.text === "{") && isVariantName(tok.text) ? structMade(t, pair, i, pathStart(t, i), selfType, aliases, macroOpens) : null) : variantMade(t, pair, i, selfType, aliases, macroOpens);
      if (made !== null && !into!.makes!.includes(made)) into!.makes!.push(made);
    } else if ((next?.text === "(" || next?.text === "{") && t[i - 1]?.text !== "::" && t[i - 1]?.text !== "." && isVariantName(tok.text) && !PRELUDE_CONSTRUCTORS.has(tok.text)) {
      // Structs built (`RecvError(())`, `Error { kind }`, `Self(x)`).
      const into = collector();
      const made = into?.makes === undefined ? null : structMade(t, pair, i, i, selfType, aliases, macroOpens);
      if (made !== null && !into!.makes!.includes(made)) into!.makes!.push(made);
    }
    // Calls.
    // Note: only an identifier followed by `(`, `!` or `::` (a turbofish) may name a call (`callAt`).
    const after = next?.text;
    if (after === "!" && t[i + 2]?.kind === "open" && tok.text !== "macro_rules") macroOpens.push(i + 2);
    while (macroOpens.length > 0 && pair[macroOpens.at(-1)!]! < i) macroOpens.pop();
    // Note: a function named alone as a macro's argument (`dispatch!(dtype, attention_impl)`: at the invocation's own level, not inside a call in it) is one the macro's expansion may call: `&name`.
    if (macroOpens.length > 0 && (after === "," || i + 1 === pair[macroOpens.at(-1)!]) && (t[i - 1]?.text === "," || i - 1 === macroOpens.at(-1)) && /^[a-z_]\w*$/.test(tok.text) && !KEYWORDS.has(tok.text) && tok.text !== "self" && atLevel(t, macroOpens.at(-1)!, i)) {
      const into = collector();
      const key = `&${tok.text}`;
      if (into?.called !== undefined && !into.called.has(key)) (into.called.add(key), into.calls!.push(key), into.lines?.push(lineOf(tok.start)));
      continue;
    }
    // Note: a function named alone as a call's argument (`.unwrap_or_else(num_cpus)`, `spawn(worker)`) is one the callee may call: `&name` too, unless the name is a parameter or a `let`'s.
    if ((after === "," || after === ")") && (t[i - 1]?.text === "(" || t[i - 1]?.text === ",") && /^[a-z_]\w*$/.test(tok.text) && !KEYWORDS.has(tok.text) && tok.text !== "self") {
      const into = collector();
      // Note: an attribute's words (`#[cfg(unix)]`, `#[allow(dead_code)]`) are no arguments.
      const open = into?.called === undefined || into.params?.has(tok.text) === true || into.bound?.has(tok.text) === true ? -1 : enclosingOpen(t, pair, i);
      if (open > 0 && t[open]!.text === "(" && t[open - 1]!.kind === "ident" && /^[a-z_]/.test(t[open - 1]!.text) && !KEYWORDS.has(t[open - 1]!.text) && t[open - 2]?.text !== "[") {
        const key = `&${tok.text}`;
        if (!into!.called!.has(key)) (into!.called!.add(key), into!.calls!.push(key), into!.lines?.push(lineOf(tok.start)));
      }
      continue;
    }
    if (after !== "(" && after !== "!" && after !== "::") continue;
    const into = collector();
    if (into === undefined) continue;
    const call = callAt(t, pair, i, selfType, aliases, (name) => into.localTypes?.get(name) ?? (into.bound?.has(name) === true ? undefined : into.paramTypes?.get(name)));
    // Note: each callee once per function (the index asks who calls whom, not how often).
    if (call !== null && !into.called!.has(call)) {
      into.called!.add(call);
      into.calls!.push(call);
      into.lines?.push(lineOf(tok.start));
    }
    if (call !== null && into.results !== undefined && !call.endsWith("!")) {
      const found = resultUse(t, pair, i, after === "::" && t[i + 2]?.text === "<" ? skipAngles(t, i + 2, pair) : i + 1, into.close);
      // Note: in a closure or an `async` block, a `?` or `return` leaves that, not the function, and a panic happens when it runs.
      const use = found !== null && inClosure(t, pair, i, pair[into.close]!) ? null : found;
      const known = into.results.get(call);
      if (known === undefined) into.results.set(call, use);
      else if (known !== use) into.results.set(call, null);
    }
    if (call !== null && into.params !== undefined && into.params.size > 0 && !call.endsWith("!")) {
      handedOn(t, pair, i, call, into);
      // Note: a method called on a typed parameter (`options.check()`) hands it on as the callee's `self` (argument -1).
      if (/^[A-Z]\w*\./.test(call)) notePass(into, call, -1, into.bound!.has(t[i - 2]!.text) ? null : t[i - 2]!.text);
    }
  }
  // Note: a function whose body never closes ends the file.
  while (pending.length > 0) functions.push(ended(pending.pop()!, lineOf(text.length)));
  functions.sort((a, b) => a.line - b.line || a.endLine - b.endLine);
  return { functions, macros: macros.map(({ types: aliases, ...m }) => (aliases!.length === 0 ? m : { ...m, types: aliases })), uses, reexports, modules, types, ...(typeDocs.length === 0 ? {} : { typeDocs }), ...(variantDocs.length === 0 ? {} : { variantDocs }), ...(fields.length === 0 ? {} : { fields }), ...(hiddenFields.length === 0 ? {} : { hiddenFields }) };
}

/** The methods of `Result` (and `Option`) whose result holds the receiver's error unchanged when it is one. */
const ERROR_KEEPING = new Set(["map", "and_then", "inspect", "inspect_err"]);

/**
 * How the code uses the result of the call whose parentheses open at `open` (`ResultUse`), in a
 * body that closes at `bodyClose`; null for any other use.
 */
function resultUse(t: readonly Token[], pair: Int32Array, name: number, open: number, bodyClose: number): ResultUse | null {
  if (t[open]?.text !== "(") return null;
  let k = pair[open]! + 1;
  if (t[k]?.text === "." && t[k + 1]?.text === "await") k += 2;
  // Note: a combinator that hands an error on as it is (`Result::map`, `and_then`, `inspect`, `inspect_err`) leaves the use to what follows it: `self.build().map(|s| s.into())` returns build's error.
  while (t[k]?.text === "." && ERROR_KEEPING.has(t[k + 1]?.text ?? "") && t[k + 2]?.text === "(") k = pair[k + 2]! + 1;
  const x = t[k];
  if (x === undefined) return null;
  if (x.text === "?") return "?";
  // Note: returned as it is: `return f(…);`, or `f(…)` a statement of its own closing the body (a path of names and `self` before it: `self.f(…)`, `Self::f(…)`).
  let from = name;
  while (from > 0 && (t[from - 1]!.text === "::" || t[from - 1]!.text === "." || (t[from - 1]!.kind === "ident" && t[from - 1]!.text !== "return"))) from--;
  const before = t[from - 1]?.text;
  if (before === "return" && (x.text === ";" || x.text === "}")) return "return";
  if (k === bodyClose && (before === ";" || before === "{" || before === "}")) return "return";
  if (before === "=" && t[from - 2]?.text === "_" && t[from - 3]?.text === "let" && x.text === ";") return "discard";
  if (x.text !== "." || t[k + 2]?.text !== "(") return null;
  const method = t[k + 1]!.text;
  if (ERROR_DROPPING.has(method)) return "discard";
  if (method === "unwrap" && t[k + 3]?.text === ")") return "unwrap";
  if (method === "expect") return "expect";
  if (method === "map_err" && t[pair[k + 2]! + 1]?.text === "?") return "map_err";
  return null;
}

/**
 * True when the token at `i` stands in a closure or an `async` block inside the body that opens at
 * `body`: a group between them opened by `{` after `|`, `||`, `move` or `async`, or a `|` at the
 * level of one of those groups before the token (a closure's parameters, `.map(|x| f(x)?)`; a
 * bitwise or reads as one too, which only leaves the use unread).
 */
function inClosure(t: readonly Token[], pair: Int32Array, i: number, body: number): boolean {
  let at = i;
  for (let open = enclosingOpen(t, pair, at); open > body; open = enclosingOpen(t, pair, at)) {
    const before = t[open - 1]?.text;
    if (t[open]!.text === "{" && (before === "|" || before === "||" || before === "move" || before === "async")) return true;
    if (closureBefore(t, pair, at, open)) return true;
    at = open;
  }
  return closureBefore(t, pair, at, body);
}

/**
 * True when a closure's parameters (`|x|`, `||`, where an operand is expected) stand between `open`
 * and `at` at the level of the group `open` opens, in the statement or match arm that holds `at`
 * (back to a `;` or a `=>`).
 */
function closureBefore(t: readonly Token[], pair: Int32Array, at: number, open: number): boolean {
  for (let k = at - 1; k > open; k--) {
    const x = t[k]!;
    if (x.kind === "close") k = pair[k]!;
    else if (x.text === ";" || x.text === "=>") return false;
    else if ((x.text === "|" || x.text === "||") && (k - 1 === open || CLOSURE_OPENERS.has(t[k - 1]!.text))) return true;
  }
  return false;
}

/** The open delimiter around token `i` (brackets between read through with `pair`), or -1 at the top. */
function enclosingOpen(t: readonly Token[], pair: Int32Array, i: number): number {
  for (let k = i - 1; k >= 0; k--) {
    if (t[k]!.kind === "close") k = pair[k]!;
    else if (t[k]!.kind === "open") return k;
  }
  return -1;
}

/** True when the token at `i` stands in the group opened at `open` itself, not in a group nested in it. */
function atLevel(t: readonly Token[], open: number, i: number): boolean {
  let depth = 0;
  for (let k = i - 1; k > open; k--) {
    if (t[k]!.kind === "close") depth++;
    else if (t[k]!.kind === "open" && --depth < 0) return false;
  }
  return true;
}

/** Offsets to 1-based lines, for offsets asked in increasing order mostly (a scan from the last answer). */
function lineCounter(text: string): (at: number) => number {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (at) => {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** The lines from the one holding `start` to the one holding `end`, as written. */
function bodyLines(text: string, start: number, end: number): string {
  const from = text.lastIndexOf("\n", start) + 1;
  const to = text.indexOf("\n", end);
  return text.slice(from, to < 0 ? text.length : to);
}

/** The names of the type parameters of the generic parameter list opening at `open` (`<'a, B: Backend<X>, const D: usize>` → `B`). */
function typeParams(t: readonly Token[], pair: Int32Array, open: number): string[] {
  const out: string[] = [];
  let depth = 0;
  for (let k = open; k < t.length; k++) {
    const x = t[k]!;
    if (x.text === "<" || x.text === "<<") depth += x.text.length;
    else if (x.text === ">" || x.text === ">>") depth -= x.text.length;
    else if (x.kind === "open") k = pair[k]!;
    else if (depth === 1 && x.kind === "ident" && x.text !== "const" && (t[k - 1]!.text === "<" || t[k - 1]!.text === ",")) out.push(x.text);
    if (depth <= 0 || x.text === "{" || x.text === ";") break;
  }
  return out;
}

/**
 * The trait bounds of the type parameters of a header, from `from` (a `<` of its parameters, or
 * past it) to `to` (its body's `{` or `;`): `T: A + B<X>` in the `<…>` and in a `where` clause,
 * each trait by its path's last segment (lifetimes, `?Sized` and `Fn(…)` sugar left out).
 */
function boundsIn(t: readonly Token[], pair: Int32Array, from: number, to: number): [string, string[]][] {
  const out = new Map<string, string[]>();
  let depth = 0;
  let inWhere = false;
  for (let k = from; k < to; k++) {
    const x = t[k]!;
    if (x.text === "<" || x.text === "<<") depth += x.text.length;
    else if (x.text === ">" || x.text === ">>") depth -= x.text.length;
    else if (x.kind === "open") {
      k = pair[k]!;
      continue;
    } else if (x.text === "where" && depth === 0) inWhere = true;
    const prev = t[k - 1]?.text;
    if (x.kind !== "ident" || t[k + 1]?.text !== ":" || (inWhere ? depth !== 0 || (prev !== "where" && prev !== ",") : depth !== 1 || (prev !== "<" && prev !== ","))) continue;
    const traits = out.get(x.text) ?? out.set(x.text, []).get(x.text)!;
    // One bound list: to the `,` or `>` at its own depth.
    let d = 0;
    let m = k + 2;
    for (; m < to; m++) {
      const y = t[m]!;
      if (y.text === "<" || y.text === "<<") d += y.text.length;
      else if (y.text === ">" || y.text === ">>") {
        d -= y.text.length;
        if (d < 0) break;
      } else if (y.kind === "open") m = pair[m]!;
      else if (d === 0 && y.text === ",") break;
      else if (d === 0 && y.kind === "ident" && t[m + 1]?.text !== "::" && t[m - 1]?.text !== "?" && /^[A-Z]/.test(y.text) && t[m + 1]?.text !== "(" && !traits.includes(y.text)) traits.push(y.text);
    }
    k = m - 1;
  }
  return [...out].filter(([, traits]) => traits.length > 0);
}

/** Where the `(` of a generic function's parameters is (`fn f<T>(…)`), -1 when not found. */
function findParams(t: readonly Token[], pair: Int32Array, from: number): number {
  let depth = 0;
  for (let j = from; j < t.length; j++) {
    const x = t[j]!.text;
    if (x === "<" || x === "<<") depth += x.length;
    else if (x === ">" || x === ">>") depth -= x.length;
    else if (x === "->") continue;
    if (t[j]!.kind === "open" && x !== "(") j = pair[j]!;
    else if (x === "(" && depth <= 0) return j;
    if (x === "{" || x === ";") return -1;
  }
  return -1;
}

/** True when the parameter list opening at `open` starts with `self` (`self`, `&self`, `&'a mut self`, `mut self`, `self: …`). */
function takesSelf(t: readonly Token[], open: number): boolean {
  for (let j = open + 1; j < open + 5 && j < t.length; j++) {
    const x = t[j]!;
    if (x.text === "self") return true;
    if (x.text === "&" || x.text === "mut" || x.kind === "lifetime") continue;
    return false;
  }
  return false;
}

/** What precedes an item's keyword: its visibility, its outer attributes (test-ness, `should_panic`) and its doc comment. */
function itemHead(text: string, t: readonly Token[], pair: Int32Array, at: number): { visibility: string | null; test: boolean; expected?: string; doc?: DocFact; procMacro?: ProcMacro } {
  let j = at - 1;
  let visibility: string | null = null;
  while (j >= 0) {
    const x = t[j]!;
    if (x.kind === "ident" && MODIFIERS.has(x.text)) j--;
    else if (x.kind === "string" && t[j - 1]?.text === "extern") j--;
    else break;
  }
  if (j >= 0 && t[j]!.text === ")" && t[pair[j]! - 1]?.text === "pub") {
    visibility = text.slice(t[pair[j]! - 1]!.start, t[j]!.end).replace(/\s+/g, "");
    j = pair[j]! - 2;
  } else if (j >= 0 && t[j]!.text === "pub") {
    visibility = "pub";
    j--;
  }
  let test = false;
  let expected: string | undefined;
  let procMacro: ProcMacro | undefined;
  const docs: string[] = [];
  let end = j + 1 < t.length ? t[j + 1]!.start : text.length;
  // Outer attributes, last first; the doc comment lines in the trivia between them.
  for (;;) {
    const gapStart = j >= 0 ? t[j]!.end : 0;
    // Note: most gaps hold no `///`: they are not sliced.
    const lines = hasDocMarker(text, gapStart, end) ? docLines(text.slice(gapStart, end)) : "";
    if (lines !== "") docs.push(lines);
    if (j < 1 || t[j]!.text !== "]" || t[pair[j]! - 1]?.text !== "#") break;
    const open = pair[j]!;
    const name = t[open + 1]?.text ?? "";
    const attribute = text.slice(t[open - 1]!.start, t[j]!.end);
    if (name === "should_panic") {
      test = true;
      const literal = t.slice(open + 2, j).find((x) => x.kind === "string");
      expected = literal === undefined ? "" : (decodeStringLiteral(literal.text) ?? "");
    } else if (PROC_MACRO_KINDS.has(name) && t[open + 2]?.text !== "::") procMacro = procMacroOf(name, t, pair, open + 2);
    else if (TEST_MARKS.has(t[j - 1]?.text ?? "") && (t[j - 2]?.text === "[" || t[j - 2]?.text === "::") || isTestAttribute(attribute, false)) test = true;
    end = t[open - 1]!.start;
    j = open - 2;
  }
  const doc = docs.length === 0 ? null : parseDoc(docs.reverse().join("\n"));
  return { visibility, test, ...(expected === undefined ? {} : { expected }), ...(doc === null ? {} : { doc }), ...(procMacro === undefined ? {} : { procMacro }) };
}

/** The attributes that make a function of a proc-macro crate a macro, and the kind each makes. */
const PROC_MACRO_KINDS: ReadonlyMap<string, ProcMacro[0]> = new Map([
  ["proc_macro", "function"],
  ["proc_macro_attribute", "attribute"],
  ["proc_macro_derive", "derive"],
]);

/** `FunctionSymbol.procMacro` of the attribute `name` whose arguments (if any) open at `args`: a derive's name and helper attributes (`proc_macro_derive(Deserialize, attributes(serde))`). */
function procMacroOf(name: string, t: readonly Token[], pair: Int32Array, args: number): ProcMacro {
  const kind = PROC_MACRO_KINDS.get(name)!;
  if (kind !== "derive" || t[args]?.text !== "(") return [kind];
  const close = pair[args]!;
  const derived = t[args + 1]?.kind === "ident" ? t[args + 1]!.text : null;
  const helpers: string[] = [];
  for (let k = args + 2; k < close; k++) {
    if (t[k]!.text !== "attributes" || t[k + 1]?.text !== "(") continue;
    for (let h = k + 2; h < pair[k + 1]!; h++) if (t[h]!.kind === "ident") helpers.push(t[h]!.text);
    break;
  }
  return derived === null ? [kind] : [kind, derived, ...helpers];
}

/** The last word of an attribute that marks a test function (`#[test]`, `#[tokio::test]`, `#[rstest]`). */
const TEST_MARKS = new Set(["test", "rstest", "wasm_bindgen_test", "test_case"]);

/** True when `text` holds `///` between `from` and `to`. */
function hasDocMarker(text: string, from: number, to: number): boolean {
  for (let k = from; k + 3 <= to; k++) {
    if (text.charCodeAt(k) === 47 && text.charCodeAt(k + 1) === 47 && text.charCodeAt(k + 2) === 47) return true;
  }
  return false;
}

/** The `///` lines of a stretch of trivia, the markers and one space taken off. */
function docLines(trivia: string): string {
  if (!trivia.includes("///")) return "";
  const out: string[] = [];
  for (const line of trivia.split("\n")) {
    const m = /^\s*\/\/\/(?!\/)\s?(.*)$/.exec(line);
    if (m) out.push(m[1]!.trimEnd());
  }
  return out.join("\n");
}

/** A doc comment's first paragraph and its `# Panics` and `# Errors` sections; null for an empty one. */
export function parseDoc(doc: string): DocFact | null {
  if (doc.trim() === "") return null;
  const lines = doc.split("\n");
  const summary: string[] = [];
  for (const line of lines) {
    if (line.trim() === "" || line.startsWith("#")) {
      if (summary.length > 0) break;
      continue;
    }
    summary.push(line.trim());
  }
  const panics = docSection(lines, /^#+\s*Panics\s*$/i);
  const errors = docSection(lines, /^#+\s*Errors\s*$/i);
  const fence = doc.match(/^```[^\n]*\bshould_panic\b[^\n]*\n([\s\S]*?)^```/m);
  const details = docDetails(lines, summary.length);
  return { summary: summary.join(" "), panics, ...(errors === null ? {} : { errors }), ...(fence === null ? {} : { example: fence[1]!.replace(/\n$/, "") }), ...(details === null ? {} : { details }) };
}

/** The prose of a doc comment's section under the heading `heading` matches, up to the next heading or code block (a doc test is kept as `example`); null when it has none. */
function docSection(lines: readonly string[], heading: RegExp): string | null {
  const at = lines.findIndex((l) => heading.test(l.trim()));
  if (at < 0) return null;
  const section: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (/^#+\s/.test(line.trim()) || line.trim().startsWith("```")) break;
    section.push(line);
  }
  return section.join("\n").trim() || null;
}

/**
 * A doc comment's prose after its first paragraph (of `summaryLines` lines) up to its first
 * heading, then its `# Arguments` section; code blocks left out, paragraphs joined, at most
 * `DETAILS_LENGTH` characters (cut after a sentence where one ends, with `…`); null when empty.
 */
function docDetails(lines: readonly string[], summaryLines: number): string | null {
  const prose = (from: number, untilHeading: boolean): string[] => {
    const out: string[] = [];
    let fenced = false;
    for (const line of lines.slice(from)) {
      const t = line.trim();
      if (t.startsWith("```")) {
        fenced = !fenced;
        continue;
      }
      if (fenced) continue;
      if (untilHeading && /^#+\s/.test(t)) break;
      out.push(t);
    }
    return out;
  };
  const start = lines.findIndex((l) => l.trim() !== "" && !l.trim().startsWith("#"));
  const after = start < 0 ? [] : prose(start + summaryLines, true);
  const args = lines.findIndex((l) => /^#+\s*(?:Arguments|Parameters)\s*$/i.test(l.trim()));
  const section = args < 0 ? [] : ["Arguments:", ...prose(args + 1, true)];
  const text = [...after, ...section].join("\n").replace(/\n{2,}/g, "\n").replace(/\n/g, " ").replace(/\s+/g, " ").trim();
  if (text === "" || text === "Arguments:") return null;
  if (text.length <= DETAILS_LENGTH) return text;
  const cut = text.slice(0, DETAILS_LENGTH - 1);
  const end = Math.max(cut.lastIndexOf(". "), cut.lastIndexOf(".) "));
  return `${end > DETAILS_LENGTH / 3 ? cut.slice(0, end + 1) : cut.trimEnd()}…`;
}

/** `FunctionSymbol.returns` of a `fn` header whose tokens after the name run from `from` to `to` (its body's `{` or its `;`). */
function returnsOf(t: readonly Token[], pair: Int32Array, from: number, to: number, owner: string | null): { returns?: "option" | "result" | "self" | "none" } {
  let k = from;
  while (k < to && t[k]!.text !== "->") k = t[k]!.kind === "open" ? pair[k]! + 1 : k + 1;
  if (k >= to) return { returns: "none" };
  let head: string | null = null;
  for (k++; k < to; k++) {
    const x = t[k]!;
    if (x.kind === "ident" && x.text !== "where") head = x.text;
    else if (x.text !== "::") break;
  }
  if (head !== null && (head === "Self" || head === owner) && (t[k]?.text === "{" || t[k]?.text === ";" || t[k]?.text === "where" || k >= to)) return { returns: "self" };
  const returns = head === null ? null : optionOrResult(head);
  return returns === null ? {} : { returns };
}

/** The trait path of an `impl a::Trait for Type` header, by segment without generics (`["a", "Trait"]`), or null. */
function implTrait(header: string): string[] | null {
  const head = /^impl\s*(?:<(?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*>)?([^{]*)/.exec(header)?.[1]?.replace(/\bwhere\b[\s\S]*$/, "") ?? "";
  const m = /^\s*!?\s*((?:[A-Za-z_]\w*\s*::\s*)*[A-Za-z_]\w*)\s*(?:<(?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*>)?\s+for\s/.exec(head);
  return m === null ? null : m[1]!.split("::").map((x) => x.trim());
}

/** The `[alias, path]` pairs a `use` tree's tokens declare (`a::{b, c as d, e::*}`). */
function usePaths(tokens: readonly Token[]): [string, string][] {
  const out: [string, string][] = [];
  const walk = (from: number, to: number, prefix: string) => {
    let seg: string[] = [];
    for (let k = from; k < to; k++) {
      const x = tokens[k]!;
      if (x.text === "{") {
        let depth = 1;
        let e = k + 1;
        let start = k + 1;
        for (; e < to && depth > 0; e++) {
          if (tokens[e]!.text === "{") depth++;
          else if (tokens[e]!.text === "}") depth--;
          if ((depth === 1 && tokens[e]!.text === ",") || depth === 0) {
            walk(start, e, join(prefix, seg.join("::")));
            start = e + 1;
          }
        }
        k = e - 1;
        seg = [];
      } else if (x.text === "as" && tokens[k + 1] !== undefined) {
        out.push([tokens[k + 1]!.text, join(prefix, seg.join("::"))]);
        seg = [];
        k++;
      } else if (x.text === "*") {
        out.push(["*", join(prefix, seg.join("::"))]);
        seg = [];
      } else if (x.kind === "ident") seg.push(x.text);
      else if (x.text === ",") {
        if (seg.length > 0) out.push([seg.at(-1)!, join(prefix, seg.join("::"))]);
        seg = [];
      }
    }
    if (seg.length > 0) out.push([seg.at(-1)!, join(prefix, seg.join("::"))]);
  };
  walk(0, tokens.length, "");
  return out.map(([alias, path]) => [alias === "self" ? path.split("::").at(-1)! : alias, path.replace(/::self$/, "")]);
}

function join(a: string, b: string): string {
  return a === "" ? b : b === "" ? a : `${a}::${b}`;
}

/** The length of the longest keyword: a longer name is none (spares the lookup). */
const LONGEST_KEYWORD = Math.max(...[...KEYWORDS].map((k) => k.length));

/**
 * The call whose name is the identifier at `i`, as a `CallFact` key; null when it is none. `self`:
 * the type `Self` names there (asked only for a `Self::` path); `typed`: the type of a parameter
 * of the function by its name, for a method called on it (`options.check()` → `StftOptions.check`).
 */
function callAt(t: readonly Token[], pair: Int32Array, i: number, self: () => string | null, aliases: ReadonlyMap<string, string>, typed: (name: string) => string | undefined = () => undefined): string | null {
  const name = t[i]!.text;
  let after = i + 1;
  // A turbofish: `f::<T>(`.
  if (t[after]?.text === "::" && t[after + 1]?.text === "<") after = skipAngles(t, after + 1, pair);
  const next = t[after];
  if (next === undefined) return null;
  if (next.text === "!" && t[after + 1]?.kind === "open" && t[i - 1]?.text !== "::" && name !== "macro_rules") return `${name}!`;
  if (next.text !== "(" || (name.length <= LONGEST_KEYWORD && KEYWORDS.has(name) && name !== "self" && name !== "Self")) return null;
  if (name === "self" || name === "Self") return null;
  const prev = t[i - 1];
  if (prev?.text === "fn") return null;
  if (prev?.text === ".") {
    const on = t[i - 2];
    if (on?.text === "self" && t[i - 3]?.text !== ".") return `self.${name}`;
    // Note: a method called on a field of `self` (`self.inner.f(…)`): the index reads the field's type from its struct.
    if (on?.kind === "ident" && t[i - 3]?.text === "." && t[i - 4]?.text === "self" && t[i - 5]?.text !== "." && t[i - 5]?.text !== "::") return `self.${on.text}.${name}`;
    const type = on?.kind === "ident" && t[i - 3]?.text !== "." && t[i - 3]?.text !== "::" ? typed(on.text) : undefined;
    return type === undefined ? `.${name}` : `${aliases.get(type) ?? type}.${name}`;
  }
  if (prev?.text !== "::") {
    // Note: an upper-case name called alone is a tuple struct's or variant's constructor.
    const first = name.charCodeAt(0);
    if (first >= 65 && first <= 90) return null;
    return name;
  }
  // A path: the segment before the last `::` (generics and `<T as Trait>` read through).
  let k = i - 2;
  let qualifier: string | null = null;
  if (t[k]?.text === ">" || t[k]?.text === ">>") {
    let depth = 0;
    let as: string | null = null;
    for (; k >= 0; k--) {
      const x = t[k]!.text;
      if (x === ">" || x === ">>") depth += x.length;
      else if (x === "<" || x === "<<") depth -= x.length;
      if (depth === 1 && x === "as" && t[k + 1]?.kind === "ident") as = lastSegment(t, k + 1);
      if (depth <= 0) break;
    }
    if (as !== null) qualifier = as;
    else if (t[k - 1]?.kind === "ident") qualifier = t[k - 1]!.text;
    else if (t[k - 1]?.text === "::" && t[k - 2]?.kind === "ident") qualifier = t[k - 2]!.text;
  } else if (t[k]?.kind === "ident") qualifier = t[k]!.text;
  if (qualifier === null) return name;
  if (qualifier === "Self") qualifier = self() ?? "Self";
  else if (qualifier === "self" || qualifier === "super" || qualifier === "crate") return name;
  else qualifier = aliases.get(qualifier) ?? qualifier;
  return `${qualifier}::${name}`;
}

/** The prelude's variants written without their enum (`Some(x)`, `Ok(x)`, `Err(e)`): no struct of the workspace. */
const PRELUDE_CONSTRUCTORS: ReadonlySet<string> = new Set(["Some", "Ok", "Err"]);
/** Tokens before a name followed by `(` or `{` that make it a type or a declaration, not a value built (`-> Error {`, `impl Error {`, `struct E(u8)`, `x: T {`). */
const NOT_STRUCT_BEFORE: ReadonlySet<string> = new Set(["->", "impl", "struct", "enum", "union", "trait", "for", "dyn", ":", "as", "type", "mod", "fn", "let", "==", "!=", "where", "+"]);

/**
 * The struct `Type` the name at `i` builds (`Type(…)`, `Type { … }`, `Self(…)` in its impl, `m::Type(…)`
 * where the path starts at `start`), as a
 * `FunctionSymbol.makes` key; null where the name stands in a type, a declaration, a pattern or
 * a comparison. By syntax alone: whether `Type` is a struct (not a function or an enum's variant
 * brought in by a `use`) is the index's to tell, by the declarations it knows.
 */
function structMade(t: readonly Token[], pair: ArrayLike<number>, i: number, start: number, self: () => string | null, aliases: ReadonlyMap<string, string>, macroOpens: readonly number[]): string | null {
  const name = t[i]!.text === "Self" ? self() : t[i]!.text;
  if (name === null || NOT_STRUCT_BEFORE.has(t[start - 1]?.text ?? "") || t[start - 1]?.text === ".") return null;
  if (macroOpens.some((o) => t[o - 2]?.text === "matches")) return null;
  let end = pair[i + 1]! + 1;
  while (t[end]?.kind === "close") end++;
  if (PATTERN_END.has(t[end]?.text ?? "")) return null;
  return aliases.get(name) ?? name;
}

/** Where the path ending at `i` starts (`a::b::C` → the index of `a`). */
function pathStart(t: readonly Token[], i: number): number {
  let k = i;
  while (t[k - 1]?.text === "::" && t[k - 2]?.kind === "ident") k -= 2;
  return t[k - 1]?.text === "::" ? k - 1 : k;
}

/** A variant's name by the naming convention: upper camel case (`FileExists`, `Io`, `A`), not a constant's (`MAX`, `F32_EPS`). */
function isVariantName(name: string): boolean {
  const first = name.charCodeAt(0);
  return first >= 65 && first <= 90 && (name.length === 1 || /[a-z]/.test(name));
}

/** Tokens before a path that make it a pattern or a comparison, not a value built: `let` (`let T::V(x) = …`), `==`, `!=`. */
const NOT_BUILT_BEFORE = new Set(["let", "==", "!="]);
/** Tokens after a path (and the closes around it) that end a pattern: a match arm's `=>`, an or-pattern's `|`, a guard's `if`, `if let`'s `=`. */
const PATTERN_END = new Set(["=>", "|", "if", "="]);

/**
 * The variant `Type::Variant` the path ending at `i` builds, as a `FunctionSymbol.makes` key; null
 * when it is no variant of a type (`module::Variant`), or a pattern or comparison names it.
 * Note: by syntax alone: `Type` is taken to be an enum when it starts upper-case, as Rust's naming has it.
 */
function variantMade(t: readonly Token[], pair: ArrayLike<number>, i: number, self: () => string | null, aliases: ReadonlyMap<string, string>, macroOpens: readonly number[]): string | null {
  const q = t[i - 2];
  if (q?.kind !== "ident") return null;
  const qualifier = q.text === "Self" ? self() : q.text;
  if (qualifier === null || !/^[A-Z]/.test(qualifier)) return null;
  if (NOT_BUILT_BEFORE.has(t[i - 3]?.text ?? "") || (t[i - 3]?.text === "::" && NOT_BUILT_BEFORE.has(t[i - 5]?.text ?? ""))) return null;
  // Note: inside `matches!(value, pattern)` every variant named is a pattern's.
  if (macroOpens.some((o) => t[o - 2]?.text === "matches")) return null;
  let end = t[i + 1]?.text === "(" || t[i + 1]?.text === "{" ? pair[i + 1]! + 1 : i + 1;
  while (t[end]?.kind === "close") end++;
  if (PATTERN_END.has(t[end]?.text ?? "")) return null;
  return `${aliases.get(qualifier) ?? qualifier}::${t[i]!.text}`;
}

/** Paths' first segments that name the standard library or one of its modules as commonly imported (`io::Error`, `mpsc::Sender`): a type under them is std's, not the workspace's. */
const STD_HEADS: ReadonlySet<string> = new Set(["std", "core", "alloc", "io", "fmt", "mpsc", "sync", "fs", "net", "thread", "time", "collections", "mem", "ptr", "str", "string", "vec", "ops", "cmp", "iter", "hash", "path", "process", "env", "any", "borrow", "cell", "rc", "marker", "slice", "num", "convert", "error", "result", "option", "boxed", "task", "future", "pin", "ffi", "os", "atomic"]);

/**
 * Where the path starting at `k` ends (its last segment), when it is a single name or a path of
 * lower-case modules (`crate::store::ModuleRecord`, `burn_backend::DType`); -1 for a path under
 * the standard library (`std::fs::DirBuilder`, `io::Error`: `STD_HEADS`) or through a type
 * (`B::Device`, `Self::Error`), whose last segment may name a type the workspace does not define.
 */
function ownPathEnd(t: readonly Token[], k: number, to: number): number {
  if (t[k]?.kind !== "ident" || t[k + 1]?.text !== "::") return k;
  const head = t[k]!.text;
  if (!/^[a-z_]/.test(head) || STD_HEADS.has(head)) return -1;
  let j = k;
  while (j + 2 < to && t[j]!.kind === "ident" && t[j + 1]!.text === "::" && t[j + 2]!.kind === "ident") {
    if (j !== k && !/^[a-z_]/.test(t[j]!.text)) return -1;
    j += 2;
  }
  return j;
}

/** Wrappers a method call reads through to the value they hold (auto-deref): `Arc<T>`, `Rc<T>`, `Box<T>`. */
const DEREF_WRAPPERS: ReadonlySet<string> = new Set(["Arc", "Rc", "Box"]);

/** The doc comments of the variants of the enum whose name is at `name`, by variant, those with one. */
function variantDocsOf(text: string, t: readonly Token[], pair: Int32Array, name: number): [variant: string, doc: DocFact][] {
  let k = name + 1;
  while (k < t.length && t[k]!.text !== "{" && t[k]!.text !== ";") k = t[k]!.kind === "open" ? pair[k]! + 1 : t[k]!.text === "<" ? skipAngles(t, k) : k + 1;
  if (t[k]?.text !== "{") return [];
  const out: [string, DocFact][] = [];
  for (const [from, to] of commaParts(t, pair, k, false)) {
    let a = from;
    while (a < to && t[a]!.text === "#" && t[a + 1]?.text === "[") a = pair[a + 1]! + 1;
    if (t[a]?.kind !== "ident") continue;
    const doc = itemHead(text, t, pair, a).doc;
    if (doc !== undefined) out.push([t[a]!.text, doc]);
  }
  return out;
}

/**
 * The named fields of the struct whose name is at `name` whose type is one named type, with that
 * type's name: `inner: Inner`, `sem: ll::Semaphore<T>` (a path of modules read to its last
 * segment, `ownPathEnd`), `&'a T`, `Arc<T>`, `Box<T>` (read through, `DEREF_WRAPPERS`); not the
 * struct's type parameters, nor tuple fields.
 */
function fieldTypes(t: readonly Token[], pair: Int32Array, name: number): { typed: [field: string, type: string][]; hidden: string[] } {
  let k = name + 1;
  const generics = new Set(t[k]?.text === "<" ? typeParams(t, pair, k) : []);
  while (k < t.length && t[k]!.text !== "{" && t[k]!.text !== ";" && t[k]!.text !== "(") k = t[k]!.kind === "open" ? pair[k]! + 1 : t[k]!.text === "<" ? skipAngles(t, k) : k + 1;
  const out: [string, string][] = [];
  const hidden: string[] = [];
  if (t[k]?.text !== "{") return { typed: out, hidden };
  for (const [from, to] of commaParts(t, pair, k, false)) {
    let a = from;
    let through = false;
    // Attributes and a visibility before the field's name.
    while (a < to && t[a]!.text === "#" && t[a + 1]?.text === "[") a = pair[a + 1]! + 1;
    const pub = t[a]?.text === "pub" && t[a + 1]?.text !== "(";
    if (t[a]?.text === "pub") a = t[a + 1]?.text === "(" ? pair[a + 1]! + 1 : a + 1;
    if (t[a]?.kind !== "ident" || t[a + 1]?.text !== ":") continue;
    const field = t[a]!.text;
    if (!pub) hidden.push(field);
    let b = a + 2;
    for (;;) {
      while (b < to && (t[b]!.text === "&" || t[b]!.text === "&&" || t[b]!.text === "mut" || t[b]!.kind === "lifetime")) b++;
      // Note: a wrapper by its std path (`std::sync::Arc<T>`) is read through like the wrapper alone.
      let last = b;
      while (t[last]?.kind === "ident" && t[last + 1]?.text === "::" && t[last + 2]?.kind === "ident") last += 2;
      const start = b;
      b = DEREF_WRAPPERS.has(t[last]?.text ?? "") && t[last + 1]?.text === "<" ? last : ownPathEnd(t, b, to);
      const type = b < 0 ? undefined : t[b];
      if (type?.kind !== "ident" || !/^[A-Z]/.test(type.text) || generics.has(type.text) || type.text === "Self") break;
      if (DEREF_WRAPPERS.has(type.text) && t[b + 1]?.text === "<") {
        b += 2;
        through = true;
        continue;
      }
      // Note: the type alone or with its generics, nothing after them (`Box<dyn Fn()>`, `A + B` name no one type).
      const end = t[b + 1]?.text === "<" ? skipAngles(t, b + 1) : b + 1;
      // Note: the path as written (`crate::batch::Semaphore`), which the index resolves in the struct's file.
      if (end >= to || t[end]?.text === ">" || t[end]?.text === ">>" || t[end]?.text === ",") out.push([field, `${through ? "*" : ""}${start === b ? type.text : t.slice(start, b + 1).map((x) => x.text).join("")}`]);
      break;
    }
  }
  return { typed: out, hidden };
}

/**
 * The one named type a `let` binds its name (at `at`) to, by what the statement says of it alone:
 * its annotation (`let x: &mut m::T<U> = …`), a struct literal (`let x = T { … };`) or `T::new(…)`
 * / `T::default()`, the whole value, or with `?`, `.unwrap()` or `.expect(…)` after it; `Self`
 * as written; null for anything else, and for a type parameter in `generics`.
 */
function letType(t: readonly Token[], pair: Int32Array, at: number, generics: ReadonlySet<string>): string | null {
  let k = at + 1;
  if (t[k]?.text === ":") {
    k++;
    while (t[k] !== undefined && (t[k]!.text === "&" || t[k]!.text === "&&" || t[k]!.text === "mut" || t[k]!.kind === "lifetime")) k++;
    k = ownPathEnd(t, k, t.length);
    const type = t[k];
    const after = t[k + 1]?.text;
    return type?.kind === "ident" && /^[A-Z]/.test(type.text) && !generics.has(type.text) && (after === "<" || after === "=" || after === ";") ? type.text : null;
  }
  if (t[k]?.text !== "=") return null;
  // The value's path, to its last segment: `T { … }` or `m::T { … }`, `T::new(…)` or `m::T::default()`; not `Msg::Request { … }` (a variant) nor `std::fs::DirBuilder::new()` (std's type): `ownPathEnd`.
  const from = k + 1;
  let last = from;
  while (t[last]?.kind === "ident" && t[last + 1]?.text === "::" && t[last + 2]?.kind === "ident") last += 2;
  const typeAt = t[last + 1]?.text === "{" ? last : last - 2;
  if (typeAt > from && ownPathEnd(t, from, typeAt + 1) !== typeAt) return null;
  const upper = (x: Token | undefined): string | null => (x?.kind === "ident" && /^[A-Z]/.test(x.text) && !generics.has(x.text) ? x.text : null);
  const ends = (e: number) => t[e]?.text === ";" || (t[e]?.text === "?" && t[e + 1]?.text === ";") || (t[e]?.text === "." && (t[e + 1]?.text === "unwrap" || t[e + 1]?.text === "expect") && t[e + 2]?.text === "(" && t[pair[e + 2]! + 1]?.text === ";");
  if (t[last + 1]?.text === "{") return t[pair[last + 1]! + 1]?.text === ";" ? upper(t[last]) : null;
  if (last >= k + 3 && (t[last]!.text === "new" || t[last]!.text === "default") && t[last + 1]?.text === "(") return ends(pair[last + 1]! + 1) ? upper(t[last - 2]) : null;
  return null;
}

/** The last segment of a path starting at `k` (`a::b::C<…>` → `C`). */
function lastSegment(t: readonly Token[], k: number): string {
  let last = t[k]!.text;
  while (t[k + 1]?.text === "::" && t[k + 2]?.kind === "ident") {
    k += 2;
    last = t[k]!.text;
  }
  return last;
}

/**
 * The parameters of the list opening at `open`: their names in order, `self` left out (when
 * `receiver`), a name alone (`x: T`, `mut x: T`), "" for any other pattern; and by name, those
 * whose type is one named type (`name: T`, `name: &T`, `name: &mut T`, `name: T<…>` with `T` a
 * single segment starting upper-case and none of `generics`, the type parameters in scope; not
 * paths, `impl`, `dyn` or tuples), with that type's name.
 */
function paramsOf(t: readonly Token[], pair: Int32Array, open: number, receiver: boolean, generics: ReadonlySet<string>): { names: string[]; types: Map<string, string> } {
  const types = new Map<string, string>();
  const names = commaParts(t, pair, open, true).map(([from, to]) => {
    let a = from;
    while (t[a]?.text === "#" && t[a + 1]?.text === "[") a = pair[a + 1]! + 1;
    if (t[a]?.text === "mut") a++;
    if (t[a]?.kind !== "ident" || t[a + 1]?.text !== ":") return "";
    const name = t[a]!.text;
    let k = a + 2;
    while (k < to && (t[k]!.text === "&" || t[k]!.text === "&&" || t[k]!.text === "mut" || t[k]!.kind === "lifetime")) k++;
    // Note: a type named by a path of modules (`crate::store::ModuleRecord`) is its last segment; one under std (`std::io::Error`) or through a type (`B::Device`) names none of the workspace's types (`ownPathEnd`).
    k = ownPathEnd(t, k, to);
    const type = t[k];
    if (type?.kind === "ident" && /^[A-Z]/.test(type.text) && !generics.has(type.text) && type.text !== "Self" && (k + 1 >= to || t[k + 1]!.text === "<")) types.set(name, type.text);
    return name;
  });
  return { names: receiver ? names.slice(1) : names, types };
}

/** Notes in `into.passes` each argument of the call named at `i` (its key `call`) that is one of the function's parameters by name alone, borrowed or through a method that gives the same value (`x.as_slice()`), or a method's answer on one with no argument (`self.shape()`). */
function handedOn(t: readonly Token[], pair: Int32Array, i: number, call: CallFact, into: Scope): void {
  let open = i + 1;
  if (t[open]?.text === "::" && t[open + 1]?.text === "<") open = skipAngles(t, open + 1, pair);
  if (t[open]?.text !== "(") return;
  commaParts(t, pair, open, false).forEach(([from, to], arg) => {
    let a = from;
    while (a < to && (t[a]!.text === "&" || t[a]!.text === "*" || t[a]!.text === "mut")) a++;
    const name = t[a];
    // Note: `x.as_slice()`, `x.clone()` hand on the same value as `x` (SAME_VALUE_METHODS).
    const method = a === to - 5 && t[a + 1]!.text === "." && t[a + 2]!.kind === "ident" && t[a + 3]!.text === "(" && t[a + 4]!.text === ")";
    const alone = a === to - 1 || (method && SAME_VALUE_METHODS.has(t[a + 2]!.text));
    const param = name?.kind === "ident" && into.params!.has(name.text) && !into.bound!.has(name.text);
    // Note: a method's answer on a parameter, with no argument (`&self.shape()`, `x.dims()`), is handed on as that expression: a value of the parameter's, not the parameter.
    notePass(into, call, arg, !param ? null : alone ? name.text : method ? `${name.text}.${t[a + 2]!.text}()` : null);
  });
}

/** Notes in `into.passes` that the call `call` fills its argument `arg` with the parameter `value` (null: with anything else). */
function notePass(into: Scope, call: CallFact, arg: number, value: string | null): void {
  // Note: an argument that another call of the same key fills with anything else is no parameter handed on.
  const seen = `${call}\0${arg}`;
  const at = into.passes!.findIndex(([c, n]) => c === call && n === arg);
  if (at >= 0) {
    if (into.passes![at]![2] !== value) (into.passes!.splice(at, 1), into.mixed!.add(seen));
  } else if (!into.mixed!.has(seen)) {
    if (value === null) into.mixed!.add(seen);
    else into.passes!.push([call, arg, value]);
  }
}

/**
 * The parts between the top-level commas of the group opening at `open` (parentheses), as token
 * spans `[from, to)`, empty ones left out. Commas inside nested groups are none of the group's,
 * nor those of a turbofish (`f::<A, B>(…)`); in `types` (a parameter list), nor those between
 * `<` and `>` (`&Tensor<D, K>`), which in a type only bracket generics.
 */
function commaParts(t: readonly Token[], pair: Int32Array, open: number, types: boolean): [from: number, to: number][] {
  const parts: [number, number][] = [];
  const close = pair[open]!;
  let start = open + 1;
  let angles = 0;
  for (let k = open + 1; k <= close; k++) {
    const x = t[k]!;
    if (x.kind === "open" && k !== close) {
      k = pair[k]!;
      continue;
    }
    if (x.text === "::" && t[k + 1]?.text === "<") {
      k = skipAngles(t, k + 1) - 1;
      continue;
    }
    if (types && (x.text === "<" || x.text === "<<")) angles += x.text.length;
    else if (types && (x.text === ">" || x.text === ">>")) angles = Math.max(0, angles - x.text.length);
    if ((x.text !== "," || angles > 0) && k !== close) continue;
    if (k > start) parts.push([start, k]);
    start = k + 1;
  }
  return parts;
}

/** The index just past the angle brackets opening at `open`. */
function skipAngles(t: readonly Token[], open: number, pair?: Int32Array): number {
  let depth = 0;
  for (let k = open; k < t.length; k++) {
    const x = t[k]!.text;
    if (x === "<" || x === "<<") depth += x.length;
    else if (x === ">" || x === ">>") depth -= x.length;
    if (depth <= 0) return k + 1;
    // Note: in a call's turbofish, a `{ … }` is a const argument (`tri::<{ D }>()`), read through where the groups are paired.
    if (x === "{" && pair !== undefined) {
      k = pair[k]!;
      continue;
    }
    if (x === ";" || x === "{") return k;
  }
  return t.length;
}
