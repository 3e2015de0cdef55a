// What the addon is built from: its own C sources, binding.gyp, and tree-sitter's C library as the
// `tree-sitter` package vendors it (the library its node binding is built from, so that both parse
// alike). binding.gyp asks for the library's folder (`node sources.js library`); the prebuild's
// record of its sources (prebuilds/sources.json) and the test that checks it use `sourceDigests`.
// Plain JavaScript: it runs at install, before the TypeScript is compiled.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/**
 * The folder of tree-sitter's C library in the installed `tree-sitter` package
 * (`vendor/tree-sitter/lib`). Throws, naming the fix, when the package or the folder is missing.
 * Note: the folder is where the package keeps the sources its own binding is built from; it is
 * not an interface the package promises, hence the check.
 */
export function libraryDir() {
  let root;
  try {
    root = path.dirname(require.resolve("tree-sitter/package.json"));
  } catch {
    throw new Error("the `tree-sitter` package is not installed: run `npm ci` first");
  }
  const dir = path.join(root, "vendor", "tree-sitter", "lib");
  for (const file of ["src/lib.c", "include/tree_sitter/api.h"]) {
    if (!existsSync(path.join(dir, file))) throw new Error(`the \`tree-sitter\` package has no ${path.join("vendor/tree-sitter/lib", file)}: its version keeps tree-sitter's C library elsewhere; point native/sources.js at it`);
  }
  return dir;
}

/** Every file under `dir`, as paths relative to it, sorted. */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath ?? entry.path, entry.name)).split(path.sep).join("/"))
    .sort();
}

/**
 * The SHA-256 of each file the addon is built from, by name: `native/…` for its own, and
 * `tree-sitter@<version>/vendor/tree-sitter/lib/…` for the library's.
 */
export function sourceDigests() {
  const digest = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");
  const out = {};
  out["native/binding.gyp"] = digest(path.join(here, "binding.gyp"));
  out["native/sources.js"] = digest(path.join(here, "sources.js"));
  for (const file of filesUnder(path.join(here, "src"))) out[`native/src/${file}`] = digest(path.join(here, "src", file));
  const library = libraryDir();
  const version = require("tree-sitter/package.json").version;
  for (const file of filesUnder(library)) out[`tree-sitter@${version}/vendor/tree-sitter/lib/${file}`] = digest(path.join(library, file));
  return out;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url) && process.argv[2] === "library") {
  try {
    process.stdout.write(`${libraryDir()}\n`);
  } catch (error) {
    process.stderr.write(`native/sources.js: ${error.message}\n`);
    process.exit(1);
  }
}
