/**
 * The workspace's layout from what the read and extract stages give: the `Cargo.toml` files'
 * texts, the tree's paths, and each file's module scan (kept with its extraction, cached by blob).
 * Pure; the caller reads the manifests' blobs.
 */
import { createHash } from "node:crypto";
import type { FileSites } from "../types.js";
import { type ManifestProblem, readPackages } from "./crates.js";
import { EMPTY_SCAN, type ModuleScan, workspaceLayout, type WorkspaceLayout } from "./modules.js";

export { readPackages, type CrateKind, type Package } from "./crates.js";
export { itemMacro, moduleOf, placeOf, scanModules, workspaceLayout, type FilePlace, type ModuleScan, type WorkspaceLayout } from "./modules.js";

/** True for a path Cargo reads as a package manifest. */
export function isManifest(path: string): boolean {
  return path === "Cargo.toml" || path.endsWith("/Cargo.toml");
}

/** A key of the manifests of a tree (their paths and blobs): equal keys, the same packages. */
export function manifestsKey(manifests: readonly { readonly path: string; readonly blob: string }[]): string {
  const hash = createHash("sha256");
  for (const m of [...manifests].sort((a, b) => (a.path < b.path ? -1 : 1))) hash.update(`${m.path}\0${m.blob}\n`);
  return hash.digest("hex");
}

/** The layout of the workspace and the manifests that could not be read. */
export function readWorkspace(manifests: readonly { readonly path: string; readonly text: string }[], files: readonly Pick<FileSites, "path" | "modules">[]): { layout: WorkspaceLayout; problems: ManifestProblem[] } {
  const { packages, problems } = readPackages(manifests, new Set(files.map((f) => f.path)));
  const scans = new Map<string, ModuleScan>(files.map((f) => [f.path, f.modules ?? EMPTY_SCAN]));
  return { layout: workspaceLayout(packages, scans), problems };
}
