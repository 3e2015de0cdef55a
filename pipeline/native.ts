/**
 * The native addon (`native/`): tree-sitter's parse off the JavaScript thread (`parse.ts`) and the
 * lexer pass (`layout.ts`). It is a prebuild (`native/prebuilds/<platform>-<arch>/`, Node-API, so
 * one binary serves every Node version), or a build from source (`native/build/`), found by
 * `node-gyp-build` as tree-sitter finds its own.
 *
 * Note: the addon is a fast path, never a requirement. Where none loads (no prebuild fits and none
 * was built, or `ERROR_CATALOG_NATIVE=0`), parsing goes through the `tree-sitter` package's own
 * binding (`parse-binding.ts`) and the lexer pass runs in TypeScript (`layout-plain.ts`): the same
 * trees and layouts, so the same output, more slowly.
 */
import { createRequire } from "node:module";
import path from "node:path";
import type { RawLayout } from "./layout.js";
import type { RawTree } from "./parse.js";
import { packageRoot } from "./paths.js";

/** What the addon exports. */
export interface Addon {
  parse(language: unknown, text: string, ranges?: Int32Array): Promise<RawTree>;
  symbolNames(language: unknown): string[];
  fieldNames(language: unknown): string[];
  /** Null when the text needs the identifier classes past ASCII, which `identClasses` sets. */
  layout(text: string, hits: Int32Array): RawLayout | null;
  identClasses(start: Uint8Array, word: Uint8Array): void;
}

/** The environment variable that turns the addon off when it is `0`. */
export const NATIVE_SWITCH = "ERROR_CATALOG_NATIVE";

const require = createRequire(import.meta.url);

let loaded: { addon: Addon | null; problem: string | null } | undefined;

/** Loads the addon for this platform, whatever the switch says; throws, saying why, when none loads. */
export function loadAddon(): Addon {
  const dir = path.join(packageRoot(), "native");
  const load = require("node-gyp-build") as (dir: string) => Addon;
  return load(dir);
}

/**
 * The addon when it is to be used: it loads and `ERROR_CATALOG_NATIVE` is not `0`; else null
 * (`nativeProblem` says why). Decided once per thread.
 */
export function addon(): Addon | null {
  return decide().addon;
}

/** Why the addon is not used (the switch, or the loader's error), null when it is. */
export function nativeProblem(): string | null {
  return decide().problem;
}

function decide(): NonNullable<typeof loaded> {
  if (loaded !== undefined) return loaded;
  if (process.env[NATIVE_SWITCH] === "0") {
    loaded = { addon: null, problem: `${NATIVE_SWITCH}=0` };
  } else {
    try {
      loaded = { addon: loadAddon(), problem: null };
    } catch (error) {
      loaded = { addon: null, problem: (error as Error).message.trim().split("\n")[0]! };
    }
  }
  return loaded;
}
