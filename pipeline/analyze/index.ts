/**
 * Stage 5, analyze: fills the explanation fields of every record from the facts its site's syntax
 * tree proves (gathered at extraction by `siteFacts`), adds `facts` and `relatedIds` to each
 * envelope. Pure: envelopes and sites in, new envelopes out. `analyzeStage` (stage.ts) wires it
 * with the optional language model and the carried-over times.
 */
import { recordKey, recordMessage, sameContent } from "../build.js";
import type { Envelope, OtherSite, RecordFacts } from "../schema-types.generated.js";
import type { Site } from "../types.js";
import type { WorkspaceLayout } from "../workspace/modules.js";
import { featuresOf, placeFacts, readFacts, samePlace, withBuilds } from "../workspace/place.js";
import { ANALYSIS_FIELDS, type AnalysisFields, analyzeEnvelope, EMPTY_FACTS, inGeneric, type Peer, recordFacts, withAnalysis } from "./fields.js";
import { reachOf, type SymbolsInput } from "./reach.js";

export { analysisFields, analyzeEnvelope, crateAndModule, describeCondition, type AnalysisFields } from "./fields.js";
export { generateGuards, type Guards } from "./guard.js";

/** What the static analysis needs: the built envelopes and the sites they were built from. */
export interface AnalyzeInput {
  /** The envelopes of the dataset, as build made them. */
  readonly envelopes: readonly Envelope[];
  /** The catalogued sites (those build made the envelopes from). */
  readonly sites: readonly Site[];
  /**
   * The previous version's envelopes by id, when the same analyzer wrote them with the same
   * settings: a record whose analysis inputs (kind, message, place, facts, same-function peers)
   * are those of its previous version keeps its fields instead of being analysed again.
   * Note: an envelope that comes with facts was taken whole from the previous version by build
   * (its sites and their facts are what they were): only its peers are compared.
   */
  readonly carryFrom?: ReadonlyMap<string, Envelope>;
  /** The workspace's packages and module tree (workspace/); absent: no file is in a package, and a carried record's place is taken as it was. */
  readonly layout?: WorkspaceLayout;
  /** The workspace's symbol index and tests: each record's entry points, docs and reproductions (reach.ts); absent: none. */
  readonly symbols?: SymbolsInput;
}

const NO_WORKSPACE: WorkspaceLayout = { files: new Map(), packages: [], itemMacros: new Map() };

/** Most related ids an envelope lists. */
const RELATED = 5;

/** Words that say nothing about what a message is about (left out when messages are compared). */
export const COMMON_WORDS: ReadonlySet<string> = new Set(["the", "and", "for", "not", "with", "should", "must", "can", "cannot", "are", "was", "has", "have", "this", "that", "from", "got", "but", "only", "supported"]);

/**
 * The analysed envelopes, in the input order. The facts of a record are those of its first
 * occurrence (the record's location); records of sites without facts get empty facts.
 */
export function analyzeEnvelopes(input: AnalyzeInput): Envelope[] {
  return analyzeWithCarry(input).envelopes;
}

/** `analyzeEnvelopes`, with the number of records whose fields were carried over from `carryFrom`. */
export function analyzeWithCarry(input: AnalyzeInput): { envelopes: Envelope[]; carried: number } {
  // Note: when every record was taken whole from the previous version (its facts are that very
  //   object, its same-function records are all there) and none came or went, every input of the
  //   analysis is what it was (each record's facts and same-function records, and the places and
  //   messages of all the others, which rank the related ids): the previous analysis, which the
  //   records carry, is the answer.
  const previous = input.carryFrom;
  const layout = input.layout ?? NO_WORKSPACE;
  // Note: a record taken from the previous version keeps its facts only while its file stands where it stood (its package, module and their gates).
  const stillPlaced = (e: Envelope) => input.layout === undefined || samePlace(e.facts!, placeFacts(layout, e.record.filePath, e.facts!));
  const takenWhole = (e: Envelope) => e.facts !== undefined && previous!.get(e.record.id)?.facts === e.facts && e.facts.sameFunction.every((id) => previous!.has(id)) && stillPlaced(e);
  // Note: with the symbol index, a record's entry points and reproductions come from other files: its analysis is checked below instead.
  if (previous !== undefined && input.symbols === undefined && input.envelopes.length === previous.size && input.envelopes.every(takenWhole)) {
    return { envelopes: [...input.envelopes], carried: input.envelopes.length };
  }
  const siteAt = new Map<string, Site>();
  for (const s of input.sites) {
    const key = `${s.path}\0${s.line}\0${s.kind}\0${recordMessage(s)}`;
    if (!siteAt.has(key)) siteAt.set(key, s);
  }
  const siteOf = (e: Envelope, o: Envelope["occurrences"][number]) => siteAt.get(`${o.filePath}\0${o.lineNumber}\0${o.kind}\0${e.record.errorMessage}`);
  // Note: a record's other sites may write its message with other holes (`{a}` where the first has `{b:?}`): one is found by its place and its record's key.
  const sitesAt = new Map<string, Site[]>();
  for (const s of input.sites) push(sitesAt, `${s.path}\0${s.line}\0${s.kind}`, s);
  const otherSiteOf = (e: Envelope, o: Envelope["occurrences"][number]) => {
    const first = siteOf(e, e.occurrences[0]!);
    const key = first === undefined ? null : recordKey(first);
    return siteOf(e, o) ?? (key === null ? undefined : sitesAt.get(`${o.filePath}\0${o.lineNumber}\0${o.kind}`)?.find((s) => recordKey(s) === key));
  };
  const factsOf = input.envelopes.map((e) => readFacts(layout, e.occurrences[0]!.filePath, siteOf(e, e.occurrences[0]!)?.facts ?? EMPTY_FACTS));
  /** A record's other sites: place and owner, and the path condition of those whose facts were read. */
  const otherSites = (e: Envelope): OtherSite[] =>
    e.occurrences.slice(1).map((o) => {
      const site = otherSiteOf(e, o);
      const conditions = site?.facts?.conditions;
      return { kind: o.kind, path: o.filePath, line: o.lineNumber, owner: site?.owner ?? "", ...(conditions === undefined ? {} : { conditions }) };
    });

  // Records by function (file + the function's line), in line order, for same-function facts and related ids.
  // Note: a record's peers and related records are of its own error type: a panic's are panics,
  //   a returned error's are returned errors.
  const lineOf = (j: number) => input.envelopes[j]!.record.lineNumber;
  const byFunction = new Map<string, number[]>();
  input.envelopes.forEach((e, i) => {
    const fn = factsOf[i]!.function;
    if (fn !== undefined) push(byFunction, `${e.record.errorType}\0${e.record.filePath}\0${fn.line}`, i);
  });
  // Note: a stable sort of lists in index order: ties in line keep index order.
  for (const list of byFunction.values()) list.sort((a, b) => lineOf(a) - lineOf(b));
  // Note: each function's ids in order once; a record's same-function ids are those less its own,
  //   already in the order its facts list them (a sort of them then only checks the order).
  const idsByFunction = new Map<string, string[]>();
  const idsOf = (key: string) => idsByFunction.get(key) ?? idsByFunction.set(key, byFunction.get(key)!.map((j) => input.envelopes[j]!.record.id).sort()).get(key)!;
  const reach = input.symbols === undefined ? null : reachOf(input.symbols, input.envelopes, (i) => factsOf[i]!, (i, k) => (k === 0 ? factsOf[i]!.conditions : otherSiteOf(input.envelopes[i]!, input.envelopes[i]!.occurrences[k]!)?.facts?.conditions));
  const nearest = nearestInFile(input.envelopes);
  const similar = similarity(input.envelopes.map((e) => e.record.errorMessage), input.envelopes.map((e) => e.record.errorType));

  // How many records print each text: a text several sites print is told apart by the `panicked at` line.
  // Note: panics only (a returned error prints no such line), and texts with words of their own (`{}` prints anything).
  const byText = new Map<string, number>();
  for (const e of input.envelopes) if (e.record.errorType === "panic" && /[A-Za-z]{2}/.test(e.record.errorMessage.replace(/\{[^{}]*\}/g, ""))) byText.set(e.record.errorMessage, (byText.get(e.record.errorMessage) ?? 0) + 1);
  let carried = 0;
  const envelopes = input.envelopes.map((e, i) => {
    const site = factsOf[i]!;
    const fnLine = site.function?.line;
    const fnKey = fnLine === undefined ? null : `${e.record.errorType}\0${e.record.filePath}\0${fnLine}`;
    const same = fnKey === null ? [] : byFunction.get(fnKey)!.filter((j) => j !== i);
    const peers: Peer[] = same.map((j) => ({ id: input.envelopes[j]!.record.id, message: input.envelopes[j]!.record.errorMessage }));
    // Note: a record of the same file is in the same function when its function starts on the same line.
    const related: number[] = same.slice(0, RELATED);
    if (related.length < RELATED) related.push(...nearest(i, RELATED - related.length, (j) => fnLine !== undefined && factsOf[j]!.function?.line === fnLine));
    if (related.length < RELATED) for (const j of similar(i)) if (related.length < RELATED && !related.includes(j)) related.push(j);
    const relatedIds = related.map((j) => input.envelopes[j]!.record.id);
    const carriedPlace = input.carryFrom !== undefined && e.facts !== undefined && samePeers(input.carryFrom, e.facts.sameFunction, peers) && stillPlaced(e);
    if (reach === null && carriedPlace) {
      carried++;
      return { ...e, relatedIds };
    }
    const own = reach?.[i];
    // Note: an envelope taken whole brings its site's facts (its sites may have none at hand: they were not read back).
    const takenFacts = carriedPlace ? siteFactsOf(e.facts!) : null;
    const base = withBuilds(takenFacts ?? recordFacts(site, placeFacts(layout, e.record.filePath, site), fnKey === null ? [] : idsOf(fnKey).filter((id) => id !== e.record.id), otherSites(e)), featuresOf(layout, e.record.filePath));
    // Note: code no build compiles, or a constant of a non-generic item (evaluated when the crate is built), has no way in from a user's call.
    const noWayIn = base.neverCompiled === true || (base.compileTime === true && e.record.errorType === "panic" && !inGeneric(base));
    // Note: with the index, the callers are those it resolves, not the file's name matches.
    const shared = (byText.get(e.record.errorMessage) ?? 1) - 1;
    const facts: RecordFacts = withShared(own === undefined ? base : { ...base, callers: own.callers, ...(own.receiverReturns === undefined ? {} : { receiverReturns: own.receiverReturns }), ...(own.receiverMethod === undefined ? {} : { receiverMethod: own.receiverMethod }), ...(own.receiverField === undefined ? {} : { receiverField: own.receiverField }), ...(own.receiverOutsideRepo === undefined ? {} : { receiverOutsideRepo: own.receiverOutsideRepo }), ...(own.fallible === undefined ? {} : { fallible: own.fallible.map(([a, b]) => [a, b] as [string, string]) }), ...(own.privateFields === undefined ? {} : { privateFields: [...own.privateFields] }), ...(own.madeIn === undefined ? {} : { madeIn: own.madeIn }), ...(own.privateCalls === undefined ? {} : { privateCalls: own.privateCalls }), ...(own.forwards === undefined ? {} : { forwards: own.forwards }), ...(own.panickedWith === undefined ? {} : { panickedWith: own.panickedWith }), entryPoints: noWayIn ? [] : own.entryPoints, docs: own.docs }, shared);
    // Note: the keys in one order whatever the envelope came with (taken whole, it holds facts already): reproductions, then facts and related ids.
    // Note: an envelope taken whole whose facts and tests are what the index now gives keeps them as they are (its line is then taken as it was: `unchangedLines`).
    if (own !== undefined && own.example === null && carriedPlace && sameJson(e.facts, facts) && sameJson(e.reproductions ?? [], own.reproductions)) {
      carried++;
      return { ...e, relatedIds };
    }
    const withTests: Envelope = own === undefined ? e : { record: e.record, occurrences: e.occurrences, datasetVersion: e.datasetVersion, reproductions: own.reproductions };
    // Note: an example fix quotes a test's body, which the facts do not hold: such a record is analysed again.
    const kept = input.carryFrom === undefined || own?.example != null || !sameJson(input.carryFrom.get(e.record.id)?.reproductions ?? [], own?.reproductions ?? []) ? null : carriedFields(input.carryFrom, e, facts, peers);
    if (kept === null) return analyzeEnvelope(withTests, facts, peers, relatedIds, own);
    carried++;
    return withAnalysis(withTests, kept, facts, relatedIds);
  });
  return { envelopes, carried };
}

/** `facts` with `sharedText`: how many other records of the version print the same text (absent for none). */
function withShared(facts: RecordFacts, shared: number): RecordFacts {
  const { sharedText: _s, ...rest } = facts;
  return shared > 0 ? { ...rest, sharedText: shared } : rest;
}

/** A record's facts without what the symbol index adds (entry points and docs). */
function siteFactsOf(facts: RecordFacts): RecordFacts {
  const { entryPoints: _e, docs: _d, receiverReturns: _r, receiverMethod: _rm, receiverField: _rf, receiverOutsideRepo: _ro, fallible: _fa, privateFields: _pf, madeIn: _m, privateCalls: _p, forwards: _f, panickedWith: _w, ...rest } = facts;
  return rest;
}

/**
 * The analysis fields of `e`'s previous version when they were computed from the same inputs as
 * `e`'s would be (`analysisFields` is a function of these alone), else null.
 */
function carriedFields(previous: ReadonlyMap<string, Envelope>, e: Envelope, facts: RecordFacts, peers: readonly Peer[]): AnalysisFields | null {
  const before = previous.get(e.record.id);
  if (before?.facts === undefined) return null;
  const [a, b] = [before.record, e.record];
  if (a.filePath !== b.filePath || a.lineNumber !== b.lineNumber || a.errorMessage !== b.errorMessage || before.occurrences[0]?.kind !== e.occurrences[0]!.kind) return null;
  if (!sameJson(before.facts, facts) || !samePeers(previous, before.facts.sameFunction, peers)) return null;
  const fields: Record<string, unknown> = {};
  for (const key of ANALYSIS_FIELDS) fields[key] = a[key];
  return fields as unknown as AnalysisFields;
}

/**
 * True when `peers` are the records a previous version's record was analysed with: the records
 * of its facts' `sameFunction`, in line order (then id order, the dataset's), with their messages.
 */
function samePeers(previous: ReadonlyMap<string, Envelope>, sameFunction: readonly string[], peers: readonly Peer[]): boolean {
  if (sameFunction.length !== peers.length) return false;
  const peerEnvelopes = sameFunction.map((id) => previous.get(id));
  if (peerEnvelopes.some((p) => p === undefined)) return false;
  const before = (peerEnvelopes as Envelope[])
    .sort((x, y) => x.record.lineNumber - y.record.lineNumber || (x.record.id < y.record.id ? -1 : x.record.id > y.record.id ? 1 : 0))
    .map((p): Peer => ({ id: p.record.id, message: p.record.errorMessage }));
  return before.every((p, k) => p.id === peers[k]!.id && p.message === peers[k]!.message);
}

/**
 * Equality of JSON values: objects key by key in any order, a key holding undefined as absent
 * (as JSON text would have it). Note: facts read back from a dataset are compared with fresh ones.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let defined = 0;
  for (const key in x) {
    if (x[key] === undefined) continue;
    defined++;
    if (!sameJson(x[key], y[key])) return false;
  }
  for (const key in y) if (y[key] !== undefined) defined--;
  return defined === 0;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Each record keeps the previous version's `analyzedAt` and `contentChangedAt` when its analysed
 * content (build's `sameContent`) did not change, and gets `now` for both when it did. Pure.
 * Note: build compares before the fields are filled; the comparison that counts is this one.
 */
export function keepTimes(envelopes: readonly Envelope[], previous: ReadonlyMap<string, Envelope> | undefined, now: string): Envelope[] {
  return envelopes.map((e) => {
    const before = previous?.get(e.record.id);
    if (before === undefined) return e;
    // Note: the previous envelope taken whole, its analysis kept (its facts are that very object): the same content and times.
    if (e.facts === before.facts) return e;
    const same = sameContent(before.record, e.record);
    const times = same ? { analyzedAt: before.record.analyzedAt, contentChangedAt: before.record.contentChangedAt } : { analyzedAt: now, contentChangedAt: now };
    return { ...e, record: { ...e.record, ...times } };
  });
}

/**
 * For a record, the `count` other records of its file nearest to its line (then lowest index
 * first), leaving out those `skip` names; from an index of each file's records by line.
 * Note: the lines nearest a record are found by walking out from its own line in both directions,
 *   so a record costs the records it passes, not its file's.
 */
function nearestInFile(envelopes: readonly Envelope[]): (i: number, count: number, skip: (j: number) => boolean) => number[] {
  // Each file's distinct lines, ascending, with the records on each line in index order.
  const files = new Map<string, { lines: number[]; groups: number[][] }>();
  const groupOf = new Int32Array(envelopes.length);
  const byFile = new Map<string, number[]>();
  // Note: by error type and file: a record's nearest are of its own error type.
  const fileOf = (e: Envelope) => `${e.record.errorType}\0${e.record.filePath}`;
  envelopes.forEach((e, i) => push(byFile, fileOf(e), i));
  for (const [file, list] of byFile) {
    const lines: number[] = [];
    const groups: number[][] = [];
    for (const j of list.sort((a, b) => envelopes[a]!.record.lineNumber - envelopes[b]!.record.lineNumber)) {
      const line = envelopes[j]!.record.lineNumber;
      if (lines.at(-1) !== line) {
        lines.push(line);
        groups.push([]);
      }
      groups.at(-1)!.push(j);
      groupOf[j] = groups.length - 1;
    }
    files.set(file, { lines, groups });
  }
  return (i, count, skip) => {
    const { lines, groups } = files.get(fileOf(envelopes[i]!))!;
    const line = envelopes[i]!.record.lineNumber;
    const out: number[] = [];
    /** Takes from the records of one or two groups at the same distance, in index order. */
    const take = (a: readonly number[], b: readonly number[]) => {
      let [x, y] = [0, 0];
      while (out.length < count && (x < a.length || y < b.length)) {
        const j = y >= b.length || (x < a.length && a[x]! < b[y]!) ? a[x++]! : b[y++]!;
        if (j !== i && !skip(j)) out.push(j);
      }
    };
    const g = groupOf[i]!;
    take(groups[g]!, []);
    let [lo, hi] = [g - 1, g + 1];
    while (out.length < count && (lo >= 0 || hi < lines.length)) {
      const below = lo >= 0 ? line - lines[lo]! : Infinity;
      const above = hi < lines.length ? lines[hi]! - line : Infinity;
      if (below < above) take(groups[lo--]!, []);
      else if (above < below) take(groups[hi++]!, []);
      else take(groups[lo--]!, groups[hi++]!);
    }
    return out;
  };
}

/**
 * Ranks the other messages of the same group by shared words (weighted by rarity in the group),
 * best first, ties by index.
 * Note: an inverted index over words seen in at most 50 messages keeps this linear in practice.
 */
function similarity(messages: readonly string[], groups: readonly string[]): (i: number) => number[] {
  const words = messages.map((m, i) => [...new Set((m.toLowerCase().match(/[a-z][a-z0-9_]{2,}/g) ?? []).filter((w) => !COMMON_WORDS.has(w)))].map((w) => `${groups[i]}\0${w}`));
  const postings = new Map<string, number[]>();
  words.forEach((ws, i) => ws.forEach((w) => push(postings, w, i)));
  // Note: one array of scores serves every record (only the entries a record touched are reset),
  //   and the best are kept as they come: no map and no sort per record.
  const score = new Float64Array(messages.length);
  const touched: number[] = [];
  return (i) => {
    for (const w of words[i]!) {
      const list = postings.get(w)!;
      if (list.length > 50) continue;
      for (const j of list) {
        if (j === i) continue;
        if (score[j] === 0) touched.push(j);
        score[j]! += 1 / list.length;
      }
    }
    const best: number[] = [];
    for (const j of touched) {
      let at = best.length;
      while (at > 0 && (score[best[at - 1]!]! < score[j]! || (score[best[at - 1]!] === score[j] && best[at - 1]! > j))) at--;
      if (at < RELATED) best.splice(at, 0, j);
      if (best.length > RELATED) best.pop();
    }
    for (const j of touched) score[j] = 0;
    touched.length = 0;
    return best;
  };
}
