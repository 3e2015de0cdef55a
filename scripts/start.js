// `npm start [-- options]`: `error-catalog run` from the built CLI, building it first only when a
// source it is built from is newer than the bundle (or there is none). Plain JavaScript, so that
// checking costs a few file stats and no compile.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const bundle = path.join(root, "dist", "pipeline", "cli.bundle.js");

/** The newest modification time (ms) of the files under `dir` whose names end with one of `endings`. */
function newest(dir, endings) {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) time = Math.max(time, newest(file, endings));
    else if (endings.some((e) => entry.name.endsWith(e))) time = Math.max(time, statSync(file).mtimeMs);
  }
  return time;
}

const built = (() => {
  try {
    return statSync(bundle).mtimeMs;
  } catch {
    return 0;
  }
})();
const sources = Math.max(newest(path.join(root, "pipeline"), [".ts", ".scm"]), statSync(path.join(root, "package.json")).mtimeMs, statSync(path.join(root, "tsconfig.json")).mtimeMs);
if (sources > built) {
  process.stderr.write("sources changed since the last build: building\n");
  const build = spawnSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
process.argv.splice(2, 0, "run");
await import(path.join(root, "bin", "error-catalog.js"));
