/**
 * The simplest form of a `cfg` predicate that holds in exactly the same builds: arguments of
 * `all`/`any` that change nothing dropped, then the shortest of that and the sub-predicates
 * whose truth over every assignment of its options is the predicate's. So `any(rt, all(not(rt), rt))` (a file declared twice, once under a gate that
 * cannot hold) is `rt`. Pure: a predicate's text in, a predicate's text out.
 */
import { splitArgs, type Token, tokenize } from "../tokens.js";

/** A predicate read from its tokens: an option (`unix`, `feature = "x"`), a constant, or `all`/`any`/`not` of others. */
export type Cfg = { readonly text: string } & ({ readonly option: string } | { readonly constant: boolean } | { readonly op: "all" | "any" | "not"; readonly args: readonly Cfg[] });

/** The most options whose assignments are tried (each dropped argument is checked over all of them); a predicate of more is kept as it is. */
const MAX_OPTIONS = 8;

/** The simplest predicate that holds in exactly the builds `predicate` holds in; `predicate` itself when it cannot be read or has more than 8 options. */
export function simplestCfg(predicate: string): string {
  const tokens = tokenize(predicate);
  const root = readCfg(predicate, tokens);
  if (root === null) return predicate;
  const options = [...new Set(optionsOf(root))].sort();
  if (options.length > MAX_OPTIONS) return predicate;
  const rows = 1 << options.length;
  const index = new Map(options.map((o, i) => [o, i]));
  const table = (c: Cfg): string => {
    let bits = "";
    for (let row = 0; row < rows; row++) bits += valueOf(c, (o) => ((row >> index.get(o)!) & 1) === 1) ? "1" : "0";
    return bits;
  };
  const want = table(root);
  // Note: an argument of `all`/`any` that changes nothing of the whole is dropped, one at a time, until none can be.
  let reduced = root;
  for (let changed = true; changed; ) {
    changed = false;
    for (const candidate of withoutOneArgument(reduced)) {
      if (table(candidate) === want) {
        reduced = candidate;
        changed = true;
        break;
      }
    }
  }
  let best = root;
  for (const c of [...nodesOf(reduced), ...nodesOf(root)]) if (c.text.length < best.text.length && table(c) === want) best = c;
  return best.text;
}

/** Every predicate made from `c` by dropping one argument of one `all` or `any` of it (one that keeps at least one argument). */
function* withoutOneArgument(c: Cfg): Generator<Cfg> {
  if (!("op" in c)) return;
  const rebuilt = (args: readonly Cfg[]): Cfg => (c.op !== "not" && args.length === 1 ? args[0]! : { text: `${c.op}(${args.map((a) => a.text).join(", ")})`, op: c.op, args });
  if (c.op !== "not" && c.args.length > 1) for (let i = 0; i < c.args.length; i++) yield rebuilt(c.args.filter((_, j) => j !== i));
  for (let i = 0; i < c.args.length; i++) for (const inner of withoutOneArgument(c.args[i]!)) yield rebuilt(c.args.map((a, j) => (j === i ? inner : a)));
}

/** The predicate `predicate` reads as, or null when it is not one. */
export function readPredicate(predicate: string): Cfg | null {
  return readCfg(predicate, tokenize(predicate));
}

function readCfg(source: string, tokens: readonly Token[]): Cfg | null {
  const head = tokens[0];
  if (head === undefined || head.kind !== "ident") return null;
  const text = source.slice(head.start, tokens.at(-1)!.end);
  if (tokens.length === 1) return head.text === "true" || head.text === "false" ? { text, constant: head.text === "true" } : { text, option: head.text };
  if (tokens[1]!.text === "=" && tokens.length === 3) return { text, option: `${head.text} = ${tokens[2]!.text}` };
  if (tokens[1]!.text !== "(" || tokens.at(-1)!.text !== ")" || !["all", "any", "not"].includes(head.text)) return null;
  const args = splitArgs(tokens.slice(2, -1)).map((a) => readCfg(source, a));
  if (args.some((a) => a === null) || (head.text === "not" && args.length !== 1)) return null;
  return { text, op: head.text as "all" | "any" | "not", args: args as Cfg[] };
}

/** The options `c` names (`unix`, `feature = "x"`), with repeats. */
export function optionsOf(c: Cfg): string[] {
  return "option" in c ? [c.option] : "op" in c ? c.args.flatMap(optionsOf) : [];
}

function nodesOf(c: Cfg): Cfg[] {
  return "op" in c ? [c, ...c.args.flatMap(nodesOf)] : [c];
}

/** Whether `c` holds when exactly the options `holds` says are set. */
export function valueOf(c: Cfg, holds: (option: string) => boolean): boolean {
  if ("option" in c) return holds(c.option);
  if ("constant" in c) return c.constant;
  if (c.op === "not") return !valueOf(c.args[0]!, holds);
  return c.op === "all" ? c.args.every((a) => valueOf(a, holds)) : c.args.some((a) => valueOf(a, holds));
}
