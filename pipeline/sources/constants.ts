/**
 * Messages held in a constant of another file: `panic!("{}", crate::util::error::CONTEXT_MISSING_ERROR)`,
 * or `use crate::util::error::CONTEXT_MISSING_ERROR;` then `panic!("{CONTEXT_MISSING_ERROR}")`.
 * Extraction cannot read such a name (the constant is written elsewhere): it notes the site's
 * message with a stand-in for each constant (`ConstantReads`), and each file's string constants
 * (`fileConstants`); the pass over the tree puts the literal in (`ConstantIndex`). Pure.
 *
 * Scope, as far as the syntax shows it: a path names the constant of the module it spells
 * (`crate::`, `self::`, `super::` and a package's name start from the workspace's files; a file
 * whose place ends with the path's modules is taken first); a name alone must be brought in by a
 * `use` of the file that starts the same way. A name no file of the workspace binds to one
 * literal is left as it was: the site keeps its record by place.
 */
import { decodeStringLiteral, isDistinctive } from "../message.js";
import { isStrLiteral, type Token } from "../tokens.js";
import type { MessagePart } from "../types.js";
import { isConstantName } from "../analyze/rust.js";
import { joined } from "./argument.js";
import { tokensBetween } from "./bindings.js";

/** A name of a constant the site's message reads, as written (`crate::util::error::X`, or `X` alone). */
export interface ConstantRead {
  readonly path: string;
  /** What stands in the message for the constant's text until it is known. */
  readonly slot: string;
}

/** A site's message with a stand-in for each constant of another file it reads. */
export interface ConstantReads {
  readonly reads: readonly ConstantRead[];
  /** The message as `message` would be with the constants' texts, stand-ins in their place. */
  readonly message: string;
  readonly runtime: readonly MessagePart[];
}

/** The stand-in for the k-th constant a message reads: private-use characters around letters, found nowhere in source text. */
export function slotOf(k: number): string {
  return `\uE000CONSTANT${String.fromCharCode(65 + k)}\uE001`;
}

/**
 * The path an argument is, when it names a constant through a module path (`a::b::NAME`,
 * after `&` or `&*`): its text, or null. Its tokens are given back so a caller can stand a
 * literal in for them.
 */
export function constantPath(arg: readonly Token[]): { readonly path: string; readonly from: number } | null {
  let i = 0;
  while (arg[i]?.text === "&" || arg[i]?.text === "*") i++;
  const from = i;
  const names: string[] = [];
  for (;;) {
    const t = arg[i];
    if (t?.kind !== "ident") return null;
    names.push(t.text);
    i++;
    if (i === arg.length) break;
    if (arg[i]!.text !== "::") return null;
    i++;
  }
  return names.length >= 2 && isConstantName(names.at(-1)!) ? { path: names.join("::"), from } : null;
}

/** The file's string constants at any depth, `[name, literal, line]` in source order: `const NAME: &str = "…";` and `static` ones (1-based line of the keyword). */
export function fileConstants(text: string): [name: string, value: string, line: number][] {
  const out: [string, string, number][] = [];
  const found = /\b(?:const|static)\s+(?:mut\s+)?([A-Z][A-Z0-9_]*)\s*:\s*&\s*(?:'static\s+)?str\s*=/g;
  let line = 1;
  let counted = 0;
  for (let m = found.exec(text); m !== null; m = found.exec(text)) {
    const tokens = tokensBetween(text, m.index + m[0].length, text.length, 2);
    if (!isStrLiteral(tokens[0]) || tokens[1]?.text !== ";") continue;
    const value = decodeStringLiteral(tokens[0]!.text);
    if (value === null || inComment(text, m.index)) continue;
    for (let i = text.indexOf("\n", counted); i >= 0 && i < m.index; i = text.indexOf("\n", i + 1)) line++, (counted = i + 1);
    out.push([m[1]!, value, line]);
  }
  return out;
}

/** True when offset `at` is on a line that a `//` comment holds before it. */
function inComment(text: string, at: number): boolean {
  const start = text.lastIndexOf("\n", at) + 1;
  return text.slice(start, at).includes("//");
}

/** A string constant of the tree: the file that declares it, its literal and its line. */
export interface Constant {
  readonly path: string;
  readonly value: string;
  readonly line: number;
}

/** A file as the index reads it: its path and its string constants (`fileConstants`). */
export interface ConstantFile {
  readonly path: string;
  readonly constants?: readonly (readonly [name: string, value: string, line: number])[];
}

/** The constants of the whole tree, by name. */
export class ConstantIndex {
  private readonly byName = new Map<string, Constant[]>();

  constructor(files: readonly ConstantFile[]) {
    for (const f of files) {
      for (const [name, value, line] of f.constants ?? []) {
        const list = this.byName.get(name) ?? this.byName.set(name, []).get(name)!;
        list.push({ path: f.path, value, line });
      }
    }
  }

  /**
   * The constant `read` names from the file at `from` (whose `use` declarations are `uses`,
   * `[alias, path]`): its literal and the file that holds it, or null when the workspace does
   * not tell one literal (none, or several of the name whose module the path does not pick).
   */
  resolve(read: string, from: string, uses: readonly (readonly [string, string])[]): Constant | null {
    const segments = read.split("::");
    const name = segments.at(-1)!;
    const all = this.byName.get(name) ?? [];
    if (all.length === 0) return null;
    const spelled = segments.length > 1 ? segments : (uses.find(([alias]) => alias === name)?.[1]?.split("::") ?? null);
    // Note: a name alone that no `use` brings in is the file's own (read at extraction) or std's: not this index's.
    if (spelled === null || spelled.length < 2) return null;
    const modules = spelled.slice(0, -1).filter((s) => s !== "crate" && s !== "self" && s !== "super");
    const root = from.split("/src/")[0]!;
    const samePackage = all.filter((c) => c.path.split("/src/")[0] === root);
    const pool = ["crate", "self", "super"].includes(spelled[0]!) && samePackage.length > 0 ? samePackage : all;
    const placed = pool.filter((c) => endsWithModules(c.path, modules));
    const chosen = placed.length > 0 ? placed : pool;
    const values = new Set(chosen.map((c) => c.value));
    return values.size === 1 ? chosen[0]! : null;
  }
}

/** True when the file at `path` is the module `modules` ends with (`util/error.rs`, `util/error/mod.rs`), or any file when no module is spelled. */
function endsWithModules(path: string, modules: readonly string[]): boolean {
  if (modules.length === 0) return true;
  const tail = modules.join("/");
  return path.endsWith(`/${tail}.rs`) || path.endsWith(`/${tail}/mod.rs`);
}

/**
 * The message `reads` makes once each stand-in is the constant's text (`values`, in the order
 * of the reads): its message and runtime parts, or null when the text has too few letters to
 * be told apart (it keeps its record by place).
 */
export function filledIn(pending: ConstantReads, values: readonly string[]): { readonly message: string; readonly runtime: MessagePart[] } | null {
  const fill = (s: string) => pending.reads.reduce((out, r, k) => out.split(r.slot).join(values[k]!), s);
  const runtime = joined(pending.runtime.map((p) => ("lit" in p ? { lit: fill(p.lit) } : p)));
  return isDistinctive(runtime) ? { message: fill(pending.message), runtime } : null;
}
