/**
 * The schemas are the single source of truth: the generated types match them, the seed record
 * (fixtures/seed/envelope.json, a public schema-v2 line) validates, and broken data yields one
 * readable line per problem.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadConfig, resolveTarget } from "../pipeline/config.js";
import { packageRoot, schemasDir } from "../pipeline/paths.js";
import type { Config, Envelope } from "../pipeline/schema-types.generated.js";
import { validate } from "../pipeline/validate.js";
import { generatedTypesPath, generateTypes } from "../scripts/gen-types.js";
import { generatedValidatorsPath, generateValidators, loadSchemas } from "../scripts/gen-validators.js";

const seedFile = join(packageRoot(), "fixtures", "seed", "envelope.json");

async function seed(): Promise<Envelope> {
  return JSON.parse(await readFile(seedFile, "utf8")) as Envelope;
}

describe("generated types", () => {
  test("pipeline/schema-types.generated.ts is up to date with schemas/", () => {
    const expected = generateTypes(schemasDir());
    const actual = readFileSync(generatedTypesPath(), "utf8");
    assert.ok(actual === expected, "pipeline/schema-types.generated.ts is stale: run `npm run gen:types`");
  });

  test("pipeline/validators.generated.ts is up to date with schemas/", () => {
    const expected = generateValidators(schemasDir());
    const actual = readFileSync(generatedValidatorsPath(), "utf8");
    assert.ok(actual === expected, "pipeline/validators.generated.ts is stale: run `npm run gen:types`");
  });

  test("the converter names the file and JSON pointer of what it does not support", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gen-types-"));
    try {
      const schema = {
        $id: "https://error-catalog.dev/schemas/odd.schema.json",
        title: "Odd",
        type: "object",
        additionalProperties: false,
        properties: { value: { oneOf: [{ type: "string" }, { type: "integer" }] } },
      };
      await writeFile(join(dir, "odd.schema.json"), JSON.stringify(schema));
      assert.throws(() => generateTypes(dir), {
        message: `${join(dir, "odd.schema.json")}#/properties/value: unsupported keyword "oneOf"`,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("schemas", () => {
  test("every schema in schemas/ compiles", () => {
    const files = readdirSync(schemasDir()).filter((name) => name.endsWith(".schema.json"));
    const expected = files.map((name) => name.slice(0, -".schema.json".length)).sort();
    assert.deepEqual(loadSchemas(schemasDir()).ids, expected);
  });

  test("a schema that does not exist throws only when asked for", () => {
    assert.ok(!readdirSync(schemasDir()).includes("nope.schema.json"));
    assert.throws(() => validate("nope" as "diff", {}, "x.json"), /schema "nope" does not exist/);
  });
});

describe("seed envelope (record schema v2)", () => {
  test("validates as envelope.v2", async () => {
    const result = validate<Envelope>("envelope.v2", await seed(), "envelope.json");
    assert.deepEqual(result.ok ? [] : result.errors, []);
  });

  test("the record schema lists the seed's fields in the seed's order", async () => {
    const schema = JSON.parse(readFileSync(join(schemasDir(), "record.v2.schema.json"), "utf8")) as {
      properties: object;
      required: string[];
    };
    const fields = Object.keys((await seed()).record);
    assert.deepEqual(Object.keys(schema.properties), fields);
    assert.deepEqual(schema.required, fields);
  });

  test("a bad id, a missing field and an extra field give one line each", async () => {
    const envelope = await seed();
    const { slug: _slug, ...withoutSlug } = envelope.record;
    const broken = { ...envelope, record: { ...withoutSlug, id: "38C5FF", extra: 1 } };
    const result = validate("envelope.v2", broken, "envelope.json");
    assert.deepEqual(result.ok ? [] : result.errors, [
      'envelope.json /record: missing required property "slug"',
      'envelope.json /record: unknown property "extra"',
      'envelope.json /record/id: must match ^[0-9a-f]{16}$ (got "38C5FF")',
    ]);
  });

  test("enums, consts, types and occurrences are spelled out", async () => {
    const envelope = await seed();
    const broken = {
      ...envelope,
      record: { ...envelope.record, severity: "fatal", schemaVersion: 1, handlingStrategy: 3 },
      occurrences: [{ ...envelope.occurrences[0], kind: "oops" }],
      relatedIds: [],
    };
    const result = validate("envelope.v2", broken, "envelope.json");
    assert.deepEqual(result.ok ? [] : result.errors, [
      'envelope.json /record/severity: must be one of "error", "warning" (got "fatal")',
      "envelope.json /record/handlingStrategy: must be string or null (got integer)",
      "envelope.json /record/schemaVersion: must be 2 (got 1)",
      'envelope.json /occurrences/0/kind: must be one of "panic", "unreachable", "todo", "unimplemented", "assert", "assert-eq", "assert-ne", "debug-assert", "debug-assert-eq", "debug-assert-ne", "expect", "expect-err", "error-attribute", "display-impl", "err-return", "ok-or", "map-err", "wrapper-call", "declared-call" (got "oops")',
    ]);
    const empty = validate("envelope.v2", { ...envelope, occurrences: [] }, "envelope.json");
    assert.deepEqual(empty.ok ? [] : empty.errors, ["envelope.json /occurrences: must have at least 1 item (got 0)"]);
  });

  test("validate does not mutate or copy what it is given", async () => {
    const envelope = await seed();
    const result = validate<Envelope>("envelope.v2", envelope, "envelope.json");
    assert.ok(result.ok);
    assert.equal(result.value, envelope);
  });
});

describe("config", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "config-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function configFile(name: string, text: string): Promise<string> {
    const file = join(dir, name);
    await writeFile(file, text);
    return file;
  }

  const sha = "d16f7ba2ed0d41408189384044cc886fb4c8f957";

  test("config.json at the package root validates", async () => {
    const result = await loadConfig(join(packageRoot(), "config.json"));
    assert.deepEqual(result.ok ? [] : result.errors, []);
    assert.ok(result.ok);
    assert.equal(result.value.targets[0]?.repo, "tracel-ai/burn");
  });

  test("defaults are filled in", async () => {
    const file = await configFile("minimal.json", JSON.stringify({ targets: [{ repo: "a/b", url: "u", sha }] }));
    const result = await loadConfig(file);
    assert.ok(result.ok);
    assert.deepEqual(result.value, {
      output: "output",
      cacheDir: ".cache/error-catalog",
      contextLines: 18,
      includeTestCode: false,
      targets: [{ repo: "a/b", url: "u", sha, include: ["**/*.rs"], exclude: [] }],
    } satisfies Config);
  });

  test("a broken config gives one line per problem, with JSON pointers", async () => {
    const broken = {
      contextLines: 500,
      includeTestCode: "yes",
      targets: [
        { repo: "a/b", url: "u", sha: "abc" },
        { repo: "a/b", sha, shaa: sha },
        { repo: "not a repo", url: "", sha },
      ],
    };
    const file = await configFile("config.json", JSON.stringify(broken, null, 2));
    const result = await loadConfig(file);
    assert.deepEqual(result.ok ? [] : result.errors, [
      `${file} /contextLines: must be <= 200 (got 500)`,
      `${file} /includeTestCode: must be boolean (got string)`,
      `${file} /targets/0/sha: must match ^[0-9a-f]{40}$ (got "abc")`,
      `${file} /targets/1: missing required property "url"`,
      `${file} /targets/1: unknown property "shaa"`,
      `${file} /targets/2/repo: must match ^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}/[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}$ (got "not a repo")`,
      `${file} /targets/2/url: must have at least 1 character (got "")`,
      `${file} /targets/1/repo: duplicate repo "a/b" (also at /targets/0)`,
    ]);
  });

  test("no targets and bad JSON are reported with their place; a missing file is an error of its own", async () => {
    const none = await loadConfig(await configFile("none.json", "{}\n"));
    assert.deepEqual(none.ok ? [] : none.errors, [`${join(dir, "none.json")} /: missing required property "targets"`]);

    const missing = join(dir, "missing.json");
    await assert.rejects(loadConfig(missing), (error: Error & { code?: string }) => error.code === "E_CONFIG" && error.message === `the config file ${missing} does not exist`);

    const badToken = await configFile("token.json", '{\n  "output": "out",\n  "contextLines": x\n}\n');
    assert.deepEqual(await loadConfig(badToken), {
      ok: false,
      errors: [`${badToken}:3:19: invalid JSON: Unexpected token 'x'`],
    });

    const trailingComma = await configFile("comma.json", '{\n  "output": "out",\n}\n');
    assert.deepEqual(await loadConfig(trailingComma), {
      ok: false,
      errors: [`${trailingComma}:3:1: invalid JSON: Expected double-quoted property name`],
    });
  });

  test("resolveTarget picks the named or the first target, or lists the repos", async () => {
    const result = await loadConfig(
      await configFile(
        "two.json",
        JSON.stringify({ targets: [{ repo: "a/one", url: "u", sha }, { repo: "b/two", url: "u", sha }] }),
      ),
    );
    assert.ok(result.ok);
    const config = result.value;
    assert.deepEqual(resolveTarget(config), { ok: true, value: config.targets[0] });
    assert.deepEqual(resolveTarget(config, "b/two"), { ok: true, value: config.targets[1] });
    assert.deepEqual(resolveTarget(config, "c/three"), {
      ok: false,
      errors: ['no target "c/three" in the config; available repos: a/one, b/two'],
    });
  });
});
