/**
 * Stage 5, analyze: fills the explanation fields of every record from the facts its site's syntax
 * tree proves (gathered at extraction by `siteFacts`), adds `facts` and `relatedIds` to each
 * envelope. Pure: envelopes and sites in, new envelopes out. `analyzeStage` (stage.ts) wires it
 * with the optional language model and the carried-over times.
 */
import { sameContent } from "../build.js";
import type { Envelope, RecordFacts } from "../schema-types.generated.js";
import type { Site } from "../types.js";
import { analyzeEnvelope, EMPTY_FACTS, type Peer, recordFacts } from "./fields.js";

export { analysisFields, analyzeEnvelope, crateAndModule, describeCondition, type AnalysisFields } from "./fields.js";
export { generateGuards, type Guards } from "./guard.js";

/** What the static analysis needs: the built envelopes and the sites they were built from. */
export interface AnalyzeInput {
  /** The envelopes of the dataset, as build made them. */
  readonly envelopes: readonly Envelope[];
  /** The catalogued sites (those build made the envelopes from). */
  readonly sites: readonly Site[];
}

/** Most related ids an envelope lists. */
const RELATED = 5;

/** Words that say nothing about what a message is about. */
const COMMON = new Set(["the", "and", "for", "not", "with", "should", "must", "can", "cannot", "are", "was", "has", "have", "this", "that", "from", "got", "but", "only", "supported", "tensor", "tensors"]);

/**
 * The analysed envelopes, in the input order. The facts of a record are those of its first
 * occurrence (the record's location); records of sites without facts get empty facts.
 */
export function analyzeEnvelopes(input: AnalyzeInput): Envelope[] {
  const siteAt = new Map<string, Site>();
  for (const s of input.sites) {
    const key = `${s.path}\0${s.line}\0${s.kind}\0${s.message ?? ""}`;
    if (!siteAt.has(key)) siteAt.set(key, s);
  }
  const factsOf = input.envelopes.map((e) => {
    const o = e.occurrences[0]!;
    return siteAt.get(`${o.filePath}\0${o.lineNumber}\0${o.kind}\0${e.record.errorMessage}`)?.facts ?? EMPTY_FACTS;
  });

  // Records by function (file + the function's line) and by file, for same-function facts and related ids.
  const byFunction = new Map<string, number[]>();
  const byFile = new Map<string, number[]>();
  input.envelopes.forEach((e, i) => {
    const fn = factsOf[i]!.function;
    if (fn !== undefined) push(byFunction, `${e.record.filePath}\0${fn.line}`, i);
    push(byFile, e.record.filePath, i);
  });
  const similar = similarity(input.envelopes.map((e) => e.record.errorMessage));

  return input.envelopes.map((e, i) => {
    const site = factsOf[i]!;
    const fnKey = site.function === undefined ? null : `${e.record.filePath}\0${site.function.line}`;
    const same = (fnKey === null ? [] : byFunction.get(fnKey)!).filter((j) => j !== i).sort((a, b) => input.envelopes[a]!.record.lineNumber - input.envelopes[b]!.record.lineNumber);
    const peers: Peer[] = same.map((j) => ({ id: input.envelopes[j]!.record.id, message: input.envelopes[j]!.record.errorMessage }));
    const facts: RecordFacts = recordFacts(e.record.filePath, site, peers.map((p) => p.id));
    const related: number[] = [...same];
    const line = e.record.lineNumber;
    const file = byFile.get(e.record.filePath)!.filter((j) => j !== i && !related.includes(j)).sort((a, b) => Math.abs(input.envelopes[a]!.record.lineNumber - line) - Math.abs(input.envelopes[b]!.record.lineNumber - line) || a - b);
    related.push(...file.slice(0, RELATED));
    for (const j of similar(i)) if (related.length < RELATED && !related.includes(j)) related.push(j);
    return analyzeEnvelope(e, facts, peers, related.slice(0, RELATED).map((j) => input.envelopes[j]!.record.id));
  });
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
    const same = sameContent(before.record, e.record);
    const times = same ? { analyzedAt: before.record.analyzedAt, contentChangedAt: before.record.contentChangedAt } : { analyzedAt: now, contentChangedAt: now };
    return { ...e, record: { ...e.record, ...times } };
  });
}

/**
 * Ranks the other messages by shared words (weighted by rarity), best first, ties by index.
 * Note: an inverted index over words seen in at most 50 messages keeps this linear in practice.
 */
function similarity(messages: readonly string[]): (i: number) => number[] {
  const words = messages.map((m) => [...new Set((m.toLowerCase().match(/[a-z][a-z0-9_]{2,}/g) ?? []).filter((w) => !COMMON.has(w)))]);
  const postings = new Map<string, number[]>();
  words.forEach((ws, i) => ws.forEach((w) => push(postings, w, i)));
  return (i) => {
    const score = new Map<number, number>();
    for (const w of words[i]!) {
      const list = postings.get(w)!;
      if (list.length > 50) continue;
      for (const j of list) if (j !== i) score.set(j, (score.get(j) ?? 0) + 1 / list.length);
    }
    return [...score].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, RELATED).map(([j]) => j);
  };
}
