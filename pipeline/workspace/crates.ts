/**
 * The packages of a Cargo workspace, as Cargo reads them: each `Cargo.toml` with a `[package]`
 * gives a package name, its `description`, whether it is a proc-macro crate, and the root files
 * of its targets (`[lib] path`, `[[bin]] path`, or Cargo's defaults `src/lib.rs`, `src/main.rs`,
 * `src/bin/*.rs`). Pure: manifest texts and the tree's paths in, packages out; no I/O.
 */
import { parse } from "smol-toml";

/** How a package's library is built: a proc-macro crate runs inside rustc when its users compile. */
export type CrateKind = "lib" | "proc-macro" | "bin";

/** One target root: the file rustc starts the crate's module tree from. */
export interface CrateRoot {
  readonly path: string;
  readonly kind: CrateKind;
}

/** A package of the workspace. */
export interface Package {
  /** `package.name`, as Cargo and crates.io spell it (`grep-searcher`). */
  readonly name: string;
  /** The folder holding its `Cargo.toml` ("" at the repository root). */
  readonly dir: string;
  /** `package.description` (inherited from `[workspace.package]` when it says `workspace = true`), or null. */
  readonly description: string | null;
  /** The kind of its library, or `bin` when it has none. */
  readonly kind: CrateKind;
  /** Its targets' root files that exist in the tree, library first. */
  readonly roots: readonly CrateRoot[];
  /**
   * What each of its `[features]` enables of its own features, by name (`rt-multi-thread` → `rt`):
   * entries naming another package's feature (`dep/feature`, `dep?/feature`) or a dependency
   * (`dep:x`) left out. Note: `dep/feature` may also turn on the implicit feature of an optional
   * dependency `dep`; leaving it out only loses an implication, so no gate is ever said to hold in
   * no build when some build holds it.
   */
  readonly features: ReadonlyMap<string, readonly string[]>;
}

/** A manifest that could not be read: its path and why. */
export interface ManifestProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * The packages the given `Cargo.toml` files declare, sorted by folder, and the manifests that
 * are not valid TOML (a problem each, never a throw). `paths`: every file path of the tree (a
 * default target exists only when its file does). Virtual manifests (`[workspace]` alone) give
 * no package but lend `[workspace.package]` values to the packages under them.
 */
export function readPackages(manifests: readonly { readonly path: string; readonly text: string }[], paths: ReadonlySet<string>): { packages: Package[]; problems: ManifestProblem[] } {
  const problems: ManifestProblem[] = [];
  const tables: { dir: string; toml: Record<string, unknown> }[] = [];
  for (const m of manifests) {
    try {
      tables.push({ dir: dirOf(m.path), toml: parse(m.text) as Record<string, unknown> });
    } catch (error) {
      problems.push({ path: m.path, message: error instanceof Error ? error.message.split("\n")[0]! : String(error) });
    }
  }
  const workspaces = tables.flatMap((t) => (isTable(t.toml.workspace) ? [{ dir: t.dir, pkg: table(table(t.toml.workspace).package) }] : []));
  const packages: Package[] = [];
  for (const { dir, toml } of tables) {
    const pkg = table(toml.package);
    if (typeof pkg.name !== "string") continue;
    // Note: a member inherits from the nearest workspace root above it (Cargo looks upwards).
    const ws = workspaces.filter((w) => within(dir, w.dir)).sort((a, b) => b.dir.length - a.dir.length)[0]?.pkg ?? {};
    const description = inherited(pkg.description, ws.description);
    const lib = table(toml.lib);
    const procMacro = lib["proc-macro"] === true || lib.proc_macro === true;
    const roots: CrateRoot[] = [];
    const libPath = typeof lib.path === "string" ? join(dir, lib.path) : join(dir, "src/lib.rs");
    if (paths.has(libPath)) roots.push({ path: libPath, kind: procMacro ? "proc-macro" : "lib" });
    const bins = Array.isArray(toml.bin) ? toml.bin.map(table) : [];
    const binPaths = new Set<string>();
    for (const bin of bins) {
      if (typeof bin.path === "string") binPaths.add(join(dir, bin.path));
      else if (typeof bin.name === "string") for (const p of [`src/bin/${bin.name}.rs`, `src/bin/${bin.name}/main.rs`, "src/main.rs"]) if (paths.has(join(dir, p))) { binPaths.add(join(dir, p)); break; }
    }
    if (table(toml.package).autobins !== false) {
      const main = join(dir, "src/main.rs");
      if (paths.has(main)) binPaths.add(main);
      const binDir = `${join(dir, "src/bin")}/`;
      for (const p of paths) if (p.startsWith(binDir) && /^[^/]+\.rs$|^[^/]+\/main\.rs$/.test(p.slice(binDir.length))) binPaths.add(p);
    }
    for (const p of [...binPaths].sort()) if (paths.has(p)) roots.push({ path: p, kind: "bin" });
    packages.push({ name: pkg.name, dir, description, kind: roots[0]?.kind ?? (procMacro ? "proc-macro" : "lib"), roots, features: featuresOf(toml.features) });
  }
  packages.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : a.name < b.name ? -1 : 1));
  return { packages, problems };
}

/** The package whose folder holds `path` most closely (Cargo's ownership of a file by place), or null. */
export function packageByDir(packages: readonly Package[], path: string): Package | null {
  let best: Package | null = null;
  for (const p of packages) if (within(path, p.dir) && (best === null || p.dir.length > best.dir.length)) best = p;
  return best;
}

/** The `[features]` table as own features each one enables. */
function featuresOf(v: unknown): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, enables] of Object.entries(table(v))) {
    if (!Array.isArray(enables)) continue;
    out.set(name, enables.filter((e): e is string => typeof e === "string" && !e.includes("/") && !e.startsWith("dep:")));
  }
  return out;
}

function inherited(value: unknown, fromWorkspace: unknown): string | null {
  if (typeof value === "string") return value.trim();
  if (isTable(value) && value.workspace === true && typeof fromWorkspace === "string") return fromWorkspace.trim();
  return null;
}

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function table(v: unknown): Record<string, unknown> {
  return isTable(v) ? v : {};
}

function dirOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at < 0 ? "" : path.slice(0, at);
}

/** True when `path` is `dir` or under it ("" holds everything). */
function within(path: string, dir: string): boolean {
  return dir === "" || path === dir || path.startsWith(`${dir}/`);
}

/** `dir` joined with a manifest's relative path, `./` and `../` resolved. */
export function join(dir: string, rel: string): string {
  const parts = dir === "" ? [] : dir.split("/");
  for (const p of rel.replaceAll("\\", "/").split("/")) {
    if (p === "" || p === ".") continue;
    if (p === "..") parts.pop();
    else parts.push(p);
  }
  return parts.join("/");
}
