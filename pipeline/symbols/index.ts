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
 * - `name`: a method call or a plain call matched by name alone.
 * Note: a method name defined more than `MAX_NAMESAKES` times (`new`, `len`) links nothing: a
 *   match by name among so many says nothing; nor does a method call by a name the standard
 *   library's common types define (`STD_METHODS`), which is most often theirs.
 */
import { declaredTest } from "../extract.js";
import { contextOfPath, STD_MACROS, STD_METHODS } from "../rust/index.js";
import type { FileSites } from "../types.js";
import type { CallFact, DocFact, FileSymbols, FunctionSymbol } from "./file.js";
import { type PanicTest, panicTests } from "./tests.js";

/** How sure a link (or a path's weakest link) is; `self` for a function that is its own entry point. */
export type Confidence = "self" | "resolved" | "path" | "name";

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
  /** A user can call it: `pub` (or a trait's method) in a module reachable from its crate's root, outside test code. */
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
  readonly node: SymbolNode;
}

/** Most definitions a name may have for a call to link by it alone. */
const MAX_NAMESAKES = 6;
/** Most calls between an entry point and the site's function. */
const MAX_DEPTH = 6;
/** Most functions a search visits. */
const MAX_VISITS = 4000;
/** Most entry points listed. */
const MAX_ENTRY_POINTS = 5;

const RANK: Record<Confidence, number> = { self: 0, resolved: 1, path: 2, name: 3 };
/** The confidences by rank. */
const BY_RANK: readonly Confidence[] = ["self", "resolved", "path", "name"];
const RESOLVED = RANK.resolved;
const NAME = RANK.name;

/** The workspace's call graph and its questions. */
export class SymbolIndex {
  readonly nodes: SymbolNode[] = [];
  private readonly byFile = new Map<string, SymbolNode[]>();
  /** Callers of each node, two numbers a link: the caller's id and the link's rank (`RANK`). */
  private readonly callers: number[][] = [];
  /** Callees of each node, two numbers a link: the callee's id and the link's rank (`RANK`). */
  private readonly callees: number[][] = [];

  /** Builds the index of `files`; `moduleOf` names each file's package and module (the one seam for the workspace's layout). */
  constructor(files: readonly IndexedFile[], layout: ModuleOf) {
    // Note: each file's place is asked for once.
    const places = new Map(files.map((f) => [f.path, layout(f.path)]));
    const moduleOf = (path: string) => places.get(path) ?? layout(path);
    const reachable = reachableModules(files, moduleOf);
    const owned = new Map<string, number[]>();
    const free = new Map<string, number[]>();
    const methods = new Map<string, number[]>();
    const macros = new Map<string, number[]>();
    const calls: { node: number; file: IndexedFile; owner: string | null; calls: readonly CallFact[] }[] = [];
    // Note: a type the workspace declares only without `pub` makes its methods unreachable for users (a type it does not declare is taken as reachable).
    const publicType = new Map<string, boolean>();
    for (const f of files) for (const [name, pub] of f.symbols?.types ?? []) publicType.set(name, (publicType.get(name) ?? false) || pub);
    for (const file of files) {
      const s = file.symbols;
      if (s === undefined) continue;
      const list: SymbolNode[] = [];
      const where = moduleOf(file.path);
      const fileReachable = !file.test && where.module !== null && reachable(where.package, where.module);
      for (const fn of s.functions) {
        const test = file.test || fn.test;
        const symbol = fn.owner === null ? fn.name : `${fn.owner}::${fn.name}`;
        // Note: a trait's impl applies wherever the type and the trait are, whatever module it is written in: its methods are public when both are (a trait the workspace declares only without `pub`, such as a `pub(crate) trait`, keeps them in the crate).
        const visible = (fn.trait !== null && fn.owner !== fn.trait ? publicType.get(lastSegment(fn.trait)) !== false : fn.visibility === "pub") && (fn.owner === null || fn.owner === fn.trait || publicType.get(fn.owner) !== false);
        const traitImpl = fn.trait !== null && fn.owner !== fn.trait;
        const node: SymbolNode = { id: this.nodes.length, path: file.path, symbol, line: fn.line, endLine: fn.endLine, fn, test, public: !test && fn.inMacro === null && visible && (traitImpl || (fileReachable && fn.modules.every(([, pub]) => pub))), doc: fn.doc ?? null };
        this.nodes.push(node);
        list.push(node);
        if (fn.owner !== null) push(owned, `${fn.owner}::${fn.name}`, node.id);
        else push(free, fn.name, node.id);
        if (fn.receiver) push(methods, fn.name, node.id);
        calls.push({ node: node.id, file, owner: fn.owner, calls: fn.calls });
      }
      for (const m of s.macros) {
        const node: SymbolNode = { id: this.nodes.length, path: file.path, symbol: `${m.name}!`, line: m.line, endLine: m.line, fn: null, test: file.test, public: false, doc: null };
        this.nodes.push(node);
        list.push(node);
        push(macros, m.name, node.id);
        calls.push({ node: node.id, file, owner: null, calls: m.calls });
      }
      this.byFile.set(file.path, list);
    }
    for (const _ of this.nodes) this.callers.push([]), this.callees.push([]);
    // Note: what resolving reads of each node's file, read once per node: its package, and the last segment of its module.
    const nodePackage = this.nodes.map((n) => moduleOf(n.path).package);
    const nodeModule = this.nodes.map((n) => moduleOf(n.path).module?.split("::").at(-1));
    const usesOf = new Map(files.map((f) => [f.path, new Map((f.symbols?.uses ?? []).map(([alias, path]) => [alias, path]))]));
    const resolve = (key: string, file: IndexedFile, owner: string | null): [number[], Confidence] => {
      const here = (ids: readonly number[]) => ids.filter((id) => this.nodes[id]!.path === file.path);
      const filePackage = moduleOf(file.path).package;
      const samePackage = (ids: readonly number[]) => ids.filter((id) => nodePackage[id] === filePackage);
      // Note: of a name's definitions, those of the caller's own package when it has any.
      const nearest = (ids: readonly number[]) => {
        const near = samePackage(ids);
        return near.length > 0 ? near : ids;
      };
      if (key.endsWith("!")) {
        const all = macros.get(key.slice(0, -1)) ?? [];
        const local = here(all);
        if (local.length > 0) return [local, "resolved"];
        return all.length === 1 ? [all, "resolved"] : all.length <= MAX_NAMESAKES ? [all, "name"] : [[], "name"];
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
      const sep = key.lastIndexOf("::");
      if (sep >= 0) {
        const all = owned.get(key) ?? [];
        if (all.length > 0) {
          const near = samePackage(all);
          return near.length === 1 || all.length === 1 ? [near.length === 1 ? near : all, "resolved"] : [near.length > 0 ? near : all, "path"];
        }
        // A module path (`check::f`): the free functions of that name in a module so named.
        const [qualifier, name] = [key.slice(0, sep), key.slice(sep + 2)];
        // Note: a crate's name (`mini::attention`) names the free functions of that package, as its root re-exports them.
        const inModule = (free.get(name) ?? []).filter((id) => nodeModule[id] === qualifier || this.nodes[id]!.fn!.modules.at(-1)?.[0] === qualifier || (nodePackage[id]?.replaceAll("-", "_") === qualifier && this.nodes[id]!.public));
        return inModule.length === 1 ? [inModule, "resolved"] : inModule.length > 1 ? [inModule, "path"] : [[], "name"];
      }
      const all = free.get(key) ?? [];
      const local = here(all);
      if (local.length > 0) return [local, "resolved"];
      const used = usesOf.get(file.path)!.get(key);
      if (used !== undefined) {
        const module = used.split("::").slice(0, -1).at(-1);
        const named = all.filter((id) => nodeModule[id] === module);
        if (named.length === 1) return [named, "resolved"];
      }
      return byName(nearest(all));
    };
    // Note: a key resolves the same way anywhere in a file with the same owner; the calls come file
    //   by file. A method call (`.f`) or a path call (`a::f`) resolves the same way anywhere in a
    //   package: those are kept by package.
    let resolvedIn: IndexedFile | null = null;
    const resolved = new Map<string | null, Map<string, [number[], number]>>();
    const byPackage = new Map<string | null, Map<string, [number[], number]>>();
    const resolution = (key: string, file: IndexedFile, owner: string | null, memo: Map<string, [number[], number]>): [number[], number] => {
      const known = memo.get(key);
      if (known !== undefined) return known;
      const [ids, confidence] = resolve(key, file, owner);
      const found: [number[], number] = [ids, RANK[confidence]];
      memo.set(key, found);
      return found;
    };
    for (const { node, file, owner, calls: list } of calls) {
      if (file !== resolvedIn) (resolved.clear(), (resolvedIn = file));
      const byKey = resolved.get(owner) ?? resolved.set(owner, new Map()).get(owner)!;
      const pkg = moduleOf(file.path).package;
      const inPackage = byPackage.get(pkg) ?? byPackage.set(pkg, new Map()).get(pkg)!;
      const seen = new Set<number>();
      for (const key of list) {
        const anywhere = !key.endsWith("!") && !key.startsWith("self.") && (key.startsWith(".") || key.includes("::"));
        const [ids, rank] = resolution(key, file, owner, anywhere ? inPackage : byKey);
        for (const id of ids) {
          if (id === node || seen.has(id)) continue;
          seen.add(id);
          this.callers[id]!.push(node, rank);
          this.callees[node]!.push(id, rank);
        }
      }
    }
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

  /** The macro `name!` defined in `path`, or null. */
  macroIn(path: string, name: string): SymbolNode | null {
    return this.byFile.get(path)?.find((n) => n.fn === null && n.symbol === `${name}!`) ?? null;
  }

  /**
   * The public functions that reach `target`, the surest first (then the nearest, then by name): a
   * search backwards along the calls, through functions that are not public, up to the first
   * public function on each path. At most five.
   * Note: no link of the path is a call matched by name alone (a method called on a value whose
   *   type the syntax does not show): such a link names a function of another type too often for
   *   an entry point a page tells a user to look at.
   */
  entryPoints(target: SymbolNode): EntryPoint[] {
    const found: EntryPoint[] = [];
    const back = this.search(target, this.callers, MAX_DEPTH, 0, (node) => node.public);
    for (const id of back.ids()) {
      const node = this.nodes[id]!;
      if (!node.public) continue;
      found.push({ symbol: node.symbol, path: node.path, line: node.line, via: back.via(id), confidence: back.confidence(id)!, node });
    }
    found.sort((a, b) => RANK[a.confidence] - RANK[b.confidence] || a.via.length - b.via.length || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0) || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
    return found.slice(0, MAX_ENTRY_POINTS);
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
    const forward = this.search(from, this.callees, MAX_DEPTH + 2, 2, () => false);
    return { ids: () => forward.ids(), confidence: (id) => forward.confidence(id), via: (id) => forward.via(id).reverse() };
  }

  /**
   * A breadth-first search from `start` along `edges`: for each node reached, the path back to
   * `start` (the node first) and its weakest link. Nodes for which `stop` holds, and test code
   * other than `start`, are not searched past; a path holds at most `names` links matched by name.
   * Note: a chain of calls matched by name alone says little; one such link on a path (a method
   *   called on a value of another type) is what most paths need.
   */
  private search(start: SymbolNode, edges: readonly (readonly number[])[], depths: number, names: number, stop: (node: SymbolNode) => boolean): Paths {
    // Note: a confidence is its rank here (`RANK`), 0 for `start` itself.
    const seen = new Map<number, { back: number | null; rank: number; depth: number; names: number }>([[start.id, { back: null, rank: 0, depth: 0, names: 0 }]]);
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
          if (count > names) continue;
          // The weaker of the path so far (from `start`, a resolved one) and the link.
          const rank = Math.max(here, RESOLVED, link);
          const known = seen.get(other);
          if (known === undefined) {
            seen.set(other, { back: id, rank, depth, names: count });
            next.push(other);
          } else if (known.depth === depth && rank < known.rank) seen.set(other, { back: id, rank, depth, names: count });
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
    };
  }
}

/** What a search reached: the nodes, the weakest link of the path to each, and the path itself. */
export interface Paths {
  ids(): Iterable<number>;
  /** Undefined for a node not reached. */
  confidence(id: number): Confidence | undefined;
  via(id: number): string[];
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

/**
 * Whether a module of a package is reachable from the package's root: each module on the way is
 * declared `pub mod` in its parent, or the parent re-exports from it (`pub use child::…`).
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
    const opens = (parents.get(`${pkg}\0${parent}`) ?? []).some((f) => {
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

/** The name a path ends in, without generic arguments (`QTensorOps` of `ops::QTensorOps<Self>`). */
function lastSegment(path: string): string {
  return path.replace(/<[^]*$/, "").split("::").at(-1)!.trim();
}
