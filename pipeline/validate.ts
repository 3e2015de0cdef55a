/**
 * Validates data against the JSON Schemas in `schemas/` (the single source of truth) and turns
 * ajv's issues into one readable line each: `<where> <JSON pointer>: <what is wrong>`.
 * Validation returns a result; it throws only when a schema itself is missing or broken.
 */
import type { ErrorObject } from "ajv/dist/2020.js";
import type { Envelope, Manifest, VersionsIndex } from "./schema-types.generated.js";
import * as validators from "./validators.generated.js";

/** The outcome of a validation: the value (typed) or one readable line per problem. */
export type Validation<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/** The schemas validate() knows, by file name: `schemas/<id>.schema.json`. */
export type SchemaId = "record.v2" | "envelope.v2" | "manifest" | "versions" | "config" | "diff" | "run-report";

interface ValidateFunction {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

// Note: the validators are compiled from the schemas ahead of time (scripts/gen-validators.ts),
// so a run does not pay ajv's compile time; a test fails when they are stale.
const VALIDATORS: Record<SchemaId, ValidateFunction> = {
  "record.v2": validators.record_v2,
  "envelope.v2": validators.envelope_v2,
  manifest: validators.manifest,
  versions: validators.versions,
  config: validators.config,
  diff: validators.diff,
  "run-report": validators.run_report,
};

/**
 * Validates `data` against `schemas/<schemaId>.schema.json`. `where` labels the data in messages
 * (usually a file name). Never mutates `data`: for "config" a copy is validated and returned with
 * the schema's defaults filled in.
 */
export function validate<T>(schemaId: SchemaId, data: unknown, where: string): Validation<T> {
  const check = VALIDATORS[schemaId] as ValidateFunction | undefined;
  if (check === undefined) throw new Error(`schema "${schemaId}" does not exist: expected schemas/${schemaId}.schema.json`);
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

/**
 * The problems of a version about to be written: every envelope but those `taken` as lines of the
 * previous version (validated when it was written), the manifest, and the index with its entry.
 */
export function versionProblems(version: { readonly envelopes: readonly Envelope[]; readonly taken: ReadonlyMap<Envelope, unknown>; readonly manifest: Manifest }, index: VersionsIndex): string[] {
  const errors: string[] = [];
  version.envelopes.forEach((e, i) => {
    if (version.taken.has(e)) return;
    const r = validate("envelope.v2", e, `records.jsonl:${i + 1}`);
    if (!r.ok) errors.push(...r.errors);
  });
  const m = validate("manifest", version.manifest, "manifest.json");
  if (!m.ok) errors.push(...m.errors);
  const v = validate("versions", index, "versions.json");
  if (!v.ok) errors.push(...v.errors);
  return errors;
}
