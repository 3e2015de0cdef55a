/**
 * What the workspace's layout adds to a site's facts: the package, module, crate description and
 * kind of its file, and the gates of the module and of the item-wrapping macros around the site
 * (`moduleGates`), put before the site's own in `gates`. Pure.
 */
import { cfgTruth, type FeatureTable, type Truth } from "../rust/index.js";
import type { RecordFacts, SiteFacts } from "../schema-types.generated.js";
import { packageByDir } from "./crates.js";
import { itemMacro, placeOf, type WorkspaceLayout } from "./modules.js";

/** The facts the layout gives a site of `path`, to join with the site's own. */
export type PlaceFacts = Pick<RecordFacts, "crate" | "module" | "crateDescription" | "crateKind" | "moduleGates" | "moduleHidden">;

/** The layout's facts of a file; `site`: the site whose wrapping macros add gates (`cfg_rt! { … }` around it). */
export function placeFacts(layout: WorkspaceLayout, path: string, site: Pick<SiteFacts, "macro" | "macroPath">): PlaceFacts {
  const place = placeOf(layout, path);
  const gates = [...place.gates];
  // Note: only the macros outermost in the site's path that are item wrappers gate it; inside any other macro, what its tokens become is its own.
  const path_ = site.macroPath ?? (site.macro === null ? [] : [{ name: site.macro, attribute: null }]);
  for (const use of path_) {
    const wrapper = itemMacro(layout, path, use.name);
    if (wrapper === undefined) break;
    gates.push(...wrapper.gates, ...(wrapper.attribute && use.attribute !== null ? [use.attribute] : []));
  }
  const features = featuresOf(layout, path);
  return { crate: place.package, module: place.module, crateDescription: place.description, crateKind: place.crateKind, moduleGates: [...new Set(gates)].filter((g) => truthOf([g], features) !== "always"), ...(place.hidden === true ? { moduleHidden: true } : {}) };
}

/** The feature table of the package holding `path` (empty outside packages). */
export function featuresOf(layout: WorkspaceLayout, path: string): FeatureTable {
  return packageByDir(layout.packages, path)?.features ?? NO_FEATURES;
}

const NO_FEATURES: FeatureTable = new Map();
const truths = new WeakMap<FeatureTable, Map<string, Truth>>();

/** `cfgTruth`, remembered per feature table and predicates (the same gates stand over many sites). */
function truthOf(predicates: readonly string[], features: FeatureTable): Truth {
  const known = truths.get(features) ?? truths.set(features, new Map()).get(features)!;
  const key = predicates.join("\0");
  const hit = known.get(key);
  if (hit !== undefined) return hit;
  const truth = cfgTruth(predicates, features);
  known.set(key, truth);
  return truth;
}

/**
 * A record's facts as Cargo builds its crate: gates that hold in every build left out of `gates`
 * (`any(feature = "rt", not(feature = "rt"))`), and `neverCompiled` when no build holds them all
 * (given what each feature enables); a new value.
 */
export function withBuilds(facts: RecordFacts, features: FeatureTable): RecordFacts {
  const { neverCompiled: _, ...rest } = facts;
  const gates = facts.gates.filter((g, i) => i < facts.moduleGates.length || truthOf([g], features) !== "always");
  return { ...rest, gates, ...(truthOf(gates, features) === "never" ? { neverCompiled: true } : {}) };
}

/**
 * The facts a record takes of its site: those read with the bodies of the macros around it as
 * items (`asItems`) when each of those macros is an item wrapper of the repository
 * (`cfg_rt! { … }`), else the site's as the tree shows them (in another macro's tokens).
 */
export function readFacts(layout: WorkspaceLayout, path: string, site: SiteFacts): SiteFacts {
  const read = site.asItems;
  if (read === undefined) return site;
  const wrappers = (read.facts.macroPath ?? []).slice(0, read.depth);
  return wrappers.length === read.depth && wrappers.every((u) => itemMacro(layout, path, u.name) !== undefined) ? read.facts : site;
}

/** A site's facts joined with its place's: the module's gates first in `gates`, without repeats; `asItems` left out (`readFacts` chose). */
export function withPlace(site: SiteFacts, place: PlaceFacts): Omit<RecordFacts, "sameFunction"> {
  const { asItems: _, ...facts } = site;
  return { ...place, ...facts, gates: [...new Set([...place.moduleGates, ...facts.gates])] };
}

/** True when a record's facts hold what `place` says (a record taken from a previous version is still where it was). */
export function samePlace(facts: RecordFacts, place: PlaceFacts): boolean {
  return facts.crate === place.crate && facts.module === place.module && facts.crateDescription === place.crateDescription && facts.crateKind === place.crateKind && facts.moduleGates.join("\0") === place.moduleGates.join("\0") && (facts.moduleHidden === true) === (place.moduleHidden === true);
}
