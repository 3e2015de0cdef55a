/**
 * The symbol index of a whole workspace: every file's functions and macros (symbols/file.ts) joined
 * into one call graph, resolved as far as syntax allows, with the questions the analyze stage asks
 * of it: which function holds a line, which public functions reach it (entry points, with the
 * shortest call path and how sure each link is), and which tests reach it. Pure: the files'
 * symbols in, answers out.
 *
 * Links, best first:
 * - `resolved`: a path call whose type or module names one definition (`TensorCheck::narrow(…)`,
 *   `Self::f(…)`, `self.f(…)` in an impl of the type that defines `f`), a plain call of a function
 *   of the same file or one its `use` names, a macro of the same file;
 * - `path`: a path call that names several definitions of that name (types of the same name in
 *   other crates);
 * - `type-parameter`: a path call whose qualifier is a type parameter of the enclosing function,
 *   `impl` or trait (`B::float_scatter(…)` in `impl<B: Backend> … for Autodiff<B>`), or a type
 *   alias a macro of the package declares for a type its invocation names (`type B =
 *   $crate::backends::$Backend;`): any implementation of a workspace trait's method of that name;
 *   and a path call of a trait's method (`Self::f(…)` in the trait's default methods,
 *   `Trait::f(…)`), which reaches the trait's item and any implementation of it;
 * - `name`: a method call or a plain call matched by name alone.
 *
 * Types and traits are told apart by where they are declared: the one a name means in a file is
 * the one that file declares, else the one its `use` names (its package, then the module its path
 * leads into), else the one of the file's package, else any of that name. The first two are sure;
 * the others are the best the syntax shows, and where several stand alike a call links to all of
 * them (`path`) and a type is taken as reachable when any of them is.
 * Note: a method name defined more than `MAX_NAMESAKES` times (`new`, `len`) links nothing: a
 *   match by name among so many says nothing; nor does a method call by a name the standard
 *   library's common types define (`STD_METHODS`), which is most often theirs.
 */
import { declaredTest } from "../extract.js";
import { contextOfPath, STD_MACROS, STD_METHODS } from "../rust/index.js";
import type { FileSites } from "../types.js";
import type { CallFact, DocFact, FileSymbols, FunctionSymbol, ResultUse } from "./file.js";
import { type PanicTest, panicTests } from "./tests.js";

/** How sure a link (or a path's weakest link) is; `self` for a function that is its own entry point. */
export type Confidence = "self" | "resolved" | "path" | "type-parameter" | "name";

/** Where a file's module stands, as the workspace's layout names it. */
export interface ModuleOf {
  (path: string): { readonly package: string | null; readonly module: string | null };
}

/** A file as the index takes it: its path, its context by path and declarations, and its symbols. */
export interface IndexedFile {
  readonly path: string;
  /** True when the whole file is test, bench, example or build-script code (by its path or a `#[cfg(test)] mod` declaring it). */
  readonly test: boolean;
  readonly symbols?: FileSymbols;
}

/** A function or macro of the index. */
export interface SymbolNode {
  readonly id: number;
  readonly path: string;
  /** How a reader names it: `Tensor::narrow`, `check_shape`, `check!`. */
  readonly symbol: string;
  readonly line: number;
  readonly endLine: number;
  /** Null for a macro. */
  readonly fn: FunctionSymbol | null;
  readonly test: boolean;
  /**
   * A user can call it, outside test code: a free function `pub` in a module reachable from its
   * crate's root; a method `pub` (or a trait's) of a type (and trait) users can name (`Reach`).
   */
  readonly public: boolean;
  readonly doc: DocFact | null;
}

/** A public function that reaches a site, with the call path from it to the site's function. */
export interface EntryPoint {
  readonly symbol: string;
  readonly path: string;
  readonly line: number;
  /** The call path, the entry point first and the site's function last (one element when they are the same). */
  readonly via: readonly string[];
  readonly confidence: Confidence;
  /** The trait methods whose implementations the path's `type-parameter` links stand for (`FloatTensorOps::float_scatter`), in the path's order; empty when none. */
  readonly through: readonly string[];
  /**
   * The site function's parameters that reach it from the entry point's own unchanged, each call
   * on the way handing it on by name (`SymbolIndex.carried`): `[site function's, entry point's]`
   * (`self` for a receiver); empty when none, or when the entry point is the site's function.
   */
  readonly carries: readonly (readonly [string, string])[];
  readonly node: SymbolNode;
  /** The path by node id, the entry point first and the site's function last. */
  readonly chain: readonly number[];
}

/** Most definitions a name may have for a call to link by it alone. */
const MAX_NAMESAKES = 6;
/** Most calls between an entry point and the site's function. */
const MAX_DEPTH = 6;
/** Most functions a search visits. */
const MAX_VISITS = 4000;
/** Most entry points listed. */
const MAX_ENTRY_POINTS = 5;
/** More distinct functions than this called by one function (a dispatcher's `match` over every operation, a long routine of many steps) make it an entry point ranked after the others: it reaches so much that it says little of how a user gets to one site. */
const BROAD_CALLEES = 40;
/** Most implementations a call through a type parameter links to: past that, a name says too little of which runs. */
const MAX_IMPLEMENTATIONS = 16;

const RANK: Record<Confidence, number> = { self: 0, resolved: 1, path: 2, "type-parameter": 3, name: 4 };
/** The confidences by rank. */
const BY_RANK: readonly Confidence[] = ["self", "resolved", "path", "type-parameter", "name"];
const RESOLVED = RANK.resolved;
const TYPE_PARAMETER = RANK["type-parameter"];
const NAME = RANK.name;
/** The qualifier a call's key gets when it names a type parameter (`B::f` → `<>::f`): such a key resolves the same way anywhere. */
const ANY_TYPE = "<>";

/** The workspace's call graph and its questions. */
export class SymbolIndex {
  readonly nodes: SymbolNode[] = [];
  private readonly byFile = new Map<string, SymbolNode[]>();
  /** Callers of each node, two numbers a link: the caller's id and the link's rank (`RANK`). */
  private readonly callers: number[][] = [];
  /** Callees of each node, two numbers a link: the callee's id and the link's rank (`RANK`). */
  private readonly callees: number[][] = [];
  /** For a caller and a callee (`caller>callee`), the callee's parameters the caller fills with its own unchanged: callee's name → caller's (`self` for the receiver). */
  private readonly flows = new Map<string, ReadonlyMap<string, string>>();
  /** `calleeCount` of each node asked about so far. */
  private readonly calleeCounts: (number | undefined)[] = [];
  /** The functions that build each variant or struct (`FunctionSymbol.makes`), outside test code, with the declarations its type's name may mean in their file. */
  private readonly makers = new Map<string, { readonly node: number; readonly decls: readonly number[] }[]>();
  /** What a type's name may mean in a file (`TypeTable.meant`), for `makersOf`. */
  private readonly typeMeant: (path: string, name: string) => readonly number[];
  /** The fields, `declaration\0field`, that are not plain `pub` (`FileSymbols.hiddenFields`). */
  private readonly hiddenFields = new Set<string>();
  /** What a type's name means in a file (`TypeTable.meant`), by path. */
  private readonly meantIn: (path: string, name: string) => readonly number[];
  /** The type of each named field of the workspace's structs, by `declaration\0field`: its name, and the declarations that name means in the struct's file (none for a type outside the workspace). */
  private readonly fieldTypes = new Map<string, FieldType>();
  /** The declarations the type of a method's `impl` may be, by node id (null for a free function). */
  private readonly ownerDeclsOf: (id: number) => readonly number[] | null;
  /** The type of a field of the type of a method's `impl` (`fieldOf`), by node id. */
  private readonly fieldOf: (id: number, field: string) => FieldType | null;
  /** The doc comments of enum variants, by `path\0Enum::Variant` (`variantDoc`). */
  private readonly variantDocs = new Map<string, DocFact>();
  /** The doc comment of the type (or trait) of a method's `impl` (`ownerDoc`), by node id. */
  private readonly ownerDocOf: (id: number) => { readonly name: string; readonly doc: DocFact } | null;

  /** Builds the index of `files`; `moduleOf` names each file's package and module (the one seam for the workspace's layout). */
  constructor(files: readonly IndexedFile[], layout: ModuleOf) {
    // Note: each file's place is asked for once.
    const places = new Map(files.map((f) => [f.path, layout(f.path)]));
    const moduleOf = (path: string) => places.get(path) ?? layout(path);
    const reachable = reachableModules(files, moduleOf);
    const types = new TypeTable(files, moduleOf, reachable);
    const byPath = new Map(files.map((f) => [f.path, f]));
    this.typeMeant = (path, name) => {
      const file = byPath.get(path);
      return file === undefined ? [] : types.meant(file, name, false);
    };
    const owned = new Map<string, number[]>();
    const free = new Map<string, number[]>();
    const methods = new Map<string, number[]>();
    const macros = new Map<string, number[]>();
    /** The implementations of each trait's method (`Trait::f`), and the traits' own items of each method name. */
    const implementations = new Map<string, number[]>();
    const traitItems = new Map<string, number[]>();
    /** The type aliases the macros of each package declare (`MacroSymbol.types`). */
    const macroTypes = new Map<string | null, Set<string>>();
    const calls: { node: number; file: IndexedFile; owner: string | null; calls: readonly CallFact[]; generics: readonly string[]; passes?: FunctionSymbol["passes"] }[] = [];
    /** The type (or trait) declarations each method's owner may be, by node. */
    const ownerDecls: (readonly number[] | null)[] = [];
    // Note: each field by its struct's declaration, with the declarations its type's name means in the struct's file (none: std's or another crate's type).
    for (const file of files) {
      if (file.test) continue;
      for (const [struct, fields] of file.symbols?.hiddenFields ?? []) for (const decl of types.declaredIn(file.path, struct)) for (const field of fields) this.hiddenFields.add(`${decl}\0${field}`);
      for (const [struct, field, type] of file.symbols?.fields ?? []) {
        const through = type.startsWith("*");
        const path = through ? type.slice(1) : type;
        const meant = types.meantPath(file, path);
        const name = path.slice(path.lastIndexOf(":") + 1);
        for (const decl of types.declaredIn(file.path, struct)) this.fieldTypes.set(`${decl}\0${field}`, { name, decls: meant, ...(through ? { through: true as const } : {}) });
      }
    }
    this.ownerDeclsOf = (id) => ownerDecls[id] ?? null;
    this.meantIn = (path, name) => {
      const file = byPath.get(path);
      return file === undefined ? [] : types.meant(file, name, false);
    };
    this.fieldOf = (id, field) => {
      const found = new Map<string, FieldType>();
      for (const decl of ownerDecls[id] ?? []) {
        const f = this.fieldTypes.get(`${decl}\0${field}`);
        if (f !== undefined) found.set(`${f.name}\0${f.decls.join(",")}\0${f.through === true}`, f);
      }
      return found.size === 1 ? [...found.values()][0]! : null;
    };
    this.ownerDocOf = (id) => {
      const decls = ownerDecls[id];
      return decls == null ? null : types.docOf(decls);
    };
    /** The trait declarations each method of a trait's `impl` may implement, by node (null for others). */
    const implDecls: (readonly number[] | null)[] = [];
    for (const file of files) {
      const s = file.symbols;
      if (s === undefined) continue;
      if (!file.test) for (const [enumName, variant, doc] of s.variantDocs ?? []) this.variantDocs.set(`${file.path}\0${enumName}::${variant}`, doc);
      const list: SymbolNode[] = [];
      const where = moduleOf(file.path);
      const fileReachable = !file.test && where.module !== null && reachable(where.package, where.module);
      for (const fn of s.functions) {
        const test = file.test || fn.test;
        const symbol = fn.owner === null ? fn.name : `${fn.owner}::${fn.name}`;
        const traitImpl = fn.trait !== null && fn.inTrait !== true;
        const owner = fn.owner === null ? null : types.meant(file, fn.owner, true);
        // Note: a method is callable wherever its type is, whatever module its `impl` is written in; a trait's impl, wherever the type and the trait are.
        const visible = fn.owner === null
          ? fn.visibility === "pub" && fileReachable && fn.modules.every(([, pub]) => pub)
          : traitImpl
            ? types.reachable(types.traitMeant(file, fn.trait!, fn.traitModule)) && types.reachable(owner!)
            : fn.visibility === "pub" && (owner!.length > 0 ? types.reachable(owner!) : fileReachable && fn.modules.every(([, pub]) => pub));
        const node: SymbolNode = { id: this.nodes.length, path: file.path, symbol, line: fn.line, endLine: fn.endLine, fn, test, public: !test && fn.inMacro === null && visible, doc: fn.doc ?? null };
        this.nodes.push(node);
        ownerDecls.push(owner);
        implDecls.push(traitImpl ? types.traitMeant(file, fn.trait!, fn.traitModule) : null);
        list.push(node);
        if (fn.owner !== null) push(owned, `${fn.owner}::${fn.name}`, node.id);
        else push(free, fn.name, node.id);
        if (fn.receiver) push(methods, fn.name, node.id);
        if (!test && traitImpl) push(implementations, `${fn.trait}::${fn.name}`, node.id);
        if (!test && fn.trait !== null && !traitImpl) push(traitItems, fn.name, node.id);
        calls.push({ node: node.id, file, owner: fn.owner, calls: fn.calls, generics: fn.generics ?? [], ...(fn.passes === undefined && !fn.receiver ? {} : { passes: fn.passes ?? [] }) });
        if (!test) for (const made of fn.makes ?? []) push(this.makers, made, { node: node.id, decls: types.meant(file, made.includes("::") ? made.slice(0, made.indexOf("::")) : made, false) });
      }
      for (const m of s.macros) {
        const node: SymbolNode = { id: this.nodes.length, path: file.path, symbol: `${m.name}!`, line: m.line, endLine: m.line, fn: null, test: file.test, public: false, doc: null };
        this.nodes.push(node);
        ownerDecls.push(null);
        implDecls.push(null);
        list.push(node);
        push(macros, m.name, node.id);
        calls.push({ node: node.id, file, owner: null, calls: m.calls, generics: [] });
        if (m.types !== undefined) {
          const known = macroTypes.get(where.package) ?? macroTypes.set(where.package, new Set()).get(where.package)!;
          for (const name of m.types) known.add(name);
        }
      }
      this.byFile.set(file.path, list);
    }
    for (const _ of this.nodes) this.callers.push([]), this.callees.push([]);
    // Note: what resolving reads of each node's file, read once per node: its package, and the last segment of its module.
    const nodePackage = this.nodes.map((n) => moduleOf(n.path).package);
    const nodeModule = this.nodes.map((n) => moduleOf(n.path).module?.split("::").at(-1));
    /**
     * For each function, the module its parent module re-exports it as by a `use` of its own
     * module (`use base::*;` or `use base::f;` in `pool/mod.rs` makes `base`'s `f` callable as
     * `pool::f`): that parent's last segment, or undefined.
     */
    const usesOfModule = new Map<string, readonly (readonly [string, string])[]>();
    for (const f of files) {
      const where = moduleOf(f.path);
      if (where.module !== null && f.symbols !== undefined) usesOfModule.set(`${where.package}\0${where.module}`, f.symbols.uses);
    }
    const reexportedAs = this.nodes.map((n) => {
      const where = moduleOf(n.path);
      const segments = where.module?.split("::") ?? [];
      if (segments.length < 2 || n.fn === null || n.fn.owner !== null) return undefined;
      const child = segments.at(-1)!;
      const uses = usesOfModule.get(`${where.package}\0${segments.slice(0, -1).join("::")}`) ?? [];
      // Note: a glob's path is its module (`use base::*` → `["*", "base"]`).
      const named = uses.some(([alias, path]) => {
        const p = path.replace(/^self::/, "");
        return (alias === "*" && p === child) || (alias === n.fn!.name && p === `${child}::${alias}`);
      });
      return named ? segments.at(-2) : undefined;
    });
    /** `package\0name` of each module name of each package, inline modules too. */
    const packageModules = new Set<string>();
    for (const f of files) {
      const where = moduleOf(f.path);
      for (const m of where.module?.split("::") ?? []) packageModules.add(`${where.package}\0${m}`);
      for (const fn of f.symbols?.functions ?? []) for (const [m] of fn.modules) packageModules.add(`${where.package}\0${m}`);
    }
    const usesOf = new Map(files.map((f) => [f.path, new Map((f.symbols?.uses ?? []).map(([alias, path]) => [alias, path]))]));
    const isTraitItem = (id: number) => {
      const fn = this.nodes[id]!.fn;
      return fn !== null && fn.inTrait === true;
    };
    /** The implementations of a method `name` of the workspace's traits, with the traits' own items; none past `MAX_IMPLEMENTATIONS`. */
    const anyImplementation = (name: string): number[] => {
      const items = traitItems.get(name) ?? [];
      const found = new Set(items);
      let count = 0;
      for (const item of items) {
        for (const id of implementations.get(`${this.nodes[item]!.fn!.owner}::${name}`) ?? []) {
          if (!found.has(id)) count++;
          found.add(id);
        }
      }
      return count > MAX_IMPLEMENTATIONS ? [] : [...found].sort((a, b) => a - b);
    };
    /** Of a trait's items, their implementations (the calls they stand for); none past `MAX_IMPLEMENTATIONS`, nor for another type's methods. */
    const implementing = (key: string, ids: readonly number[]): number[] => {
      if (!ids.every(isTraitItem)) return [];
      const impls = implementations.get(key) ?? [];
      return impls.length > MAX_IMPLEMENTATIONS ? [] : impls;
    };
    const resolve = (key: string, file: IndexedFile, owner: string | null): [number[], Confidence, number[]?] => {
      const here = (ids: readonly number[]) => ids.filter((id) => this.nodes[id]!.path === file.path);
      const filePackage = moduleOf(file.path).package;
      const samePackage = (ids: readonly number[]) => ids.filter((id) => nodePackage[id] === filePackage);
      // Note: of a name's definitions, those of the caller's own package when it has any.
      const nearest = (ids: readonly number[]) => {
        const near = samePackage(ids);
        return near.length > 0 ? near : ids;
      };
      /** Of the free functions `all` named `name`, the one a `use` of the caller's file names (in a module so named, or re-exported as it; the caller's package's when it has one), or null. */
      const throughUse = (name: string, all: readonly number[]): number[] | null => {
        const used = usesOf.get(file.path)!.get(name);
        if (used === undefined) return null;
        const module = used.split("::").slice(0, -1).at(-1);
        const named = [...nearest(all.filter((id) => nodeModule[id] === module || reexportedAs[id] === module))];
        return named.length === 1 ? named : null;
      };
      if (key.endsWith("!")) {
        const all = macros.get(key.slice(0, -1)) ?? [];
        const local = here(all);
        if (local.length > 0) return [local, "resolved"];
        return all.length === 1 ? [all, "resolved"] : all.length <= MAX_NAMESAKES ? [all, "name"] : [[], "name"];
      }
      // A function named as a macro's argument: one of the caller's file, or one its `use`s name.
      if (key.startsWith("&")) {
        const all = free.get(key.slice(1)) ?? [];
        const local = here(all);
        if (local.length > 0) return [local, "resolved"];
        const used = throughUse(key.slice(1), all);
        return used !== null ? [used, "resolved"] : [[], "name"];
      }
      if (key.startsWith("self.")) {
        const name = key.slice(5);
        const own = owner === null ? [] : (owned.get(`${owner}::${name}`) ?? []);
        const near = samePackage(own);
        if (near.length > 0) return [near, "resolved"];
        if (own.length > 0) return [own, "path"];
        return STD_METHODS.has(name) ? [[], "name"] : byName(nearest(methods.get(name) ?? []));
      }
      if (key.startsWith(".")) return STD_METHODS.has(key.slice(1)) ? [[], "name"] : byName(nearest(methods.get(key.slice(1)) ?? []));
      // A method called on a parameter of a named type (`StftOptions.assert_valid`): that type's method of the name, else one of the name.
      const dot = key.indexOf(".");
      if (dot > 0) {
        const name = key.slice(dot + 1);
        const own = owned.get(`${key.slice(0, dot)}::${name}`) ?? [];
        const near = samePackage(own);
        if (near.length > 0) return [near, near.length === 1 ? "resolved" : "path"];
        if (own.length > 0) return [own, own.length === 1 ? "resolved" : "path"];
        return STD_METHODS.has(name) ? [[], "name"] : byName(nearest(methods.get(name) ?? []));
      }
      const sep = key.lastIndexOf("::");
      if (sep >= 0) {
        const [qualifier, name] = [key.slice(0, sep), key.slice(sep + 2)];
        if (qualifier === ANY_TYPE) return [[], "type-parameter", anyImplementation(name)];
        const owners = owned.get(key) ?? [];
        // Note: where a trait of the qualifier's name declares the method, the path names the trait: an `impl Trait for Trait`-named type's method (`impl ser::Error for Error`) is one of its implementations, not the call's target.
        const all = owners.some(isTraitItem) ? owners.filter((id) => isTraitItem(id) || this.nodes[id]!.fn!.trait !== qualifier) : owners;
        if (all.length > 0) {
          const near = samePackage(all);
          const ids = near.length === 1 || all.length === 1 ? (near.length === 1 ? near : all) : near.length > 0 ? near : all;
          return [ids, ids.length === 1 ? "resolved" : "path", implementing(key, ids)];
        }
        // A module path (`check::f`): the free functions of that name in a module so named.
        // Note: a crate's name (`mini::attention`) names the free functions of that package, as its root re-exports them.
        const named = (free.get(name) ?? []).filter((id) => nodeModule[id] === qualifier || reexportedAs[id] === qualifier || this.nodes[id]!.fn!.modules.at(-1)?.[0] === qualifier || (nodePackage[id]?.replaceAll("-", "_") === qualifier && this.nodes[id]!.public));
        // Note: a module of the caller's own package so named is the one the path names, where the function is not seen in it too (a glob re-export from a child module): not another package's.
        const mine = samePackage(named);
        const inModule = mine.length > 0 ? mine : packageModules.has(`${filePackage}\0${qualifier}`) ? [] : named;
        if (inModule.length > 0) return [inModule, inModule.length === 1 ? "resolved" : "path"];
        // Note: a name a macro of the package declares as a type alias (and no type or module of the workspace has) is taken as the alias, in the macro's expansions.
        return macroTypes.get(filePackage)?.has(qualifier) === true ? [[], "type-parameter", anyImplementation(name)] : [[], "name"];
      }
      const all = free.get(key) ?? [];
      const local = here(all);
      if (local.length > 0) return [local, "resolved"];
      const used = throughUse(key, all);
      return used !== null ? [used, "resolved"] : byName(nearest(all));
    };
    // Note: a key resolves the same way anywhere in a file with the same owner; the calls come file
    //   by file. A method call (`.f`) or a path call (`a::f`) resolves the same way anywhere in a
    //   package: those are kept by package.
    let resolvedIn: IndexedFile | null = null;
    type Resolution = [ids: number[], rank: number, implementations: number[]];
    const resolved = new Map<string | null, Map<string, Resolution>>();
    const byPackage = new Map<string | null, Map<string, Resolution>>();
    const resolution = (key: string, file: IndexedFile, owner: string | null, memo: Map<string, Resolution>): Resolution => {
      const known = memo.get(key);
      if (known !== undefined) return known;
      const [ids, confidence, impls] = resolve(key, file, owner);
      const found: Resolution = [ids, RANK[confidence], impls ?? []];
      memo.set(key, found);
      return found;
    };
    /** Of the methods `ids` of types named `type`, those of the type that name means in `file` (`TypeTable.meant`); null when that keeps none or all. */
    const ofType = (ids: readonly number[], type: string, file: IndexedFile): number[] | null => {
      const meant = new Set(types.meant(file, type, true));
      const kept = ids.filter((id) => ownerDecls[id]?.some((d) => meant.has(d)) === true);
      return kept.length === 0 || kept.length === ids.length ? null : kept;
    };
    const link = (caller: number, callee: number, rank: number) => {
      this.callers[callee]!.push(caller, rank);
      this.callees[caller]!.push(callee, rank);
    };
    // Note: the types the workspace implements each trait for (by the traits' impls with a method), for a type parameter's bounds; a trait with a blanket impl (`impl<T: X> Trait for T`) or none known is left out: any type may implement it.
    const implementors = new Map<string, Set<string>>();
    const blanket = new Set<string>();
    for (const n of this.nodes) {
      const f = n.fn;
      if (f === null || n.test || f.trait === null || f.inTrait === true || f.owner === null) continue;
      if (f.generics?.includes(f.owner) === true) blanket.add(f.trait);
      (implementors.get(f.trait) ?? implementors.set(f.trait, new Set()).get(f.trait)!).add(f.owner);
    }
    /** The types a caller's type parameter may be by its bounds, of the workspace's implementations; null when its bounds do not narrow them. */
    const boundTypes = (fn: FunctionSymbol | null, param: string): Set<string> | null => {
      const known: Set<string>[] = [];
      for (const [p, traits] of fn?.bounds ?? []) {
        if (p !== param) continue;
        for (const trait of traits) {
          const types = implementors.get(trait);
          if (types !== undefined && !blanket.has(trait)) known.push(types);
        }
      }
      if (known.length === 0) return null;
      return new Set([...known[0]!].filter((x) => known.every((types) => types.has(x))));
    };
    const linked = new Int32Array(this.nodes.length);
    /** For each trait method (`Trait::f`), the types whose impls of the trait have their own `f`. */
    const overriding = new Map<string, Set<string>>();
    for (const [key, ids] of implementations) overriding.set(key, new Set(ids.map((id) => this.nodes[id]!.fn?.owner ?? "")));
    for (const { node, file, owner, calls: list, generics, passes } of calls) {
      const callerFn = this.nodes[node]!.fn;
      // Note: a trait's default method runs only for the types that do not override it: its calls reach no implementation of a type that has its own of the default.
      const defaultOf = callerFn !== null && callerFn.inTrait === true && callerFn.owner !== null ? overriding.get(`${callerFn.owner}::${callerFn.name}`) : undefined;
      if (file !== resolvedIn) (resolved.clear(), (resolvedIn = file));
      const byKey = resolved.get(owner) ?? resolved.set(owner, new Map()).get(owner)!;
      const pkg = moduleOf(file.path).package;
      const inPackage = byPackage.get(pkg) ?? byPackage.set(pkg, new Map()).get(pkg)!;
      // Note: a callee already linked from this node has `linked[callee] === node + 1` (one array for all nodes, not a set per node).
      for (const written of list) {
        const macro = written.endsWith("!");
        const sep = macro ? -1 : written.lastIndexOf("::");
        // Note: a type parameter shadows any type of its name.
        const shadowed = sep > 0 && generics.length > 0 && generics.includes(written.slice(0, sep));
        // Note: a method called on a field of `self` (`self.inner.f`) is one of the field's type, where its struct says and the type is the workspace's (`fieldOf`), else one matched by name (std's names dropped).
        const field = !shadowed && written.startsWith("self.") ? written.indexOf(".", 5) : -1;
        const fieldType = field > 0 ? this.fieldOf(node, written.slice(5, field)) : null;
        // Note: a method of std's name on a wrapper's field (`self.inner.clone()` of an `Arc<Inner>`) is the wrapper's own.
        const typedField = fieldType !== null && fieldType.decls.length > 0 && !(fieldType.through === true && STD_METHODS.has(written.slice(field + 1))) ? fieldType : null;
        const key = shadowed ? `${ANY_TYPE}${written.slice(sep)}` : field > 0 ? `${typedField?.name ?? ""}${written.slice(field)}` : written;
        const self = !shadowed && field < 0 && written.startsWith("self.");
        const method = !shadowed && key.startsWith(".");
        const anywhere = shadowed || (!macro && !self && (method || sep >= 0));
        const found = resolution(key, file, owner, anywhere ? inPackage : byKey);
        const all = found[0];
        const rank = found[1];
        // Note: where types of the same name have the method, the one the caller's file means by the name (a `self.` call: the caller's own type).
        const type = shadowed || method || all.length <= 1 || rank > RANK.path ? null : self ? owner : sep > 0 ? written.slice(0, sep) : null;
        // Note: a field's type keeps the methods of the declarations its name means in the struct's file, and none where that type has no such method.
        const typed = typedField !== null ? all.filter((id) => ownerDecls[id]?.some((d) => typedField.decls.includes(d)) === true) : type !== null ? ofType(all, type, file) : null;
        const ids = typed ?? all;
        const sure = typed !== null && typed.length === 1 ? RESOLVED : rank;
        for (const id of ids) {
          if (id === node || linked[id] === node + 1) continue;
          linked[id] = node + 1;
          link(node, id, sure);
          if (passes !== undefined) this.noteFlow(node, id, written, passes);
        }
        if (found[2].length === 0) continue;
        // Note: the trait items the call may mean (the one the caller's file means by the name, `de::Error` among traits named `Error`) stand for the implementations of their trait only; where they are of several traits the file does not tell apart, for none.
        const traits = new Set(ids.flatMap((id) => (isTraitItem(id) ? (ownerDecls[id] ?? []) : [])));
        const impls = traits.size > 1 ? [] : found[2];
        // Note: a call through a type parameter (`B::f` in `impl<B: FusionBackend>`) reaches only the implementations of types its bounds admit, where the workspace's impls of those bounds say which.
        const admitted = shadowed ? boundTypes(callerFn, written.slice(0, sep)) : null;
        for (const id of impls) {
          if (admitted !== null && !isTraitItem(id) && !admitted.has(this.nodes[id]!.fn?.owner ?? "")) continue;
          if (id === node || linked[id] === node + 1) continue;
          if (traits.size === 1 && implDecls[id] !== null && implDecls[id]!.length > 0 && !implDecls[id]!.some((d) => traits.has(d))) continue;
          if (defaultOf !== undefined && defaultOf.has(this.nodes[id]!.fn?.owner ?? "")) continue;
          linked[id] = node + 1;
          link(node, id, TYPE_PARAMETER);
          if (passes !== undefined) this.noteFlow(node, id, written, passes);
        }
      }
    }
  }

  /**
   * Notes which parameters of `callee` the caller's call `written` fills with one of its own
   * parameters unchanged (`passes` of the caller's function): by position, the receiver of a
   * path call (`Type::f(x, …)`) first, `self` for `self.f(…)`.
   * Note: a call key several calls of the caller share fills a position with a parameter only
   *   when every one of them does so with the same one (symbols/file.ts).
   */
  private noteFlow(caller: number, callee: number, written: CallFact, passes: NonNullable<FunctionSymbol["passes"]>): void {
    const fn = this.nodes[callee]!.fn;
    if (fn === null) return;
    const self = written.startsWith("self.") && written.indexOf(".", 5) < 0;
    // Note: the map is made only once it gets an entry (most links hand on nothing).
    let map: Map<string, string> | null = null;
    if (self && fn.receiver) (map = new Map()).set("self", "self");
    // Note: a method call's arguments (`.f(…)`, `x.f(…)` on a typed parameter) leave out the receiver; a path call's (`Type::f(x, …)`) start with it.
    const shift = fn.receiver && !(self || written.includes(".")) ? 1 : 0;
    for (const [call, argument, parameter] of passes) {
      if (call !== written) continue;
      const at = argument - shift;
      const param = at < 0 ? "self" : fn.params?.[at];
      if (param !== undefined && param !== "") (map ??= new Map()).set(param, parameter);
    }
    if (map !== null) this.flows.set(`${caller}>${callee}`, map);
  }

  /**
   * The parameters of `target` that the first function of `chain` (calls from it down to
   * `target`, by id) hands down unchanged, hop by hop: `[target's, the first's]`, in the order
   * of `target`'s parameters (its receiver first).
   */
  private carried(target: SymbolNode, chain: readonly number[]): [string, string][] {
    const own = [...(target.fn?.receiver ? ["self"] : []), ...(target.fn?.params ?? []).filter((p) => p !== "")];
    const out: [string, string][] = [];
    for (const param of own) {
      let name: string | undefined = param;
      for (let k = chain.length - 1; k > 0 && name !== undefined; k--) name = this.flows.get(`${chain[k - 1]}>${chain[k]}`)?.get(name);
      if (name !== undefined) out.push([param, name]);
    }
    return out;
  }

  /** How many distinct functions `id` calls (counted once per node: the entry points' sort asks for it per comparison). */
  private calleeCount(id: number): number {
    const known = this.calleeCounts[id];
    if (known !== undefined) return known;
    const links = this.callees[id]!;
    const seen = new Set<number>();
    for (let k = 0; k < links.length; k += 2) seen.add(links[k]!);
    this.calleeCounts[id] = seen.size;
    return seen.size;
  }

  /** The innermost function (or `macro_rules!` macro, by its line) of `path` holding `line`, or null. */
  functionAt(path: string, line: number): SymbolNode | null {
    let best: SymbolNode | null = null;
    for (const node of this.byFile.get(path) ?? []) {
      if (node.fn === null) continue;
      if (node.line <= line && line <= node.endLine && (best === null || node.line >= best.line)) best = node;
    }
    return best;
  }

  /**
   * The functions outside test code that build the variant `Type::Variant` (`FunctionSymbol.makes`)
   * of the type that name means in `path`: those whose file's `Type` may be the same declaration;
   * for a type (`Type`, no variant), those that build it or any of its variants, where their
   * file's `Type` is a declaration `path` means. By path and line.
   */
  makersOf(variant: string, path: string): SymbolNode[] {
    const sep = variant.indexOf("::");
    if (sep >= 0) {
      const meant = new Set(this.typeMeant(path, variant.slice(0, sep)));
      return (this.makers.get(variant) ?? []).filter((m) => meant.size === 0 || m.decls.length === 0 || m.decls.some((d) => meant.has(d))).map((m) => this.nodes[m.node]!);
    }
    // Note: a type's makers build it (`Type(…)`, `Type { … }`) or one of its variants (`Type::V(…)`), where their file's `Type` is the declaration `path` means (a name no declaration of the index has builds nothing known).
    const meant = new Set(this.typeMeant(path, variant));
    if (meant.size === 0) return [];
    const out = new Set<number>();
    for (const [key, list] of this.makers) {
      if (key !== variant && !key.startsWith(`${variant}::`)) continue;
      for (const m of list) if (m.decls.some((d) => meant.has(d))) out.add(m.node);
    }
    return [...out].sort((a, b) => a - b).map((id) => this.nodes[id]!);
  }

  /**
   * The doc comment of the type or trait whose `impl` (or trait block) holds `node`'s function, as
   * the name means it in that file (`TypeTable.meant`), with the type's name; null for a free
   * function, a type declared outside the workspace or one without a doc comment.
   */
  ownerDoc(node: SymbolNode): { readonly name: string; readonly doc: DocFact } | null {
    return this.ownerDocOf(node.id);
  }

  /** The doc comment of the variant `Enum::Variant` of an enum declared in the file at `path`, or null. */
  variantDoc(path: string, variant: string): DocFact | null {
    return this.variantDocs.get(`${path}\0${variant}`) ?? null;
  }


  /**
   * True when the field `field` of the type `type` (as `path`'s code names it) is not plain `pub`
   * in every declaration the name may mean there, so that code outside its crate cannot read it
   * (`tensor.primitive` of burn's `Tensor`); false when a declaration has it `pub` or none is known.
   */
  hiddenField(path: string, type: string, field: string): boolean {
    const decls = this.meantIn(path, type);
    return decls.length > 0 && decls.every((d) => this.hiddenFields.has(`${d}\0${field}`));
  }

  /** Methods by name, made on first use (`methodReturns`, `fallibleOf`). */
  private methodsByName: Map<string, number[]> | null = null;

  private methods(name: string): readonly number[] {
    if (this.methodsByName === null) {
      this.methodsByName = new Map();
      for (const n of this.nodes) if (n.fn !== null && n.fn.owner !== null && !n.test) push(this.methodsByName, n.fn.name, n.id);
    }
    return this.methodsByName.get(name) ?? [];
  }

  /**
   * The fallible form of a public method (`Tensor::try_into_data` of `Tensor::into_data`): a public
   * method `try_<name>` of the same type (a declaration the impl's type name means) that returns a
   * `Result` or an `Option`; null when none.
   */
  fallibleOf(node: SymbolNode): SymbolNode | null {
    const fn = node.fn;
    if (fn === null || fn.owner === null || fn.name.startsWith("try_")) return null;
    const decls = new Set(this.ownerDeclsOf(node.id) ?? []);
    if (decls.size === 0) return null;
    for (const id of this.methods(`try_${fn.name}`)) {
      const other = this.nodes[id]!;
      if (other.public && (other.fn!.returns === "result" || other.fn!.returns === "option") && (this.ownerDeclsOf(id) ?? []).some((d) => decls.has(d))) return other;
    }
    return null;
  }

  /**
   * What the method `name` of the type of `node`'s `impl` (or, with `field`, of that field's type,
   * `fieldType`) returns, `option` or `result`, where every such method outside test code says so
   * by its return type; with the type's name. Null when not known.
   */
  methodReturns(node: SymbolNode, field: string | null, name: string): { readonly kind: "option" | "result"; readonly type: string } | null {
    const of = field === null ? null : this.fieldOf(node.id, field);
    const decls = field === null ? (this.ownerDeclsOf(node.id) ?? []) : (of?.decls ?? []);
    const type = field === null ? node.fn?.owner : of?.name;
    if (decls.length === 0 || type == null) return null;
    const wanted = new Set(decls);
    let kind: "option" | "result" | null | undefined;
    for (const id of this.methods(name)) {
      if (!(this.ownerDeclsOf(id) ?? []).some((d) => wanted.has(d))) continue;
      const returns = this.nodes[id]!.fn!.returns;
      const here = returns === "option" || returns === "result" ? returns : null;
      if (kind !== undefined && kind !== here) return null;
      kind = here;
    }
    return kind == null ? null : { kind, type };
  }

  /** Whether a field of the type of `node`'s `impl` is declared as std's `Option` or `Result` (no type of the workspace by that name); null otherwise. */
  fieldKind(node: SymbolNode, field: string): "option" | "result" | null {
    const of = this.fieldOf(node.id, field);
    if (of === null || of.decls.length > 0 || of.through === true) return null;
    return of.name === "Option" ? "option" : of.name === "Result" ? "result" : null;
  }

  /** The macro `name!` defined in `path`, or null. */
  macroIn(path: string, name: string): SymbolNode | null {
    return this.byFile.get(path)?.find((n) => n.fn === null && n.symbol === `${name}!`) ?? null;
  }

  /**
   * The public functions that reach `target`: a search backwards along the calls, through
   * functions that are not public, up to the first public function on each path. `target` itself
   * first when it is public, then the functions that are not a trait's methods, then a trait's
   * (each the surest first, then the nearest, then by name), functions that call more than
   * `BROAD_CALLEES` others last. At most five.
   * Note: no link of the path is a call matched by name alone (a method called on a value whose
   *   type the syntax does not show): such a link names a function of another type too often for
   *   an entry point a page tells a user to look at.
   * Note: a trait's method, or its implementation, is an entry point the search goes on past:
   *   users call such methods mostly through the public functions of generic code that reach them
   *   through a type parameter (`Tensor::scatter` → `K::scatter`), which are theirs.
   */
  entryPoints(target: SymbolNode): EntryPoint[] {
    const found: EntryPoint[] = [];
    const back = this.search(target, this.callers, MAX_DEPTH, 0, true, (node) => node.public && !traitMethod(node));
    for (const id of back.ids()) {
      const node = this.nodes[id]!;
      if (!node.public) continue;
      found.push({ symbol: node.symbol, path: node.path, line: node.line, via: back.via(id), confidence: back.confidence(id)!, through: back.through(id), carries: [], node, chain: [] });
    }
    const group = (e: EntryPoint) => (e.node.id === target.id ? 0 : traitMethod(e.node) ? 2 : 1);
    const broad = (e: EntryPoint) => (e.node.id !== target.id && this.calleeCount(e.node.id) > BROAD_CALLEES ? 1 : 0);
    found.sort((a, b) => broad(a) - broad(b) || group(a) - group(b) || RANK[a.confidence] - RANK[b.confidence] || a.via.length - b.via.length || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0) || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
    // Note: what each listed one carries is read once the list is cut (it ranks nothing).
    return found.slice(0, MAX_ENTRY_POINTS).map((e) => {
      if (e.node.id === target.id) return { ...e, chain: [target.id] };
      const chain = back.chain(e.node.id);
      return { ...e, carries: this.carried(target, chain), chain };
    });
  }

  /**
   * The functions `caller` calls before its first call of `next`, in the order its code first
   * calls each (the calls are linked in that order); empty when it does not call `next`. Only
   * calls the index resolves to one function: the implementations a call through a type parameter
   * or a trait's method stands for, and a method matched by name, are alternatives of one call,
   * not calls one after another, nor are other implementations of `next`'s trait method (a
   * dispatch's arms, one per type).
   */
  calledBefore(caller: number, next: number): number[] {
    const links = this.callees[caller]!;
    const target = this.nodes[next]!.fn;
    const alternative = (id: number) => {
      const fn = this.nodes[id]!.fn;
      return target != null && fn != null && target.trait !== null && fn.trait === target.trait && fn.name === target.name;
    };
    const out: number[] = [];
    for (let k = 0; k < links.length; k += 2) {
      const id = links[k]!;
      if (id === next) return out;
      if (links[k + 1]! > RESOLVED || alternative(id) || out.includes(id)) continue;
      out.push(id);
    }
    return [];
  }

  /**
   * How `caller` uses the results of its calls of `callee` (`FunctionSymbol.uses`): the one use
   * every call key of `callee`'s name in it has; null when one has none of them, two differ, or
   * it names the function without calling it (`&f`).
   */
  resultUse(caller: SymbolNode, callee: SymbolNode): ResultUse | null {
    const name = callee.fn?.name;
    if (caller.fn == null || name === undefined) return null;
    let found: ResultUse | null | undefined;
    for (const call of caller.fn.calls) {
      if (calledName(call) !== name) continue;
      const use = call.startsWith("&") ? null : (caller.fn.uses?.find(([c]) => c === call)?.[1] ?? null);
      if (found !== undefined && found !== use) return null;
      found = use;
    }
    return found ?? null;
  }

  /** The line of `caller`'s first call by `callee`'s name (`FunctionSymbol.callLines`; a function named as an argument, `&f`, counts), or null when it makes none. */
  firstCallLine(caller: SymbolNode, callee: SymbolNode): number | null {
    const name = callee.fn?.name;
    const lines = caller.fn?.callLines;
    if (name === undefined || lines === undefined) return null;
    let first: number | null = null;
    caller.fn!.calls.forEach((call, k) => {
      if (calledName(call) === name && lines[k] !== undefined && (first === null || lines[k]! < first)) first = lines[k]!;
    });
    return first;
  }

  /** The functions outside test code that `from`'s calls of the name `name` are linked to, with how sure each link is, surest first. */
  calleesNamed(from: SymbolNode, name: string): { readonly node: SymbolNode; readonly confidence: Confidence }[] {
    const links = this.callees[from.id]!;
    const out: { node: SymbolNode; confidence: Confidence }[] = [];
    for (let k = 0; k < links.length; k += 2) {
      const callee = this.nodes[links[k]!]!;
      if (callee.fn?.name === name && !callee.test) out.push({ node: callee, confidence: BY_RANK[links[k + 1]!]! });
    }
    return out.sort((a, b) => RANK[a.confidence] - RANK[b.confidence] || a.node.id - b.node.id);
  }

  /**
   * The functions whose calls of `target` the index resolves (a path, `Self`, a `use`, the same
   * file: not a name alone, nor a path several definitions share), outside test code, by symbol,
   * sorted, each once.
   */
  resolvedCallers(target: SymbolNode): string[] {
    const links = this.callers[target.id]!;
    const out = new Set<string>();
    for (let k = 0; k < links.length; k += 2) {
      const caller = this.nodes[links[k]!]!;
      if (links[k + 1]! <= RESOLVED && !caller.test && caller.id !== target.id) out.add(caller.symbol);
    }
    return [...out].sort();
  }

  /**
   * What `from` reaches through its calls, with the shortest call paths (`from` first), the surest
   * of them. Test code other than `from` is not searched past.
   */
  reachedFrom(from: SymbolNode): Paths {
    const forward = this.search(from, this.callees, MAX_DEPTH + 2, 2, false, () => false);
    return { ids: () => forward.ids(), confidence: (id) => forward.confidence(id), via: (id) => forward.via(id).reverse(), chain: (id) => forward.chain(id).reverse(), through: (id) => forward.through(id).reverse() };
  }

  /**
   * A breadth-first search from `start` along `edges`: for each node reached, the path back to
   * `start` (the node first) and its weakest link. Nodes for which `stop` holds, and test code
   * other than `start`, are not searched past; a path holds at most `names` links matched by name,
   * and links through a type parameter only when `typed`.
   * Note: a chain of calls matched by name alone says little; one such link on a path (a method
   *   called on a value of another type) is what most paths need.
   */
  private search(start: SymbolNode, edges: readonly (readonly number[])[], depths: number, names: number, typed: boolean, stop: (node: SymbolNode) => boolean): Paths {
    // Note: a confidence is its rank here (`RANK`), 0 for `start` itself; `link` is the rank of the link to `back`.
    const seen = new Map<number, { back: number | null; rank: number; link: number; depth: number; names: number }>([[start.id, { back: null, rank: 0, link: 0, depth: 0, names: 0 }]]);
    let frontier = [start.id];
    for (let depth = 1; depth <= depths && frontier.length > 0 && seen.size < MAX_VISITS; depth++) {
      const next: number[] = [];
      for (const id of frontier) {
        const node = this.nodes[id]!;
        if (id !== start.id && (stop(node) || node.test)) continue;
        const { rank: here, names: used } = seen.get(id)!;
        const links = edges[id]!;
        for (let k = 0; k < links.length; k += 2) {
          const other = links[k]!;
          const link = links[k + 1]!;
          const count = used + (link === NAME ? 1 : 0);
          if (count > names || (link === TYPE_PARAMETER && !typed)) continue;
          // The weaker of the path so far (from `start`, a resolved one) and the link.
          const rank = Math.max(here, RESOLVED, link);
          const known = seen.get(other);
          if (known === undefined) {
            seen.set(other, { back: id, rank, link, depth, names: count });
            next.push(other);
          } else if (known.depth === depth && rank < known.rank) seen.set(other, { back: id, rank, link, depth, names: count });
        }
      }
      frontier = next;
    }
    return {
      ids: () => seen.keys(),
      confidence: (id) => {
        const rank = seen.get(id)?.rank;
        return rank === undefined ? undefined : BY_RANK[rank];
      },
      via: (id) => {
        const out: string[] = [];
        for (let at: number | null = id; at !== null && seen.has(at); at = seen.get(at)!.back) out.push(this.nodes[at]!.symbol);
        return out;
      },
      chain: (id) => {
        const out: number[] = [];
        for (let at: number | null = id; at !== null && seen.has(at); at = seen.get(at)!.back) out.push(at);
        return out;
      },
      through: (id) => {
        const out: string[] = [];
        for (let at: number | null = id; at !== null && seen.has(at); at = seen.get(at)!.back) {
          const { back, link } = seen.get(at)!;
          if (back === null || link !== TYPE_PARAMETER) continue;
          // The trait method of the link's callee (backwards, `back`; forwards, `at`).
          const callee = this.nodes[edges === this.callers ? back : at]!;
          const method = callee.fn?.trait == null ? callee.symbol : `${callee.fn.trait}::${callee.fn.name}`;
          if (!out.includes(method)) out.push(method);
        }
        return out;
      },
    };
  }
}

/** True for a trait's method or a method of a trait's impl. */
function traitMethod(node: SymbolNode): boolean {
  return node.fn?.trait != null;
}

/** What a search reached: the nodes, the weakest link of the path to each, and the path itself. */
export interface Paths {
  ids(): Iterable<number>;
  /** Undefined for a node not reached. */
  confidence(id: number): Confidence | undefined;
  via(id: number): string[];
  /** The ids of the path from `id` to the search's start, `id` first. */
  chain(id: number): number[];
  /** The trait methods of the path's links through a type parameter, in the path's order (`EntryPoint.through`). */
  through(id: number): string[];
}

/** A name's definitions as a match by name, or none when there are too many. */
function byName(ids: readonly number[]): [number[], Confidence] {
  return ids.length <= MAX_NAMESAKES ? [[...ids], "name"] : [[], "name"];
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** A type or trait the workspace declares outside test code. */
/** The type of a struct's field (`FileSymbols.fields`): its name, the declarations it may be in the struct's file (none: std's or another crate's), and whether a wrapper (`Arc<…>`) holds it. */
interface FieldType {
  readonly name: string;
  readonly decls: readonly number[];
  readonly through?: true;
}

interface TypeDecl {
  readonly name: string;
  readonly path: string;
  readonly package: string | null;
  /** Its module: its file's, then the inline modules around it; null when the layout does not place its file. */
  readonly module: readonly string[] | null;
  /** Plain `pub`, and so are the inline modules around it. */
  readonly pub: boolean;
  readonly doc?: DocFact;
}

/** The name of the function a call key calls (`f` of `Type::f`, `.f`, `self.x.f`, `&f`). */
function calledName(call: CallFact): string {
  const path = call.lastIndexOf("::");
  return call.slice(Math.max(path < 0 ? 0 : path + 2, call.lastIndexOf(".") + 1, call.startsWith("&") ? 1 : 0));
}

/**
 * The types and traits of the workspace by where they are declared: which one a name means in a
 * file (`meant`), and whether users can name it (`reachable`).
 */
class TypeTable {
  private readonly decls: TypeDecl[] = [];
  private readonly byName = new Map<string, number[]>();
  /** The declarations of each file, by name. */
  private readonly declared = new Map<string, Map<string, number[]>>();
  /** What each name means in each file (`meant`), for an impl's type and for a trait. */
  private readonly meanings = new Map<IndexedFile, [types: Map<string, readonly number[]>, traits: Map<string, readonly number[]>]>();
  private readonly reach: (boolean | undefined)[] = [];
  /** `package\0name` of what a reachable `pub use` names, and `package\0\0module` of the modules it names (a glob's). */
  private readonly exported = new Set<string>();
  /** A crate's name in paths (`burn_tensor`) to its package. */
  private readonly crates = new Map<string, string>();
  private readonly uses = new Map<string, ReadonlyMap<string, string>>();

  constructor(files: readonly IndexedFile[], private readonly moduleOf: ModuleOf, private readonly modules: (pkg: string | null, module: string) => boolean) {
    for (const f of files) {
      const where = moduleOf(f.path);
      if (where.package !== null) this.crates.set(where.package.replaceAll("-", "_"), where.package);
      if (f.test || f.symbols === undefined) continue;
      const fileModule = where.module === null ? null : where.module === "" ? [] : where.module.split("::");
      const docs = new Map(f.symbols.typeDocs?.map(([name, doc]) => [name, doc]));
      for (const [name, pub, around = []] of f.symbols.types) {
        const id = this.decls.length;
        const doc = docs.get(name);
        this.decls.push({ name, path: f.path, package: where.package, module: fileModule === null ? null : [...fileModule, ...around.map(([m]) => m)], pub: pub && around.every(([, p]) => p), ...(doc === undefined ? {} : { doc }) });
        push(this.byName, name, id);
        push(this.declared.get(f.path) ?? this.declared.set(f.path, new Map()).get(f.path)!, name, id);
      }
    }
    for (const f of files) {
      const where = moduleOf(f.path);
      if (f.test || f.symbols === undefined || f.symbols.reexports.length === 0 || where.module === null || !modules(where.package, where.module)) continue;
      for (const r of f.symbols.reexports) {
        const [pkg, segments] = this.target(r, where.package, where.module);
        const last = segments.at(-1);
        if (last === undefined) continue;
        this.exported.add(`${pkg}\0${last}`);
        this.exported.add(`${pkg}\0\0${last}`);
      }
    }
  }

  /**
   * The declarations `name` may mean in `file`: the file's own; else the one its `use` names (in
   * the package the path names, of those the one in the module the path leads into), none when the
   * `use` names another crate's; else the file's package's; else any of the workspace's. `method`:
   * for an impl's type, where a name the workspace does not declare but that extends a type the
   * file declares (`FusedOutputExpand` of `FusedOutput`) is taken as that type's (a derive's
   * companion type).
   */
  meant(file: IndexedFile, name: string, method: boolean): readonly number[] {
    const both = this.meanings.get(file) ?? this.meanings.set(file, [new Map(), new Map()]).get(file)!;
    const memo = both[method ? 0 : 1];
    const known = memo.get(name);
    if (known !== undefined) return known;
    const found = this.lookup(file, name, method);
    memo.set(name, found);
    return found;
  }

  private lookup(file: IndexedFile, name: string, method: boolean): number[] {
    const declared = this.declared.get(file.path);
    const own = declared?.get(name);
    if (own !== undefined) return own;
    const all = this.byName.get(name) ?? [];
    if (all.length === 0) {
      if (!method) return [];
      // Note: the longest type of the file whose name starts the name.
      let best: number[] = [];
      let length = 0;
      for (const t of file.symbols?.types ?? []) {
        if (t[0].length > length && name.startsWith(t[0])) (best = declared?.get(t[0]) ?? []), (length = t[0].length);
      }
      return best;
    }
    const where = this.moduleOf(file.path);
    const uses = this.uses.get(file.path) ?? this.uses.set(file.path, new Map((file.symbols?.uses ?? []).map(([alias, path]) => [alias, path]))).get(file.path)!;
    const used = uses.get(name);
    if (used !== undefined && where.module !== null) {
      const [pkg, segments, local] = this.target(used, where.package, where.module);
      const named = all.filter((id) => this.decls[id]!.package === pkg && this.decls[id]!.name === segments.at(-1));
      const prefix = segments.slice(0, -1);
      const inModule = named.filter((id) => startsWith(this.decls[id]!.module, prefix));
      if (inModule.length > 0) return inModule;
      if (named.length > 0 && !local) return named;
      if (!local) return [];
    }
    const near = all.filter((id) => this.decls[id]!.package === where.package);
    return near.length > 0 ? near : all;
  }

  /** The declarations the trait of an `impl m::Trait for …` in `file` may be: those named `name` in a module so named when `module` is given and any is; else what `name` means in the file. */
  traitMeant(file: IndexedFile, name: string, module: string | undefined): readonly number[] {
    if (module !== undefined) {
      const inModule = (this.byName.get(name) ?? []).filter((id) => this.decls[id]!.module?.at(-1) === module);
      if (inModule.length > 0) return inModule;
    }
    return this.meant(file, name, false);
  }

  /**
   * The declarations a type's path (`Inner`, `crate::batch::Semaphore`, `ll::Semaphore`) may mean in
   * `file`: a one-segment path as `meant` reads it; a longer one by the package and module it
   * leads into, as a `use` of it would; none for a path into std or another crate's.
   */
  meantPath(file: IndexedFile, path: string): readonly number[] {
    const where = this.moduleOf(file.path);
    if (where.module === null) return [];
    const uses = this.uses.get(file.path) ?? this.uses.set(file.path, new Map((file.symbols?.uses ?? []).map(([alias, p]) => [alias, p]))).get(file.path)!;
    const first = path.split("::")[0]!;
    // Note: a name (or a path's first segment) a `use` takes from another crate (`use parking_lot::Mutex;`) is that crate's, not the workspace's type of the name.
    const used = uses.get(first);
    if (used !== undefined && this.target(used, where.package, where.module)[2] && !this.isModule(where.package, used.split("::")[0]!)) return [];
    if (!path.includes("::")) return this.meant(file, path, false);
    const [pkg, segments, local] = this.target(path, where.package, where.module);
    if (pkg === null) return [];
    const name = segments.at(-1)!;
    const named = (this.byName.get(name) ?? []).filter((id) => this.decls[id]!.package === pkg);
    const inModule = named.filter((id) => startsWith(this.decls[id]!.module, segments.slice(0, -1)));
    if (inModule.length > 0) return inModule;
    // Note: a path from a module the file uses (`ll::Semaphore` after `use crate::sync::batch as ll`) is left to the name within the package; one from an unknown first segment (`mio::net::UnixStream`) names another crate's type.
    return local && used === undefined ? [] : named;
  }

  /** True when a module of the package is named `name` (at any depth). */
  private isModule(pkg: string | null, name: string): boolean {
    return name === "crate" || name === "self" || name === "super" || this.crates.has(name) || this.decls.some((d) => d.package === pkg && d.module?.includes(name) === true);
  }

  /** The declarations of `name` in the file `path`. */
  declaredIn(path: string, name: string): readonly number[] {
    return this.declared.get(path)?.get(name) ?? [];
  }

  /** The doc comment of the one declaration `decls` holds; null when it holds several or none, or that one has none. */
  docOf(decls: readonly number[]): { readonly name: string; readonly doc: DocFact } | null {
    // Note: only where the name means one declaration: of several, which one's doc speaks of the impl is not known.
    if (decls.length !== 1) return null;
    const d = this.decls[decls[0]!]!;
    return d.doc === undefined ? null : { name: d.name, doc: d.doc };
  }

  /** True when users can name one of `decls` (or none is declared: another crate's type): it is `pub` in a module reachable from its crate's root, or a reachable `pub use` names it or its module. */
  reachable(decls: readonly number[]): boolean {
    return decls.length === 0 || decls.some((id) => this.reachableDecl(id));
  }

  private reachableDecl(id: number): boolean {
    const known = this.reach[id];
    if (known !== undefined) return known;
    const d = this.decls[id]!;
    const fileModule = this.moduleOf(d.path).module;
    const answer = d.module !== null && fileModule !== null && ((d.pub && this.modules(d.package, fileModule)) || this.exported.has(`${d.package}\0${d.name}`) || (d.pub && d.module.length > 0 && this.exported.has(`${d.package}\0\0${d.module.at(-1)}`)));
    this.reach[id] = answer;
    return answer;
  }

  /** The package a `use` path names and its segments from that package's root (`crate`, `self`, `super` read against `module`), and whether it starts at a name of the module's own (a child module or another crate, the syntax does not tell). */
  private target(path: string, pkg: string | null, module: string): [pkg: string | null, segments: string[], local: boolean] {
    const segments = path.split("::");
    const here = module === "" ? [] : module.split("::");
    const first = segments[0]!;
    if (first === "crate") return [pkg, segments.slice(1), false];
    if (first === "self" || first === "super") {
      const base = [...here];
      let k = 0;
      for (; segments[k] === "self" || segments[k] === "super"; k++) if (segments[k] === "super") base.pop();
      return [pkg, [...base, ...segments.slice(k)], false];
    }
    if (first === "std" || first === "core" || first === "alloc") return [null, segments, false];
    const crate = this.crates.get(first);
    if (crate !== undefined && crate !== pkg) return [crate, segments.slice(1), false];
    return [pkg, [...here, ...segments], true];
  }
}

function startsWith(module: readonly string[] | null, prefix: readonly string[]): boolean {
  return module !== null && prefix.length <= module.length && prefix.every((m, k) => module[k] === m);
}

/**
 * Whether a module of a package is reachable from the package's root: each module on the way is
 * declared `pub mod` in its parent, or the parent re-exports from it (`pub use child::…`), or the
 * parent does not declare it at all.
 * Note: syntax alone: a re-export of an item names the module it comes from, which is taken as
 *   making that module's public items reachable.
 */
function reachableModules(files: readonly IndexedFile[], moduleOf: ModuleOf): (pkg: string | null, module: string) => boolean {
  const parents = new Map<string, IndexedFile[]>();
  for (const f of files) {
    const where = moduleOf(f.path);
    if (where.module !== null && !f.test) push(parents, `${where.package}\0${where.module}`, f);
  }
  const known = new Map<string, boolean>();
  const reachable = (pkg: string | null, module: string): boolean => {
    if (module === "") return true;
    const key = `${pkg}\0${module}`;
    const cached = known.get(key);
    if (cached !== undefined) return cached;
    known.set(key, false);
    const segments = module.split("::");
    const name = segments.pop()!;
    const parent = segments.join("::");
    const files = parents.get(`${pkg}\0${parent}`) ?? [];
    // Note: a module its parent does not declare at all is declared where the syntax does not show (a `macro_rules!` body that expands to the crate's modules): it is taken as reachable.
    const undeclared = !files.some((f) => f.symbols?.modules.some(([m]) => m === name) === true);
    const opens = undeclared || files.some((f) => {
      const s = f.symbols;
      if (s === undefined) return false;
      if (s.modules.some(([m, pub]) => m === name && pub)) return true;
      return s.reexports.some((r) => r.split("::").filter((x) => x !== "self" && x !== "crate" && x !== "super").slice(0, -1).includes(name) || r === name);
    });
    const answer = opens && reachable(pkg, parent);
    known.set(key, answer);
    return answer;
  };
  return reachable;
}

/**
 * The index of a tree's files as extraction gives them (their symbols and test-module
 * declarations), and their `#[should_panic]` tests. A file is test code by its path
 * (`contextOfPath`) or a test module another file declares.
 */
export function indexTree(files: readonly Pick<FileSites, "path" | "testModules" | "symbols">[], moduleOf: ModuleOf): { index: SymbolIndex; tests: PanicTest[] } {
  const declared = declaredTest(files);
  const indexed = files.map((f): IndexedFile => ({ path: f.path, test: contextOfPath(f.path) !== "library" || (declared?.(f.path) ?? false), ...(f.symbols === undefined ? {} : { symbols: f.symbols }) }));
  return { index: new SymbolIndex(indexed, moduleOf), tests: files.flatMap((f) => panicTests(f.path, f.symbols)) };
}

/**
 * True when a file's symbols may change other files' records when the file changes: it calls
 * something (std's macros aside), defines a macro, holds a `#[should_panic]` test, or declares
 * modules or re-exports (which make modules reachable). A file of functions that call nothing
 * changes only its own records' entry points.
 * Note: a new definition that an unchanged file's call by name now resolves to is not seen here.
 */
export function symbolsMatter(symbols: FileSymbols | undefined): boolean {
  if (symbols === undefined) return false;
  if (symbols.macros.length > 0 || symbols.modules.length > 0 || symbols.reexports.length > 0) return true;
  return symbols.functions.some((fn) => fn.expected !== undefined || fn.calls.some((key) => !(key.endsWith("!") && STD_MACROS.has(key.slice(0, -1)))));
}
