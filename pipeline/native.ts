/**
 * The native addon (`native/`, built by node-gyp at install): tree-sitter's parse off the
 * JavaScript thread (`parse.ts`) and the lexer pass (`layout.ts`).
 */
import { createRequire } from "node:module";
import type { FlatTree } from "./parse.js";

/** The lexer pass's answer, as flat columns (see `native/src/layout.c`). */
export interface RawLayout {
  readonly items: Int32Array;
  readonly spots: Int32Array;
  readonly names: Int32Array;
  readonly attributes: Int32Array;
}

export interface Addon {
  parse(language: unknown, text: string, ranges?: Int32Array): Promise<FlatTree>;
  symbolNames(language: unknown): string[];
  fieldNames(language: unknown): string[];
  /** Null when the text needs the identifier classes past ASCII, which `identClasses` sets. */
  layout(text: string, hits: Int32Array): RawLayout | null;
  identClasses(start: Uint8Array, word: Uint8Array): void;
}

const require = createRequire(import.meta.url);

let loaded: Addon | undefined;

/** The addon, loaded when first needed. */
export function addon(): Addon {
  if (loaded !== undefined) return loaded;
  try {
    loaded = require("../../native/build/Release/parse.node") as Addon;
  } catch (error) {
    throw new Error(`the native addon is not built (native/build/Release/parse.node): run \`npm ci\` or \`npm rebuild\` in the project (it needs python3, make and a C compiler): ${(error as Error).message}`);
  }
  return loaded;
}
