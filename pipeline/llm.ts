/**
 * The optional language-model analyzer: asks an OpenAI-compatible chat-completions endpoint to
 * rewrite a record's prose fields from its facts and excerpt, on top of the static analysis.
 * Effects live here: the network, the answer cache on disk, the environment (the API key).
 *
 * Every answer is validated against the record schema's definitions of those fields; any failure
 * (HTTP error, timeout, bad JSON, schema violation) keeps the static fields and is counted.
 * Answers are cached by a hash of what was sent (model, prompt version, `llmInput`: the record,
 * its sites, facts and static fields without line numbers), so a run at a new SHA asks again only
 * for records whose inputs changed. A record the model wrote says so in `modelFields`.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type Ajv2020Module from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv/dist/2020.js";
import type addFormatsModule from "ajv-formats";
import { schemasDir } from "./paths.js";
import type { AnalysisCounts, Envelope, LlmConfig } from "./schema-types.generated.js";


/** The fields a model may rewrite: prose only; strategy, guards and tags stay the static ones. */
export const LLM_FIELDS = ["documentation", "triggerScenarios", "commonSituations", "solutions", "preventionTips"] as const;

type Prose = Pick<Envelope["record"], (typeof LLM_FIELDS)[number]>;

/** Bumped when the instructions change: it is part of every cache key. */
export const PROMPT_VERSION = 2;

const INSTRUCTIONS = [
  "You explain one panic site of a Rust repository to a developer who hit it.",
  "You get the panic's kind, message, pattern, file, source excerpt, every site that raises it, the facts a syntax tree proves about it (with whatever else the analysis found: entry points, doc comments, tests that reproduce it, the crate's description), and the static analysis's fields.",
  "Say what the message means in the library's terms, what the caller did to cause it and how to fix it; quote the repository's docs where the facts give them.",
  `Answer with one JSON object with exactly these keys: ${LLM_FIELDS.join(", ")}.`,
  "documentation, triggerScenarios, commonSituations: strings of one to three sentences. solutions, preventionTips: arrays of short strings.",
  "State only what the facts and the excerpt show; put code in backticks and use only names that appear in them.",
].join("\n");

/**
 * The defaults of config.schema.json's LlmConfig, read from the schema (the single source of
 * truth), for a config without an `analysis` section.
 */
export const LLM_DEFAULTS: LlmConfig = (() => {
  const schema = JSON.parse(readFileSync(path.join(schemasDir(), "config.schema.json"), "utf8")) as { $defs: { LlmConfig: { properties: Record<string, { default?: unknown }> } } };
  return Object.fromEntries(Object.entries(schema.$defs.LlmConfig.properties).map(([k, v]) => [k, v.default])) as unknown as LlmConfig;
})();

/** Where the model analyzer asks, where it caches, and where it reads the key. */
export interface LlmOptions {
  /** The model settings (defaults filled in by the config schema). */
  readonly settings: LlmConfig;
  /** The cache folder (`config.cacheDir`): answers go to `<cacheDir>/llm/`. */
  readonly cacheDir: string;
  /** Where the API key is read from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly log?: (line: string) => void;
}

/** What the model analyzer did: the envelopes (new values) and the manifest's counts. */
export interface LlmResult {
  readonly envelopes: Envelope[];
  readonly counts: AnalysisCounts;
}

/**
 * Rewrites the prose fields of each envelope with the model's answer, when enabled. Never throws
 * for a failed request: the record keeps its static fields and `llmFailed` counts it. With the
 * model disabled, returns the envelopes as they are, all counted `static`.
 */
export async function refineWithLlm(envelopes: readonly Envelope[], options: LlmOptions): Promise<LlmResult> {
  const counts = { static: 0, llm: 0, llmCached: 0, llmFailed: 0 };
  if (!options.settings.enabled) return { envelopes: [...envelopes], counts: { ...counts, static: envelopes.length } };
  const out: Envelope[] = [...envelopes];
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < envelopes.length; i = next++) {
      const e = envelopes[i]!;
      const input = llmInput(e);
      const key = cacheKey(options.settings.model, input);
      const cached = await readCached(options.cacheDir, key);
      if (cached !== null) {
        out[i] = merge(e, cached);
        counts.llmCached++;
        continue;
      }
      const answer = await ask(options, input);
      if (answer.ok) {
        out[i] = merge(e, answer.value);
        counts.llm++;
        await writeCached(options.cacheDir, key, answer.value).catch((error: unknown) => failures.push(`could not cache an answer: ${(error as Error).message}`));
      } else {
        counts.llmFailed++;
        counts.static++;
        failures.push(`${e.record.id}: ${answer.error}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.settings.maxConcurrency, envelopes.length)) }, worker));
  if (failures.length > 0) options.log?.(`language model: ${failures.length} answer(s) not used, static fields kept (first: ${failures[0]})`);
  return { envelopes: out, counts };
}

/**
 * What is sent about one record (and hashed): everything the static analysis knows of it, read
 * generically so that every field the envelope holds beside the record and its occurrences
 * (`facts` whole, and any other key, e.g. reproductions) reaches the model; the record's
 * message, place, excerpt and the static fields; every occurrence's place, kind and message
 * source. No line numbers (nor ids, links or times), so moved code is not asked again.
 */
export function llmInput(e: Envelope): Record<string, unknown> {
  const { record, occurrences, datasetVersion: _version, relatedIds: _related, modelFields: _written, ...rest } = e;
  const withoutLines = (value: unknown) => JSON.parse(JSON.stringify(value ?? {}, (k, v: unknown) => (VOLATILE.has(k) ? undefined : v))) as unknown;
  const statics = Object.fromEntries(STATIC_FIELDS.map((f) => [f, record[f]]));
  return {
    kind: occurrences[0]!.kind,
    message: record.errorMessage,
    pattern: record.messagePattern,
    errorType: record.errorType,
    errorClass: record.errorClass,
    file: record.filePath,
    excerpt: record.sourceCode,
    occurrences: occurrences.map((o) => withoutLines({ file: o.filePath, kind: o.kind, context: o.context, source: o.source })),
    ...(withoutLines(rest) as Record<string, unknown>),
    staticAnalysis: statics,
  };
}

/** Keys left out of what is sent: lines, links, ids and times move without the code changing. */
const VOLATILE: ReadonlySet<string> = new Set(["line", "lineNumber", "githubUrl", "permalink", "sourceCodeStart", "sourceCodeEnd", "sameFunction", "analyzedAt", "contentChangedAt", "analyzedSha"]);

/** The static fields sent along: the model rewrites the prose ones and may use the others. */
const STATIC_FIELDS = ["documentation", "triggerScenarios", "commonSituations", "solutions", "preventionTips", "handlingStrategy", "exampleFix", "validationCode", "typeGuard", "tryCatchPattern", "backgroundTag", "tags"] as const;

/** SHA-256 of the model, prompt version and input. */
export function cacheKey(model: string, input: Record<string, unknown>): string {
  return createHash("sha256").update(JSON.stringify({ model, prompt: PROMPT_VERSION, instructions: INSTRUCTIONS, input })).digest("hex");
}

/** The envelope with the model's prose, its `modelFields` naming the fields it wrote. */
function merge(e: Envelope, prose: Prose): Envelope {
  return { ...e, record: { ...e.record, ...prose }, modelFields: LLM_FIELDS.filter((f) => prose[f] !== undefined) };
}

function cacheFile(cacheDir: string, key: string): string {
  return path.join(cacheDir, "llm", key.slice(0, 2), `${key}.json`);
}

async function readCached(cacheDir: string, key: string): Promise<Prose | null> {
  try {
    const value = JSON.parse(await readFile(cacheFile(cacheDir, key), "utf8")) as unknown;
    // Note: a cached answer is validated again: a damaged or hand-edited file is just a miss.
    return checkProse(value) ? value : null;
  } catch {
    return null;
  }
}

async function writeCached(cacheDir: string, key: string, prose: Prose): Promise<void> {
  const file = cacheFile(cacheDir, key);
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(prose, null, 2)}\n`);
  await rename(tmp, file);
}

type Answer = { ok: true; value: Prose } | { ok: false; error: string };

/** One request; every failure becomes an error value. */
async function ask(options: LlmOptions, input: Record<string, unknown>): Promise<Answer> {
  const { settings } = options;
  const key = (options.env ?? process.env)[settings.apiKeyEnv];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), settings.timeoutMs);
  try {
    const response = await fetch(settings.endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({
        model: settings.model,
        temperature: 0,
        response_format: { type: "json_object" },
        messages: [
          { role: "system", content: INSTRUCTIONS },
          { role: "user", content: JSON.stringify(input) },
        ],
      }),
      signal: controller.signal,
    });
    const body = await response.text();
    if (!response.ok) return { ok: false, error: `HTTP ${response.status}` };
    const content = (JSON.parse(body) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
    if (typeof content !== "string") return { ok: false, error: "no message content in the answer" };
    let value: unknown;
    try {
      value = JSON.parse(content.trim().replace(/^```(?:json)?\s*|\s*```$/g, ""));
    } catch {
      return { ok: false, error: "the answer is not JSON" };
    }
    if (!checkProse(value)) return { ok: false, error: `the answer breaks the schema: ${proseErrors()}` };
    return { ok: true, value: pick(value) };
  } catch (error) {
    return { ok: false, error: controller.signal.aborted ? `no answer within ${settings.timeoutMs} ms` : (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

function pick(value: Prose): Prose {
  return Object.fromEntries(LLM_FIELDS.map((f) => [f, value[f]])) as unknown as Prose;
}

/**
 * The validator of an answer: exactly the prose fields, each as record.v2.schema.json defines
 * it, and not empty (null or "" would erase the static text).
 * Note: an ajv instance of its own, since validate.ts compiles whole schema files only.
 */
let proseValidator: ValidateFunction | undefined;

function checkProse(value: unknown): value is Prose {
  if (proseValidator === undefined) {
    // Note: ajv is loaded only here, when a model answered: a run without one never pays for it.
    // It is CommonJS: under NodeNext the class and the plugin are the modules' `default`.
    const require = createRequire(import.meta.url);
    const Ajv2020 = (require("ajv/dist/2020.js") as typeof Ajv2020Module).default;
    const addFormats = (require("ajv-formats") as typeof addFormatsModule).default;
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(JSON.parse(readFileSync(path.join(schemasDir(), "record.v2.schema.json"), "utf8")) as object);
    const ref = (f: string) => ({ $ref: `https://error-catalog.dev/schemas/record.v2.schema.json#/properties/${f}` });
    const nonEmpty = (f: string) => (f === "solutions" || f === "preventionTips" ? { allOf: [ref(f), { type: "array", minItems: 1, items: { type: "string", minLength: 1 } }] } : { allOf: [ref(f), { type: "string", minLength: 1 }] });
    proseValidator = ajv.compile({
      type: "object",
      additionalProperties: false,
      required: [...LLM_FIELDS],
      properties: Object.fromEntries(LLM_FIELDS.map((f) => [f, nonEmpty(f)])),
    });
  }
  return proseValidator(value) === true;
}

function proseErrors(): string {
  return (proseValidator?.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`).slice(0, 3).join("; ");
}
