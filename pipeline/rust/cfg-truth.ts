/**
 * Whether `cfg` predicates can hold together, given what each Cargo feature of the crate enables
 * (`rt-multi-thread = ["rt"]`: no build has `feature = "rt-multi-thread"` without
 * `feature = "rt"`). Pure: predicates and the crate's feature table in, a verdict out.
 */
import { type Cfg, optionsOf, readPredicate, valueOf } from "./cfg-simplest.js";

/** What each feature enables of the same crate's features, by name (`Package.features`). */
export type FeatureTable = ReadonlyMap<string, readonly string[]>;

/** In every build, in none, or in some builds; `unknown` when a predicate cannot be read or names too many options to try. */
export type Truth = "always" | "never" | "sometimes" | "unknown";

/** The most options whose assignments are tried. */
const MAX_OPTIONS = 14;

/** The option text of feature `name`, as predicates spell it. */
function featureOption(name: string): string {
  return `feature = "${name}"`;
}

/** Every feature each feature turns on, itself left out, through chains (`full` → `rt-multi-thread` → `rt`). */
function closure(features: FeatureTable): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const start of features.keys()) {
    const seen = new Set<string>();
    const todo = [...(features.get(start) ?? [])];
    while (todo.length > 0) {
      const f = todo.pop()!;
      if (f === start || seen.has(f)) continue;
      seen.add(f);
      todo.push(...(features.get(f) ?? []));
    }
    out.set(featureOption(start), new Set([...seen].map(featureOption)));
  }
  return out;
}

/**
 * Whether all of `predicates` hold together in every build, in none or in some, over the builds
 * Cargo can make: those where each set feature's features are set too. No predicate: `always`.
 */
export function cfgTruth(predicates: readonly string[], features: FeatureTable): Truth {
  if (predicates.length === 0) return "always";
  const read = predicates.map(readPredicate);
  if (read.some((c) => c === null)) return "unknown";
  const all: Cfg = { text: "", op: "all", args: read as Cfg[] };
  const options = [...new Set(optionsOf(all))].sort();
  if (options.length > MAX_OPTIONS) return "unknown";
  const index = new Map(options.map((o, i) => [o, i]));
  const enables = closure(features);
  // Note: a feature implied by one the predicates name counts only when they name it too; others change nothing.
  const implied = options.map((o) => [...(enables.get(o) ?? [])].flatMap((e) => (index.has(e) ? [index.get(e)!] : [])));
  let some = false;
  let every = true;
  for (let row = 0; row < 1 << options.length; row++) {
    if (implied.some((on, i) => ((row >> i) & 1) === 1 && on.some((j) => ((row >> j) & 1) === 0))) continue;
    const holds = valueOf(all, (o) => ((row >> index.get(o)!) & 1) === 1);
    some ||= holds;
    every &&= holds;
    if (some && !every) return "sometimes";
  }
  return !some ? "never" : every ? "always" : "sometimes";
}
