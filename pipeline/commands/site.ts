/**
 * The `site` command: a dataset version (by default the newest) and the versions before it read,
 * the site rendered (site.ts) and written to a folder. Effects: reads the index, the versions,
 * the templates, the stylesheet and the bundled search script; replaces the site folder.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { PipelineError } from "../errors.js";
import { findVersion, type OutputOptions, resolveOutput, resolveSiteDir } from "../output.js";
import { packageRoot } from "../paths.js";
import { renderSite, type SiteAssets, type SiteVersion } from "../site.js";
import { readIndex, readVersionLines, repoDir } from "../write.js";

/** What `buildSite` renders and where it writes. */
export interface SiteOptions extends OutputOptions {
  /** The version to render: a name or a unique prefix of one (default: the newest). */
  readonly version?: string;
  /** The folder to write the site to (default: `resolveSiteDir`). */
  readonly site?: string;
  /** The address the site is published at, for canonical links. */
  readonly baseUrl?: string;
}

/** What `buildSite` wrote. */
export interface SiteResult {
  readonly dir: string;
  readonly repo: string;
  readonly version: string;
  readonly records: number;
  readonly files: number;
  readonly bytes: number;
}

/**
 * A file in every folder `buildSite` writes: a folder holding it may be replaced by the next
 * build; a folder that holds other files and not it is never touched.
 */
export const SITE_MARK = ".error-catalog-site";

/**
 * Renders the version `options.version` of a repository's datasets (default: the newest) as a
 * static site and writes it to the site folder, replacing a site written there before. Throws
 * E_USAGE for a base URL that is not http(s) or a folder that holds something else, E_INPUT when
 * there is no such version or the data is damaged, E_IO when the search script was not built.
 */
export async function buildSite(options: SiteOptions): Promise<SiteResult> {
  const baseUrl = options.baseUrl === undefined ? null : checkBaseUrl(options.baseUrl);
  const { outDir, repo } = await resolveOutput(options);
  const index = await readIndex(outDir, repo);
  if (index.versions.length === 0) throw new PipelineError("E_INPUT", `there is no dataset version of ${repo} in ${outDir}`, { hint: "run `error-catalog run` first, or pass --out with the folder that holds the datasets" });
  const selected = options.version === undefined ? index.versions.length - 1 : findVersion(index.versions, options.version, outDir);
  const versions: SiteVersion[] = [];
  for (const entry of index.versions.slice(0, selected + 1)) {
    const { manifest, lines } = await readVersionLines(path.join(repoDir(outDir, repo), entry.version));
    versions.push({ entry, manifest, lines });
  }
  const files = renderSite({ repo, versions, baseUrl, assets: await loadAssets() });
  const dir = resolveSiteDir(options.site, outDir);
  const bytes = await replaceSite(dir, files);
  return { dir, repo, version: index.versions[selected]!.version, records: versions.at(-1)!.lines.length, files: files.length, bytes };
}

/** `--base-url` as the site's root address, ending with `/`; E_USAGE unless it is an http(s) URL. */
function checkBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PipelineError("E_USAGE", `--base-url ${JSON.stringify(value)} is not a URL`, { hint: "give the address the site is published at, e.g. https://owner.github.io/repo/" });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new PipelineError("E_USAGE", `--base-url ${JSON.stringify(value)} is not an http(s) address`, { hint: "give the address the site is published at, e.g. https://owner.github.io/repo/" });
  const text = url.href;
  return text.endsWith("/") ? text : `${text}/`;
}

/** The templates (site/templates/*.eta), the stylesheet and the search script `npm run build` bundled. */
async function loadAssets(): Promise<SiteAssets> {
  const root = packageRoot();
  const folder = path.join(root, "site", "templates");
  const templates = new Map<string, string>();
  for (const name of (await readdir(folder)).filter((n) => n.endsWith(".eta")).sort()) templates.set(name.slice(0, -4), await readFile(path.join(folder, name), "utf8"));
  const search = await readFile(path.join(root, "dist", "site", "search.js"), "utf8").catch((error: unknown) => {
    throw new PipelineError("E_IO", `the site's search script is missing (${path.join(root, "dist", "site", "search.js")})`, { cause: error, hint: "run `npm run build` in the package: it bundles the script" });
  });
  return { templates, style: await readFile(path.join(root, "site", "style.css"), "utf8"), search };
}

/**
 * Writes the files into a fresh folder beside `dir`, then puts it in `dir`'s place (removing the
 * site built there before); returns the bytes written. E_USAGE when `dir` holds files and no
 * `SITE_MARK`: it is not a site this command wrote.
 */
async function replaceSite(dir: string, files: readonly { path: string; content: string | Uint8Array }[]): Promise<number> {
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    if (error.code === "ENOTDIR") throw new PipelineError("E_USAGE", `${dir} is not a folder`, { hint: "pass --site with a folder" });
    throw new PipelineError("E_IO", `could not read ${dir}: ${error.message}`, { cause: error });
  });
  if (entries !== null && entries.length > 0 && !entries.includes(SITE_MARK)) {
    throw new PipelineError("E_USAGE", `${dir} holds files that are not a site error-catalog wrote`, { hint: "pass --site with an empty or new folder (the site replaces what a previous build wrote there)" });
  }
  const fresh = `${dir}.tmp-${process.pid}`;
  await rm(fresh, { recursive: true, force: true });
  let bytes = 0;
  const made = new Set<string>();
  for (const file of [...files, { path: SITE_MARK, content: "" }]) {
    const target = path.join(fresh, ...file.path.split("/"));
    const folder = path.dirname(target);
    if (!made.has(folder)) await mkdir(folder, { recursive: true }), made.add(folder);
    await writeFile(target, file.content);
    bytes += typeof file.content === "string" ? Buffer.byteLength(file.content) : file.content.length;
  }
  if (entries !== null) await rm(dir, { recursive: true, force: true });
  await mkdir(path.dirname(dir), { recursive: true });
  await rename(fresh, dir);
  return bytes;
}
