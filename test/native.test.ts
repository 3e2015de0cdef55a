/**
 * The native addon as a fast path, never a requirement: the committed prebuild is built from the
 * sources as they are and loads where it was built for; ERROR_CATALOG_NATIVE=0 turns it off; the
 * install step never fails; the addon says clearly what is wrong with a grammar it cannot read;
 * and a whole run gives the same records and manifest with the addon and without it.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Addon } from "../pipeline/native.js";
import { packageRoot } from "../pipeline/paths.js";
import { writeConfig } from "./helpers/config.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";
import { native, needsAddon, rustFixtures } from "./helpers/rust.js";

const require = createRequire(import.meta.url);
const nativeDir = path.join(packageRoot(), "native");

/** node with `env` added, running `args`; its status and output. */
function node(args: readonly string[], env: Record<string, string> = {}, cwd = packageRoot()) {
  const result = spawnSync(process.execPath, args, { cwd, encoding: "utf8", env: { ...process.env, CI: "true", ...env }, timeout: 300_000, maxBuffer: 256 << 20 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("the native addon", () => {
  it("has a prebuild made from the sources as they are", async () => {
    const { sourceDigests } = (await import(pathToFileURL(path.join(nativeDir, "sources.js")).href)) as { sourceDigests(): Record<string, string> };
    const recorded = (JSON.parse(readFileSync(path.join(nativeDir, "prebuilds", "sources.json"), "utf8")) as { files: Record<string, string> }).files;
    const now = sourceDigests();
    const changed = [...new Set([...Object.keys(recorded), ...Object.keys(now)])].filter((file) => recorded[file] !== now[file]).sort();
    assert.deepEqual(changed, [], `the prebuilds in native/prebuilds are stale: ${changed.join(", ")} changed since they were built; run \`npm run build:native\` and commit native/prebuilds`);
    assert.ok(Object.keys(now).some((file) => file.startsWith("native/src/")) && Object.keys(now).some((file) => file.includes("/vendor/tree-sitter/lib/src/")), "the record covers the addon's sources and tree-sitter's");
  });

  const glibc = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
  it("loads its prebuild on linux-x64 with glibc", { skip: process.platform === "linux" && process.arch === "x64" && glibc !== undefined ? false : "the committed prebuild is for linux-x64 (glibc)" }, () => {
    const dir = path.join(nativeDir, "prebuilds", "linux-x64");
    const file = readdirSync(dir).find((f) => f.endsWith(".node") && f.split(".").includes("glibc"));
    assert.ok(file !== undefined, `a prebuild tagged glibc in ${dir}`);
    const prebuild = require(path.join(dir, file)) as Addon;
    for (const name of ["parse", "symbolNames", "fieldNames", "layout", "identClasses"] as const) assert.equal(typeof prebuild[name], "function", name);
  });

  it("is not used with ERROR_CATALOG_NATIVE=0", () => {
    const probe = `import("${pathToFileURL(path.join(packageRoot(), "dist", "pipeline", "native.js")).href}").then((m) => console.log(JSON.stringify({ used: m.addon() !== null, problem: m.nativeProblem() })))`;
    assert.deepEqual(JSON.parse(node(["-e", probe], { ERROR_CATALOG_NATIVE: "0" }).stdout), { used: false, problem: "ERROR_CATALOG_NATIVE=0" });
    if (native.addon !== null) assert.deepEqual(JSON.parse(node(["-e", probe], { ERROR_CATALOG_NATIVE: "1" }).stdout), { used: true, problem: null });
  });

  it("says what is wrong with a grammar it cannot read", needsAddon, () => {
    const addon = native.addon!;
    for (const grammar of [undefined, {}, { language: 5 }, "rust"]) {
      assert.throws(() => addon.parse(grammar, "fn f() {}"), /parse: the grammar must be a tree-sitter language, an external tagged/);
      assert.throws(() => addon.symbolNames(grammar), /symbolNames: the grammar must be a tree-sitter language/);
    }
    assert.throws(() => addon.parse(require("tree-sitter-rust"), "fn f() {}", new Int32Array(5)), /the ranges must be an Int32Array of 6 numbers per range/);
  });

  it("installs without failing where no prebuild fits and it cannot be built", () => {
    // A copy of native/ without its prebuilds, built with a compiler that always fails.
    const dir = tempDir("error-catalog-native-");
    try {
      for (const entry of ["install.js", "sources.js", "binding.gyp", "src"]) cpSync(path.join(nativeDir, entry), path.join(dir, entry), { recursive: true });
      const result = node([path.join(dir, "install.js")], { CC: "/bin/false", CXX: "/bin/false", NODE_PATH: path.join(packageRoot(), "node_modules"), ERROR_CATALOG_NATIVE: "" }, dir);
      assert.equal(result.status, 0, result.stderr);
      const lines = result.stdout.trim().split("\n");
      assert.equal(lines.length, 1, result.stdout);
      assert.match(lines[0]!, /^error-catalog: no prebuilt addon fits \S+ and building it failed \(.+\): extraction will use tree-sitter's node binding and the TypeScript lexer/);
      assert.equal(existsSync(path.join(dir, "build")), false, "no half-built addon is left to load");
      assert.match(node([path.join(dir, "install.js")], { ERROR_CATALOG_NATIVE: "0" }, dir).stdout, /^error-catalog: ERROR_CATALOG_NATIVE=0, the native addon is not built/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives the same sites without it, on every Rust fixture, whole and partly parsed", needsAddon, () => {
    const dist = (file: string) => pathToFileURL(path.join(packageRoot(), "dist", "pipeline", file)).href;
    const probe = [
      `const { extractFile } = await import("${dist("extract.js")}");`,
      `const files = ${JSON.stringify(rustFixtures())};`,
      "const out = [];",
      "for (const file of files) for (const includeTestCode of [false, true]) for (const at of ['src/', 'tests/'])",
      "  out.push(await extractFile({ path: at + file.split('/').pop(), blob: '0'.repeat(40), text: (await import('node:fs')).readFileSync(file, 'utf8') }, { includeTestCode }));",
      "process.stdout.write(JSON.stringify(out));",
    ].join("\n");
    const [withAddon, without] = ["1", "0"].map((value) => {
      const result = node(["--input-type=module", "-e", probe], { ERROR_CATALOG_NATIVE: value });
      assert.equal(result.status, 0, result.stderr);
      return JSON.parse(result.stdout) as { sites: unknown[] }[];
    });
    assert.ok(withAddon!.reduce((n, f) => n + f.sites.length, 0) > 500, "sites were found");
    assert.deepEqual(without, withAddon);
  });

  it("gives the same records and manifest to a whole run without it", needsAddon, () => {
    const repo = makeRepo([fixture("burnlike", "tree")]);
    const outputs = ["1", "0"].map((value) => {
      const config = writeConfig(repo.dir, repo.shas[0]!);
      const result = node([path.join(packageRoot(), "bin", "error-catalog.js"), "run", "--config", config], { ERROR_CATALOG_NATIVE: value });
      assert.equal(result.status, 0, result.stderr);
      const out = path.join(path.dirname(config), "out", "example", "burnlike");
      const version = readdirSync(out).find((entry) => entry.startsWith("0001-"))!;
      // Only the times of the run differ (and the hash of the records, which hold them).
      const mask = (file: string) => readFileSync(path.join(out, version, file), "utf8").replace(/"(datasetVersion|analyzedAt|contentChangedAt)": ?"[^"]*"/g, '"$1":"T"').replace(/"recordsSha256": ?"[0-9a-f]*"/, '"recordsSha256":"H"');
      return { records: mask("records.jsonl"), manifest: mask("manifest.json") };
    });
    assert.ok(outputs[0]!.records.split("\n").length > 10, "records were written");
    assert.equal(outputs[1]!.records, outputs[0]!.records, "records.jsonl");
    assert.equal(outputs[1]!.manifest, outputs[0]!.manifest, "manifest.json");
  });
});
