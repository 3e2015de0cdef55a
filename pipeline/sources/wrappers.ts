/**
 * Wrappers: functions of the repository whose parameter becomes a panic's message, whole
 * (`fn check_nonzero(v: usize, msg: &str) -> usize { NonZeroUsize::new(v).expect(msg).get() }`)
 * or in a placeholder (`panic!("{what} must be positive")`). Each call of one with a literal (or
 * `format!`) for that parameter is a site of kind `wrapper-call`, at the literal, whose runtime
 * text is the panic's with the literal in the parameter's place. Pure.
 *
 * Found in two steps: extraction notes, per file, the functions it defines that are wrappers
 * (`wrapperOf`, from the site's own arguments and its function's header; cached with the file);
 * every run then indexes those of the whole tree by name (`WrapperIndex`) and reads the calls.
 * Note: a call is matched by name, not resolved: a method (`self`) by `.name(…)`, a function of
 * an `impl` by its type's path, a free function by `name(…)` or `module::name(…)`, with as many
 * arguments as it has parameters; the wrappers of the caller's crate are taken before others
 * (another crate's only when the caller's file names that crate), and a name defined in several
 * files that print different texts is left alone.
 */
import { crateAndModule } from "../analyze/fields.js";
import type { Rule } from "../rust/index.js";
import type { Token } from "../tokens.js";
import type { WrapperFact } from "../types.js";
import { cutAtSlots, namesRead, substituted } from "./argument.js";
import type { Signature } from "./headers.js";

/** What stands for a parameter's text while a panic's message is read: private-use marks around a word, so a rule reads it as distinctive text. */
const SLOT = "\uE000slot\uE000";

/**
 * The wrappers a panic site makes of its function: for each parameter the site's message reads
 * (`rule` and `args`: the site's kind and arguments), the runtime text cut at the parameter's
 * places. Empty when the message reads none, or reads it otherwise than as text (`{:?}`, a width).
 * `read`: the names the arguments read (`namesRead`), when the caller has them.
 */
export function wrappersOf(signature: Signature, owner: string | null, rule: Rule, args: readonly (readonly Token[])[], line: number, read: ReadonlySet<string> = namesRead(args, rule.syntax === "macro")): WrapperFact[] {
  const macro = rule.syntax === "macro";
  const out: WrapperFact[] = [];
  signature.params.forEach((param, k) => {
    if (param === null || !signature.texts[k] || !read.has(param)) return;
    const replaced = substituted(args, param, SLOT, macro);
    const runtime = replaced === null ? null : rule.describe(replaced).runtime;
    if (runtime === null) return;
    const pieces = cutAtSlots(runtime, SLOT);
    if (pieces.length > 1) out.push({ name: signature.name, method: signature.method, ...(owner === null ? {} : { owner }), arity: signature.params.length, param: k, pieces, line });
  });
  return out;
}

/** The wrappers of a tree, by the key their calls have (`name`, `.name` for methods). */
export class WrapperIndex {
  private readonly byKey = new Map<string, { readonly path: string; readonly crate: string | null; readonly fact: WrapperFact }[]>();

  constructor(files: readonly { readonly path: string; readonly wrappers?: readonly WrapperFact[] }[]) {
    for (const file of files) {
      if (file.wrappers === undefined) continue;
      const crate = crateAndModule(file.path).crate;
      for (const fact of file.wrappers) {
        const key = fact.method ? `.${fact.name}` : fact.name;
        const list = this.byKey.get(key);
        if (list === undefined) this.byKey.set(key, [{ path: file.path, crate, fact }]);
        else list.push({ path: file.path, crate, fact });
      }
    }
  }

  /** True when a call of this key (`messageCalls`) may be a wrapper's. */
  wants(key: string): boolean {
    return (this.byKey.get(lastSegment(key)) ?? []).some((w) => callsAs(w.fact, key, true));
  }

  /**
   * The wrappers a call of `key` with `arity` arguments, in the file at `path` whose text is
   * `text`, is taken for: those it may call by how it names them (`callsAs`), of the caller's
   * crate when it has any, else of the crates the file names; each text a function prints once.
   * None when they are defined in several files and do not all print the same.
   */
  resolve(key: string, arity: number, path: string, text: string): WrapperFact[] {
    const crate = crateAndModule(path).crate;
    const all = (this.byKey.get(lastSegment(key)) ?? []).filter((w) => w.fact.arity === arity && callsAs(w.fact, key, w.path === path));
    const own = all.filter((w) => w.crate === crate);
    const chosen = own.length > 0 ? own : all.filter((w) => w.crate !== null && importsFrom(text, w.crate, w.fact));
    const texts = new Map(chosen.map((w) => [`${w.fact.param}\0${JSON.stringify(w.fact.pieces)}`, w.fact]));
    const files = new Set(chosen.map((w) => w.path));
    return files.size <= 1 || texts.size === 1 ? [...texts.values()] : [];
  }
}

/**
 * True when `text` may call the wrapper `fact` of crate `crate` (its folder's name): it brings the
 * function into scope (`use crate_name::…name…;`, `use crate_name::…::*;`) or calls it through the
 * crate's path (`crate_name::…::name(`); for a method, it uses the crate at all (the receiver's
 * type comes from there).
 */
function importsFrom(text: string, crate: string, fact: WrapperFact): boolean {
  const ident = crate.replaceAll("-", "_");
  if (!text.includes(ident)) return false;
  if (fact.method) return new RegExp(`\\buse\\s+(?:::)?${ident}\\b`).test(text);
  const use = new RegExp(`\\buse\\s+(?:::)?${ident}\\b[^;]*(?:\\b${fact.name}\\b|\\*)`);
  const path = new RegExp(`\\b${ident}\\s*::(?:\\s*\\w+\\s*::)*\\s*${fact.name}\\s*\\(`);
  return use.test(text) || path.test(text);
}

/** The name a call's key ends with: `.name` for a method, the last segment otherwise. */
function lastSegment(key: string): string {
  return key.startsWith(".") ? key : key.slice(key.lastIndexOf(":") + 1);
}

/**
 * True when a call keyed `key` may call the wrapper `fact`: a method by `.name(…)`; a function of
 * an `impl` or `trait` through its type (`Owner::name`, or `Self::name` in its own file,
 * `sameFile`); a free function by its name alone or through a module path (`ops::name`, not a
 * type's `Type::name`).
 */
function callsAs(fact: WrapperFact, key: string, sameFile: boolean): boolean {
  if (fact.method) return key === `.${fact.name}`;
  if (key.startsWith(".")) return false;
  const qualifier = key.includes("::") ? key.slice(0, key.indexOf("::")) : null;
  if (fact.owner !== undefined) return qualifier === fact.owner || (qualifier === "Self" && sameFile);
  return qualifier === null || !/^[A-Z]/.test(qualifier);
}
