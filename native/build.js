// `npm run build:native`: the prebuild of this platform (prebuilds/<platform>-<arch>/, with
// prebuildify: Node-API, so one binary for every Node version, stripped, tagged with its libc),
// and the record of what it was built from (prebuilds/sources.json, which a test checks against
// the sources). Needs what node-gyp builds with: python3, make and a C compiler.
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sourceDigests } from "./sources.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const prebuildify = path.join(path.dirname(require.resolve("prebuildify/package.json")), "bin.js");
const args = [prebuildify, "--napi", "--strip", "--tag-libc", `--target=${process.versions.node}`];
const result = spawnSync(process.execPath, args, { cwd: here, stdio: "inherit" });
if (result.status !== 0) process.exit(result.status ?? 1);
// The build folder would be loaded before the prebuild (node-gyp-build prefers it).
rmSync(path.join(here, "build"), { recursive: true, force: true });
writeFileSync(path.join(here, "prebuilds", "sources.json"), `${JSON.stringify({ note: "SHA-256 of the files the prebuilds were built from (native/sources.js); npm run build:native rewrites it", files: sourceDigests() }, null, 2)}\n`);
