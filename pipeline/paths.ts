/**
 * Where the package's own files are, independent of the working directory.
 * Note: compiled code runs from `dist/pipeline/*.js` (and `dist/scripts`, `dist/test`, which import
 * this file), so the package root is always two levels above this module.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The package root (the folder holding `package.json`, `schemas/`, `dist/`). Never touches the disk. */
export function packageRoot(): string {
  return root;
}

/** The folder of the JSON Schemas, `<packageRoot>/schemas`. */
export function schemasDir(): string {
  return join(root, "schemas");
}
