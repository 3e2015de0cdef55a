/**
 * Validates data against the JSON Schemas in `schemas/` (the single source of truth) and turns
 * ajv's issues into one readable line each: `<where> <JSON pointer>: <what is wrong>`.
 * Validation returns a result; it throws only when a schema itself is missing or broken.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020Module from "ajv/dist/2020.js";
import type { ErrorObject, Options, ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { schemasDir } from "./paths.js";

// Note: ajv and ajv-formats are CommonJS. Under NodeNext a default import yields their
// `module.exports`, which TypeScript types as the module namespace, so the class and the plugin
// are its `default` property (ajv sets `exports.default` to the same value at run time).
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;
type Ajv = InstanceType<typeof Ajv2020>;

/** The outcome of a validation: the value (typed) or one readable line per problem. */
export type Validation<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/** The schemas validate() knows, by file name: `schemas/<id>.schema.json`. */
export type SchemaId = "record.v2" | "envelope.v2" | "manifest" | "versions" | "config" | "diff";

const ID_BASE = "https://error-catalog.dev/schemas/";

/** The `$id` of a schema: `https://error-catalog.dev/schemas/<id>.schema.json`. */
export function schemaUrl(id: string): string {
  return `${ID_BASE}${id}.schema.json`;
}

interface Instances {
  /** Every schema file, for everything but config. */
  readonly plain: Ajv;
  /** The same schemas with `useDefaults`, used for config only: it fills defaults in. */
  readonly withDefaults: Ajv;
  /** The file name of each schema, by `$id`. */
  readonly files: ReadonlyMap<string, string>;
}

let instances: Instances | undefined;
const compiled = new Map<SchemaId, ValidateFunction>();

function newAjv(options: Options): Ajv {
  // Note: strict mode catches typos in the schemas; union types (`["string", "null"]`) are intended.
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, verbose: true, ...options });
  addFormats(ajv);
  return ajv;
}

/** Reads every `*.schema.json` once and adds it to both ajv instances (compiling nothing yet). */
function load(): Instances {
  if (instances) return instances;
  const dir = schemasDir();
  const plain = newAjv({});
  const withDefaults = newAjv({ useDefaults: true });
  const files = new Map<string, string>();
  for (const name of readdirSync(dir).filter((file) => file.endsWith(".schema.json")).sort()) {
    const path = join(dir, name);
    let schema: unknown;
    try {
      schema = JSON.parse(readFileSync(path, "utf8"));
    } catch (error) {
      throw new Error(`schema ${path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    const id = (schema as { $id?: unknown } | null)?.$id;
    if (typeof id !== "string") throw new Error(`schema ${path} has no "$id"`);
    if (id !== schemaUrl(name.slice(0, -".schema.json".length))) {
      throw new Error(`schema ${path} has $id ${id}; expected ${schemaUrl(name.slice(0, -".schema.json".length))}`);
    }
    plain.addSchema(schema as object);
    withDefaults.addSchema(schema as object);
    files.set(id, path);
  }
  instances = { plain, withDefaults, files };
  return instances;
}

function validator(id: string, ajv: Ajv, files: ReadonlyMap<string, string>): ValidateFunction {
  const url = schemaUrl(id);
  if (!files.has(url)) {
    throw new Error(`schema "${id}" does not exist: expected ${join(schemasDir(), `${id}.schema.json`)}`);
  }
  try {
    const validate = ajv.getSchema(url);
    if (!validate) throw new Error("ajv returned no validator");
    return validate;
  } catch (error) {
    throw new Error(`schema ${files.get(url)} does not compile: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function compile(id: SchemaId): ValidateFunction {
  const cached = compiled.get(id);
  if (cached) return cached;
  const { plain, withDefaults, files } = load();
  const validate = validator(id, id === "config" ? withDefaults : plain, files);
  compiled.set(id, validate);
  return validate;
}

/**
 * Compiles every schema file in `schemas/` (a check for tests and CI) and returns their `$id`s.
 * Throws, naming the file, when one does not compile.
 */
export function compileAllSchemas(): string[] {
  const { plain, withDefaults, files } = load();
  for (const url of files.keys()) {
    const id = url.slice(ID_BASE.length, -".schema.json".length);
    validator(id, plain, files);
    validator(id, withDefaults, files);
  }
  return [...files.keys()];
}

/**
 * Validates `data` against `schemas/<schemaId>.schema.json`. `where` labels the data in messages
 * (usually a file name). Never mutates `data`: for "config" a copy is validated and returned with
 * the schema's defaults filled in. Throws only when the schema is missing or does not compile
 * (schemas are compiled lazily, on first use).
 */
export function validate<T>(schemaId: SchemaId, data: unknown, where: string): Validation<T> {
  const check = compile(schemaId);
  const value = schemaId === "config" ? structuredClone(data) : data;
  if (check(value)) return { ok: true, value: value as T };
  return { ok: false, errors: formatErrors(check.errors ?? [], where) };
}

/** A short JSON rendering of a value for messages. */
function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function oneOf(values: readonly unknown[]): string {
  return values.length === 1 ? show(values[0]) : `one of ${values.map(show).join(", ")}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** What is wrong, for one ajv issue; `data` is the offending value (ajv `verbose`). */
function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const data: unknown = error.data;
  switch (error.keyword) {
    case "required":
      return `missing required property ${show(params.missingProperty)}`;
    case "additionalProperties":
      return `unknown property ${show(params.additionalProperty)}`;
    case "type": {
      const types = Array.isArray(params.type) ? params.type : String(params.type).split(",");
      return `must be ${types.join(" or ")} (got ${typeName(data)})`;
    }
    case "pattern":
      return `must match ${String(params.pattern)} (got ${show(data)})`;
    case "enum":
      return `must be ${oneOf(params.allowedValues as unknown[])} (got ${show(data)})`;
    case "const":
      return `must be ${show(params.allowedValue)} (got ${show(data)})`;
    case "format":
      return `must be a ${String(params.format)} string (got ${show(data)})`;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `must be ${String(params.comparison)} ${String(params.limit)} (got ${show(data)})`;
    case "minLength":
      return `must have at least ${plural(Number(params.limit), "character")} (got ${show(data)})`;
    case "maxLength":
      return `must have at most ${plural(Number(params.limit), "character")} (got ${show(data)})`;
    case "minItems":
      return `must have at least ${plural(Number(params.limit), "item")} (got ${Array.isArray(data) ? data.length : show(data)})`;
    case "maxItems":
      return `must have at most ${plural(Number(params.limit), "item")} (got ${Array.isArray(data) ? data.length : show(data)})`;
    default:
      return error.message ?? `fails "${error.keyword}"`;
  }
}

/**
 * One line per problem: `<where> <instancePath or "/">: <message>`. A type error hides the other
 * issues at the same path (an enum or pattern says nothing new about a value of the wrong type),
 * ajv's summary issue for `propertyNames` is dropped in favour of the issue about the name, and
 * duplicate lines are dropped.
 */
export function formatErrors(errors: readonly ErrorObject[], where: string): string[] {
  const typeErrorAt = new Set(errors.filter((error) => error.keyword === "type").map((error) => error.instancePath));
  const lines: string[] = [];
  for (const error of errors) {
    if (error.keyword === "propertyNames") continue;
    if (error.keyword !== "type" && typeErrorAt.has(error.instancePath) && error.propertyName === undefined) continue;
    const path = error.instancePath === "" ? "/" : error.instancePath;
    const message =
      error.propertyName === undefined
        ? describe(error)
        : `property name ${show(error.propertyName)} ${describe({ ...error, data: error.propertyName }).replace(` (got ${show(error.propertyName)})`, "")}`;
    const line = `${where} ${path}: ${message}`;
    if (!lines.includes(line)) lines.push(line);
  }
  return lines;
}
