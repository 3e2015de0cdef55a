/**
 * Declared sources: calls the config names (`messageSources` of a target) whose argument is a
 * message another piece of code prints inside a text of its own, a convention no inference can
 * see. burn's `TensorError::new("…")` is registered into a `TensorCheck` under an operation name
 * and printed by `check!` as an `=== Tensor Operation Error ===` block; the config's template says
 * what that block looks like around the message. Each such call with a literal or `format!`
 * message is a site of kind `declared-call`, at the message. Pure.
 */
import type { MessageSourceConfig } from "../schema-types.generated.js";
import type { MessagePart } from "../types.js";
import { joined } from "./argument.js";

/** A declared source, ready to match calls with. */
export interface DeclaredSource {
  readonly config: MessageSourceConfig;
  /** The template's parts before and after the message. */
  readonly before: readonly MessagePart[];
  readonly after: readonly MessagePart[];
}

/**
 * The parts of a template around its `{message}`: its text as literal parts, each `{*}` a hole,
 * `{{` and `}}` single braces. The schema makes sure `{message}` stands in it once and no other
 * brace does.
 */
export function templateParts(template: string): { before: MessagePart[]; after: MessagePart[] } {
  const sides: MessagePart[][] = [[]];
  const re = /\{\{|\}\}|\{\*\}|\{message\}|[^{}]+/g;
  for (let m = re.exec(template); m !== null; m = re.exec(template)) {
    const piece = m[0];
    if (piece === "{message}") sides.push([]);
    else sides.at(-1)!.push(piece === "{*}" ? { wild: true } : { lit: piece === "{{" ? "{" : piece === "}}" ? "}" : piece });
  }
  return { before: joined(sides[0]!), after: joined(sides[1] ?? []) };
}

/** The config's declared sources. */
export function declaredSources(configs: readonly MessageSourceConfig[]): DeclaredSource[] {
  return configs.map((config) => ({ config, ...templateParts(config.template) }));
}

/**
 * True when a call of `key` (`messageCalls`: `name`, `Path::name`, `.name`) is the declared
 * call `call`: `A::b` and `.b` name their key exactly, a plain `b` a function called as `b(…)` or
 * through any path.
 */
export function declares(call: string, key: string): boolean {
  if (call.includes("::") || call.startsWith(".")) return key === call;
  return key === call || (!key.startsWith(".") && key.endsWith(`::${call}`));
}
