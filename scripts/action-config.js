// The action's config: one target, the repository the workflow runs in, read from its checkout.
//   node scripts/action-config.js <out-file>
// Environment: CATALOG_REPO (owner/name), CATALOG_SOURCE (the checkout), CATALOG_SHA (a commit),
// INPUT_CONFIG (optional: a config of the repository; its first target's include, exclude and
// messageSources, and its contextLines and includeTestCode, are kept), INPUT_INCLUDE and
// INPUT_EXCLUDE (globs, one per line or comma-separated; they replace the config's when given).
import { readFileSync, writeFileSync } from "node:fs";

const [file] = process.argv.slice(2);
const env = (name) => process.env[name] ?? "";
const globs = (text) => text.split(/[\n,]/).map((g) => g.trim()).filter((g) => g !== "");
const given = env("INPUT_CONFIG") === "" ? { targets: [{}] } : JSON.parse(readFileSync(env("INPUT_CONFIG"), "utf8"));
const first = given.targets?.[0] ?? {};
const config = {
  output: "out",
  cacheDir: "cache",
  ...(given.contextLines === undefined ? {} : { contextLines: given.contextLines }),
  ...(given.includeTestCode === undefined ? {} : { includeTestCode: given.includeTestCode }),
  targets: [
    {
      repo: env("CATALOG_REPO"),
      url: env("CATALOG_SOURCE"),
      sha: env("CATALOG_SHA"),
      include: globs(env("INPUT_INCLUDE")).length > 0 ? globs(env("INPUT_INCLUDE")) : (first.include ?? ["**/*.rs"]),
      exclude: globs(env("INPUT_EXCLUDE")).length > 0 ? globs(env("INPUT_EXCLUDE")) : (first.exclude ?? []),
      ...(first.messageSources === undefined ? {} : { messageSources: first.messageSources }),
    },
  ],
};
writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
