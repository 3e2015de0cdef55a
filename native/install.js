// npm's install step for the addon. It never fails: where no prebuild fits this platform
// (prebuilds/<platform>-<arch>/) and no build from source succeeds, the pipeline parses with
// tree-sitter's own binding and lexes in TypeScript instead (the same output, more slowly), and
// this says so in one line. With ERROR_CATALOG_NATIVE=0 nothing is built.
// Plain JavaScript: it runs before the TypeScript is compiled.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const FALLBACK = "extraction will use tree-sitter's node binding and the TypeScript lexer (the same output, slower)";

/** Null when the addon loads, else the loader's first line. */
function problem() {
  try {
    require("node-gyp-build")(here);
    return null;
  } catch (error) {
    return error.message.trim().split("\n")[0];
  }
}

/** Builds the addon from source with node-gyp, quietly; null on success, else its last error line. */
function build() {
  // npm hands its node-gyp to install scripts; elsewhere, the one on PATH.
  const gyp = process.env.npm_config_node_gyp;
  const [command, args] = gyp ? [process.execPath, [gyp, "rebuild"]] : ["node-gyp", ["rebuild"]];
  const result = spawnSync(command, args, { cwd: here, encoding: "utf8", shell: !gyp && process.platform === "win32" });
  if (result.status === 0) return null;
  rmSync(path.join(here, "build"), { recursive: true, force: true });
  if (result.error) return result.error.message;
  // node-gyp's own summary of the failure ("Error: not found: make", "Error: `make` failed …"), else the first error.
  const lines = `${result.stdout}\n${result.stderr}`.split("\n").map((line) => line.trim());
  const summary = lines.find((line) => line.startsWith("gyp ERR! stack Error: "));
  return summary?.slice("gyp ERR! stack ".length) ?? lines.find((line) => /error/i.test(line)) ?? `node-gyp exited with ${result.status}`;
}

if (process.env.ERROR_CATALOG_NATIVE === "0") {
  console.log(`error-catalog: ERROR_CATALOG_NATIVE=0, the native addon is not built: ${FALLBACK}`);
} else if (problem() !== null) {
  const failure = build() ?? problem();
  if (failure !== null) console.log(`error-catalog: no prebuilt addon fits ${process.platform}-${process.arch} and building it failed (${failure}): ${FALLBACK}`);
}
