/**
 * The module tree of a Cargo workspace as rustc builds it: from each crate root, the `mod`
 * declarations of every file (with `#[path = "…"]`, inline `mod m { … }` and the repository's own
 * item-wrapping macros, `cfg_rt! { mod m; }`), and the `#[cfg(…)]` gates met on the way down.
 * Pure: `scanModules` reads one file's text (the lexer, no parse; cached by blob with the file's
 * extraction), `workspaceLayout` joins the scans and the packages (crates.ts) into a layout.
 */
import { cfgPredicateText, simplestCfg } from "../rust/index.js";
import { type Token, tokenize } from "../tokens.js";
import { type CrateKind, join, type Package, packageByDir } from "./crates.js";

/** An item-level macro invocation around a declaration: its name and the text inside its first `#![…]`, if any. */
export interface MacroUse {
  readonly name: string;
  readonly attribute: string | null;
}

/** One `mod` item of a file. */
export interface ModDecl {
  readonly name: string;
  /** Index (in the scan's `mods`) of the inline `mod … { }` it stands in; -1 at the file's top level. */
  readonly parent: number;
  /** True for `mod m { … }`, false for `mod m;` (a file of its own). */
  readonly inline: boolean;
  /** The predicates of its `#[cfg(…)]` attributes, in source order. */
  readonly gates: readonly string[];
  /** Its `#[path = "…"]` (or `#[cfg_attr(…, path = "…")]`), or null. */
  readonly path: string | null;
  /** The item-level macro invocations it stands in (within its parent), outermost first. */
  readonly macros: readonly MacroUse[];
  /** True when it is `#[doc(hidden)]`. */
  readonly hidden?: true;
}

/**
 * A `macro_rules!` whose every arm puts its items back as they were, under attributes: a
 * `#[cfg(P)] $item` wrapper is that gate (`cfg_rt!`). `attribute`: the gate is the invocation's
 * own `#![P]` (`feature! { #![P] … }`).
 */
export interface ItemMacro {
  readonly name: string;
  readonly gates: readonly string[];
  readonly attribute: boolean;
  /** The wrapper its arms hand the items on to (`#[cfg(unix)] cfg_signal_internal! { $($item)* }`), whose gates it adds; absent when none. */
  readonly via?: string;
}

/** A `macro_rules!` taking no arguments whose expansion declares modules (`crate_root!()`): its `mod` items as they stand in its body. */
export interface ModuleMacro {
  readonly name: string;
  readonly mods: readonly ModDecl[];
}

/** What a file declares that the module tree needs. */
export interface ModuleScan {
  readonly mods: readonly ModDecl[];
  readonly macros: readonly ItemMacro[];
  /** Its `macro_rules!` without arguments that declare modules; absent when none. */
  readonly moduleMacros?: readonly ModuleMacro[];
  /** The item-level invocations without arguments (`crate_root!();`) at its top level, by name; absent when none. */
  readonly invokes?: readonly string[];
  /** The predicates of its inner `#![cfg(…)]` attributes (the file's own gates, which every module it declares is under); absent when none. */
  readonly innerGates?: readonly string[];
}

export const EMPTY_SCAN: ModuleScan = { mods: [], macros: [] };

/** Text a file must hold for `scanModules` to find anything: `mod m;` (comments allowed around `m`), `mod /*…`, or `macro_rules`. */
const MAY_DECLARE = /\bmod\s*(?:\/[/*]|(?:r#)?\w+\s*(?:;|\/[/*]))|\bmacro_rules\b/;

/**
 * The `mod` items and item-wrapping `macro_rules!` of a file, read with the lexer at item level
 * (only when the file declares a module in a file of its own or defines a macro: an inline module
 * alone places no other file)
 * (inside inline modules and item-level macro invocations; function bodies and impls are not
 * entered). Comments and strings never count. `lexed`: the text's tokens (`tokenize`), when the
 * caller has them.
 */
export function scanModules(text: string, lexed?: readonly Token[]): ModuleScan {
  // Note: inline modules matter only for the `mod m;` inside them: a file without `mod m;` (or a
  //   comment where one might stand) nor `macro_rules` is not lexed; most files hold no more than `mod tests { … }`.
  if (!MAY_DECLARE.test(text)) return EMPTY_SCAN;
  const tokens = lexed ?? tokenize(text);
  const macros: ItemMacro[] = [];
  const moduleMacros: ModuleMacro[] = [];
  const invokes: string[] = [];
  const innerGates: string[] = [];
  let mods: ModDecl[] = [];
  const walk = (from: number, to: number, parent: number, around: readonly MacroUse[]) => {
    let attrs: string[] = [];
    for (let i = from; i < to; i++) {
      const t = tokens[i]!;
      if (t.text === "#" && tokens[i + 1]?.text === "[") {
        const end = closer(tokens, i + 1);
        attrs.push(text.slice(t.start, tokens[end]!.end));
        i = end;
        continue;
      }
      if (t.text === "#" && tokens[i + 1]?.text === "!" && tokens[i + 2]?.text === "[") {
        const end = closer(tokens, i + 2);
        // Note: a file's own `#![cfg(P)]` gates every module it declares (tokio's `signal/windows.rs`, `#![cfg(any(windows, docsrs))]`).
        if (parent < 0 && from === 0 && around.length === 0) innerGates.push(...cfgOf(text.slice(t.start, tokens[end]!.end).replace(/^#\s*!/, "#")));
        i = end;
        continue;
      }
      if (t.text === "pub") {
        if (tokens[i + 1]?.text === "(") i = closer(tokens, i + 1);
        continue;
      }
      if (t.text === "mod" && tokens[i + 1]?.kind === "ident") {
        const name = tokens[i + 1]!.text.replace(/^r#/, "");
        const next = tokens[i + 2]?.text;
        if (next === ";" || next === "{") {
          const decl: ModDecl = { name, parent, inline: next === "{", gates: attrs.flatMap(cfgOf), path: pathOf(attrs), macros: around, ...(attrs.some(isDocHidden) ? { hidden: true as const } : {}) };
          mods.push(decl);
          if (next === "{") {
            const end = closer(tokens, i + 2);
            walk(i + 3, end, mods.length - 1, []);
            i = end;
          } else i += 2;
        }
        attrs = [];
        continue;
      }
      if (t.text === "macro_rules" && tokens[i + 1]?.text === "!" && tokens[i + 2]?.kind === "ident" && isOpen(tokens[i + 3])) {
        const end = closer(tokens, i + 3);
        const wrapper = wrapperOf(tokens[i + 2]!.text, tokens.slice(i + 4, end), text);
        if (wrapper !== null) macros.push(wrapper);
        // `() => { … mod m; … }`: one arm, no arguments
        const body = emptyArmBody(tokens, i + 3, end);
        if (body !== null) {
          const outer = mods;
          mods = [];
          walk(body.from, body.to, -1, []);
          if (mods.some((d) => !d.inline)) moduleMacros.push({ name: tokens[i + 2]!.text, mods });
          mods = outer;
        }
        i = end;
        attrs = [];
        continue;
      }
      if (t.kind === "ident" && tokens[i + 1]?.text === "!" && isOpen(tokens[i + 2]) && tokens[i + 3]?.kind === "close" && parent === -1 && around.length === 0 && tokens[i - 1]?.text !== "::") {
        invokes.push(t.text);
        i += 3;
        attrs = [];
        continue;
      }
      if (t.kind === "ident" && tokens[i + 1]?.text === "!" && tokens[i + 2]?.text === "{" && tokens[i - 1]?.text !== "::") {
        const end = closer(tokens, i + 2);
        walk(i + 3, end, parent, [...around, { name: t.text, attribute: innerAttribute(tokens, i + 3, text) }]);
        i = end;
        attrs = [];
        continue;
      }
      if (t.kind === "open") i = closer(tokens, i);
      attrs = [];
    }
  };
  walk(0, tokens.length, -1, []);
  return { mods, macros, ...(moduleMacros.length > 0 ? { moduleMacros } : {}), ...(invokes.length > 0 ? { invokes } : {}), ...(innerGates.length > 0 ? { innerGates } : {}) };
}

/** The tokens of the transcriber of a `macro_rules!` body (opened at `open`, closed at `close`) of one arm `() => { … }`, or null. */
function emptyArmBody(tokens: readonly Token[], open: number, close: number): { from: number; to: number } | null {
  if (tokens[open + 1]?.kind !== "open" || tokens[open + 2]?.kind !== "close" || tokens[open + 3]?.text !== "=>" || tokens[open + 4]?.kind !== "open") return null;
  const end = closer(tokens, open + 4);
  const rest = end + 1 < close && tokens[end + 1]!.text === ";" ? end + 2 : end + 1;
  return rest === close ? { from: open + 5, to: end } : null;
}

function isOpen(t: Token | undefined): boolean {
  return t !== undefined && t.kind === "open";
}

/** The index of the token closing the group opened at `open` (the last token when it is not closed). */
function closer(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let j = open; j < tokens.length; j++) {
    const k = tokens[j]!.kind;
    if (k === "open") depth++;
    else if (k === "close" && --depth === 0) return j;
  }
  return tokens.length - 1;
}

/** True for `#[doc(hidden)]`: an item its crate keeps out of its documented API. */
function isDocHidden(attribute: string): boolean {
  return /^#\s*\[\s*doc\s*\(\s*hidden\s*\)\s*\]$/.test(attribute.trim());
}

function cfgOf(attribute: string): string[] {
  const p = cfgPredicateText(attribute);
  return p === null ? [] : [p];
}

/**
 * The value of `#[path = "…"]`, or null.
 * Note: a `#[cfg_attr(P, path = "…")]` is left out: it holds only where P does (serde's docs.rs
 *   builds), and the file a plain build reads is the one the default names.
 */
function pathOf(attributes: readonly string[]): string | null {
  for (const a of attributes) {
    const m = /^#\s*\[\s*path\s*=\s*"((?:[^"\\]|\\.)*)"/s.exec(a);
    if (m) return m[1]!.replace(/\\(.)/g, "$1");
  }
  return null;
}

/** The text inside the `#![…]` that opens an invocation's body at `at`, or null. */
function innerAttribute(tokens: readonly Token[], at: number, text: string): string | null {
  if (tokens[at]?.text !== "#" || tokens[at + 1]?.text !== "!" || tokens[at + 2]?.text !== "[") return null;
  const end = closer(tokens, at + 2);
  return end > at + 3 ? text.slice(tokens[at + 3]!.start, tokens[end - 1]!.end).replace(/\s+/g, " ") : null;
}

/**
 * The wrapper a `macro_rules!` body (`tokens`, between its braces) is, or null: every arm's
 * matcher binds `$x:item` fragments, and its transcriber is only attributes and those fragments
 * (in `$( … )*` repetitions). The gates are the transcriber's `#[cfg(…)]` predicates, the same
 * in every arm; `#[cfg($m)]` with `$m` bound by a `#![$m:meta]` of the matcher takes the
 * invocation's own attribute.
 */
function wrapperOf(name: string, tokens: readonly Token[], text: string): ItemMacro | null {
  let gates: string[] | null = null;
  let attribute = false;
  let via: string | null = null;
  let i = 0;
  while (i < tokens.length) {
    if (!isOpen(tokens[i])) return null;
    const matcherEnd = closer(tokens, i);
    const matcher = tokens.slice(i + 1, matcherEnd);
    if (tokens[matcherEnd + 1]?.text !== "=>" || !isOpen(tokens[matcherEnd + 2])) return null;
    const bodyEnd = closer(tokens, matcherEnd + 2);
    const body = tokens.slice(matcherEnd + 3, bodyEnd);
    const items = new Set<string>();
    const metas = new Set<string>();
    for (let k = 0; k + 3 < matcher.length; k++) {
      if (matcher[k]!.text !== "$" || matcher[k + 2]!.text !== ":") continue;
      if (matcher[k + 3]!.text === "item") items.add(matcher[k + 1]!.text);
      // `#![$m:meta]`: the invocation's inner attribute
      if (matcher[k + 3]!.text === "meta" && matcher[k - 1]?.text === "[" && matcher[k - 2]?.text === "!") metas.add(matcher[k + 1]!.text);
    }
    if (items.size === 0) return null;
    const arm = armGates(body, items, metas, text);
    if (arm === null) return null;
    if (gates !== null && (gates.join("\0") !== arm.gates.join("\0") || attribute !== arm.attribute || via !== arm.via)) return null;
    gates = arm.gates;
    attribute = arm.attribute;
    via = arm.via;
    i = bodyEnd + 1;
    if (tokens[i]?.text === ";") i++;
  }
  return gates === null ? null : { name, gates, attribute, ...(via === null ? {} : { via }) };
}

/** The gates of one transcriber when it is only attributes, `$item` fragments and repetitions; null otherwise. */
function armGates(body: readonly Token[], items: ReadonlySet<string>, metas: ReadonlySet<string>, text: string): { gates: string[]; attribute: boolean; via: string | null } | null {
  const gates: string[] = [];
  let attribute = false;
  let via: string | null = null;
  let sawItem = false;
  for (let k = 0; k < body.length; k++) {
    const t = body[k]!;
    if (t.text === "#" && body[k + 1]?.text === "[") {
      const end = closer(body, k + 1);
      const attr = text.slice(t.start, body[end]!.end);
      const p = cfgPredicateText(attr);
      if (p !== null) {
        const meta = /^\$(\w+)$/.exec(p);
        if (meta !== null && metas.has(meta[1]!)) attribute = true;
        else if (meta !== null || p.includes("$")) return null;
        else if (!gates.includes(p)) gates.push(p);
      }
      k = end;
      continue;
    }
    if (t.text === "$" && body[k + 1] !== undefined && items.has(body[k + 1]!.text)) {
      sawItem = true;
      k++;
      continue;
    }
    // handed on to another macro: `name! { $($item)* }`
    if (t.kind === "ident" && body[k + 1]?.text === "!" && body[k + 2]?.kind === "open" && via === null && !sawItem) {
      via = t.text;
      k += 2;
      continue;
    }
    // the repetition `$( … )*` around them
    if (t.text === "$" && body[k + 1]?.text === "(") continue;
    if (t.text === "(" || t.text === ")" || t.text === "*" || (via !== null && (t.text === "}" || t.text === "]"))) continue;
    return null;
  }
  return sawItem ? { gates, attribute, via } : null;
}

/** Where a file stands in the workspace. */
export interface FilePlace {
  /** The package (`package.name`) that compiles the file, or that holds it by folder; null outside every package. */
  readonly package: string | null;
  /** The module path from the crate root (`signal::windows::imp`; "" for the root itself), or null when no crate root's `mod` tree reaches the file. */
  readonly module: string | null;
  readonly description: string | null;
  /** The kind of the crate the file is compiled in (a reached file), or of the package that holds it; null outside every package. */
  readonly crateKind: CrateKind | null;
  /** The gates of the `mod` declarations (and wrapping macros) from the crate root down to the file, outermost first. */
  readonly gates: readonly string[];
  /** True when a `mod` declaration on the way down from the crate root is `#[doc(hidden)]`. */
  readonly hidden?: true;
}

/** The workspace: where each reached file stands, the packages, and the item-wrapping macros of each package by name. */
export interface WorkspaceLayout {
  readonly files: ReadonlyMap<string, FilePlace>;
  readonly packages: readonly Package[];
  /** By the folder of the package whose files define them (null: files of no package). */
  readonly itemMacros: ReadonlyMap<string | null, ReadonlyMap<string, ItemMacro>>;
}

/**
 * The item-wrapping macro `name` as the crate of `path` sees it: one its package's files define.
 * Note: a `macro_rules!` is seen in its own crate (two packages' `cfg_net!` may differ).
 */
export function itemMacro(layout: WorkspaceLayout, path: string, name: string): ItemMacro | undefined {
  return layout.itemMacros.get(packageByDir(layout.packages, path)?.dir ?? null)?.get(name);
}

/**
 * The layout of a workspace: for each crate root of each package, the files its `mod` tree
 * reaches. A declaration inside a macro invocation counts only when every macro around it is an
 * item wrapper of the repository (`ItemMacro`): another macro may do anything with its tokens.
 * A file reached by two roots takes the first (libraries before binaries); reached twice under
 * different gates, it is compiled when either holds (`any(…)`).
 */
export function workspaceLayout(packages: readonly Package[], scans: ReadonlyMap<string, ModuleScan>): WorkspaceLayout {
  const itemMacros = itemMacrosOf(scans, packages);
  const pkgOf = (p: string) => packageByDir(packages, p)?.dir ?? null;
  const moduleMacros = [...scans].flatMap(([path, scan]) => (scan.moduleMacros ?? []).map((m) => ({ path, macro: m })));
  const files = new Map<string, FilePlace>();
  const alternatives = new Map<string, string[][]>();
  for (const pkg of packages) {
    for (const root of pkg.roots) {
      const queue: { path: string; module: string[]; gates: string[]; modRs: boolean; hidden: boolean }[] = [{ path: root.path, module: [], gates: [], modRs: true, hidden: false }];
      const seen = new Set<string>();
      while (queue.length > 0) {
        const f = queue.shift()!;
        // Note: a file declared twice under other gates (`cfg_signal! { mod signal; }` and a `#[cfg(not(…))] mod signal;`) is walked once per set of gates, so that what it declares is compiled under either.
        const key = `${f.path}\0${f.gates.join("\0")}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const known = files.get(f.path);
        if (known !== undefined && known.package !== pkg.name) continue;
        const alts = alternatives.get(f.path) ?? [];
        if (alts.length >= MOST_ALTERNATIVES) continue;
        alts.push(f.gates);
        alternatives.set(f.path, alts);
        if (known === undefined) files.set(f.path, { package: pkg.name, module: f.module.join("::"), description: pkg.description, crateKind: root.kind, gates: f.gates, ...(f.hidden ? { hidden: true as const } : {}) });
        const scan = scans.get(f.path);
        if (scan === undefined) continue;
        const dir = f.path.slice(0, Math.max(0, f.path.lastIndexOf("/")));
        const stem = f.path.slice(f.path.lastIndexOf("/") + 1).replace(/\.rs$/, "");
        for (const [mods, decl] of declarationsOf(scan, f.path, moduleMacros)) {
          if (decl.inline) continue;
          const chain = chainOf(mods, decl);
          const gates = [...f.gates, ...(scan.innerGates ?? [])];
          let ok = true;
          for (const d of chain) {
            for (const m of d.macros) {
              const wrapper = itemMacros.get(pkgOf(f.path))?.get(m.name);
              if (wrapper === undefined) ok = false;
              else gates.push(...wrapper.gates, ...(wrapper.attribute && m.attribute !== null ? [m.attribute] : []));
            }
            gates.push(...d.gates);
          }
          if (!ok) continue;
          const target = fileOf(dir, stem, f.modRs, chain, (p) => scans.has(p));
          if (target === null) continue;
          queue.push({ path: target.path, module: [...f.module, ...chain.map((d) => d.name)], gates: [...new Set(gates)], modRs: target.modRs, hidden: f.hidden || chain.some((d) => d.hidden === true) });
        }
      }
    }
  }
  for (const [path, alts] of alternatives) {
    if (alts.length < 2 || alts.some((a) => a.length === 0)) {
      if (alts.length >= 2) files.set(path, { ...files.get(path)!, gates: [] });
      continue;
    }
    // Note: an alternative may hold only where another does, or never (`all(not(rt), rt)`): the simplest predicate of the same builds is shown.
    files.set(path, { ...files.get(path)!, gates: [simplestCfg(`any(${alts.map((a) => (a.length === 1 ? a[0]! : `all(${a.join(", ")})`)).join(", ")})`)] });
  }
  return { files, packages, itemMacros };
}

/** Most sets of gates a file is walked under (each a way its declarations reach it). */
const MOST_ALTERNATIVES = 8;

/** The item-wrapping macros of each package's files by name; a name one package defines with other gates in two places is left out (which one applies is not known). */
function itemMacrosOf(scans: ReadonlyMap<string, ModuleScan>, packages: readonly Package[]): Map<string | null, Map<string, ItemMacro>> {
  const out = new Map<string | null, Map<string, ItemMacro>>();
  const clash = new Map<string | null, Set<string>>();
  for (const [path, scan] of scans) {
    if (scan.macros.length === 0) continue;
    const key = packageByDir(packages, path)?.dir ?? null;
    const table = out.get(key) ?? out.set(key, new Map()).get(key)!;
    for (const m of scan.macros) {
      const known = table.get(m.name);
      if (known !== undefined && (known.gates.join("\0") !== m.gates.join("\0") || known.attribute !== m.attribute)) (clash.get(key) ?? clash.set(key, new Set()).get(key)!).add(m.name);
      table.set(m.name, m);
    }
  }
  for (const [key, names] of clash) for (const name of names) out.get(key)!.delete(name);
  // A wrapper that hands its items on takes the other's gates, or is none when the other is none.
  for (const table of out.values()) {
    const resolve = (m: ItemMacro, depth: number): ItemMacro | null => {
      if (m.via === undefined) return m;
      const next = table.get(m.via);
      const inner = next === undefined || depth > 8 ? null : resolve(next, depth + 1);
      return inner === null || inner.attribute ? null : { name: m.name, gates: [...new Set([...m.gates, ...inner.gates])], attribute: m.attribute };
    };
    for (const [name, m] of [...table]) {
      const r = resolve(m, 0);
      if (r === null) table.delete(name);
      else table.set(name, r);
    }
  }
  return out;
}

/**
 * The `mod` items a file declares, each with the list it stands in: its own, then those of the
 * module macros it invokes at its top level (`crate_root!();`), the definition in the same file
 * first, else the one nearest it by folder.
 */
function declarationsOf(scan: ModuleScan, path: string, moduleMacros: readonly { readonly path: string; readonly macro: ModuleMacro }[]): [readonly ModDecl[], ModDecl][] {
  const out: [readonly ModDecl[], ModDecl][] = scan.mods.map((d) => [scan.mods, d]);
  for (const name of scan.invokes ?? []) {
    const candidates = moduleMacros.filter((m) => m.macro.name === name);
    const shared = (p: string) => { let k = 0; while (k < p.length && k < path.length && p[k] === path[k]) k++; return p === path ? Infinity : k; };
    const best = candidates.sort((a, b) => shared(b.path) - shared(a.path))[0];
    if (best !== undefined) for (const d of best.macro.mods) out.push([best.macro.mods, d]);
  }
  return out;
}

/** The declaration and the inline modules it stands in, outermost first. */
function chainOf(mods: readonly ModDecl[], decl: ModDecl): ModDecl[] {
  const out = [decl];
  for (let p = decl.parent; p >= 0; p = mods[p]!.parent) out.unshift(mods[p]!);
  return out;
}

/**
 * The file a `mod m;` loads, as rustc finds it: in the folder of a `mod.rs`, `lib.rs`, `main.rs`
 * or `#[path]` file (a "mod-rs" file), else in the folder named after the file; through inline
 * modules (each its name, or its own `#[path]` folder); `m.rs`, else `m/mod.rs`. A `#[path]`
 * outside inline modules is relative to the declaring file's folder.
 */
function fileOf(dir: string, stem: string, modRs: boolean, chain: readonly ModDecl[], exists: (path: string) => boolean): { path: string; modRs: boolean } | null {
  const decl = chain.at(-1)!;
  const inlines = chain.slice(0, -1);
  if (decl.path !== null && inlines.length === 0) return { path: join(dir, decl.path), modRs: true };
  let base = modRs ? dir : join(dir, stem);
  for (const d of inlines) base = join(base, d.path ?? d.name);
  if (decl.path !== null) return { path: join(base, decl.path), modRs: true };
  const flat = join(base, `${decl.name}.rs`);
  if (exists(flat)) return { path: flat, modRs: false };
  const nested = join(base, `${decl.name}/mod.rs`);
  return exists(nested) ? { path: nested, modRs: true } : null;
}

/** The package and module path of a file (what `FilePlace` says of them; both null outside every package). */
export function moduleOf(layout: WorkspaceLayout, path: string): { package: string | null; module: string | null } {
  const place = placeOf(layout, path);
  return { package: place.package, module: place.module };
}

/** Where a file stands: as a crate root's `mod` tree reaches it, else by the package whose folder holds it (module null, no gates). */
export function placeOf(layout: WorkspaceLayout, path: string): FilePlace {
  const reached = layout.files.get(path);
  if (reached !== undefined) return reached;
  const pkg = packageByDir(layout.packages, path);
  return { package: pkg?.name ?? null, module: null, description: pkg?.description ?? null, crateKind: pkg?.kind ?? null, gates: [] };
}
