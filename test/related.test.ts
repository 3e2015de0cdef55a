/**
 * Related ids and same-function records on generated files, against a reference that ranks every
 * record of a file for every record (the plain reading of the rule): the same ids in the same
 * order. The files are made to tie: several panics on one line, records at the same distance
 * above and below, messages sharing words.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeEnvelopes, COMMON_WORDS } from "../pipeline/analyze/index.js";
import { EMPTY_FACTS } from "../pipeline/analyze/fields.js";
import { buildEnvelopes, groupSites } from "../pipeline/build.js";
import { extractFile } from "../pipeline/extract.js";
import type { Envelope } from "../pipeline/schema-types.generated.js";
import type { Site } from "../pipeline/types.js";
import { random } from "./helpers/random.js";

const WORDS = ["shape", "rank", "index", "bounds", "dtype", "device", "kernel", "stride"];

/**
 * A Rust file of functions holding 0 to 4 panics each, some on one line, some at item level
 * (in a `const` initialiser, which has no function), with messages of two or three shared words.
 */
function generated(rand: () => number, file: number, functions: number): string {
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  let n = 0;
  const message = () => `${pick()} ${pick()}${rand() < 0.5 ? ` ${pick()}` : ""} f${file} m${n++}`;
  const out: string[] = [];
  for (let f = 0; f < functions; f++) {
    if (rand() < 0.1) {
      out.push(`const C${f}: () = panic!("${message()}");`);
      continue;
    }
    out.push(`pub fn f${f}(x: usize) {`);
    const panics = Math.floor(rand() * 5);
    for (let p = 0; p < panics; p++) {
      if (rand() < 0.3) out.push(`    if x == ${p} { panic!("${message()}") } else { panic!("${message()}") }`);
      else out.push(`    if x > ${p} {`, `        panic!("${message()}");`, "    }");
      for (let blank = Math.floor(rand() * 3); blank > 0; blank--) out.push("");
    }
    out.push("}", "");
  }
  return out.join("\n");
}

/** The related ids and same-function ids of each envelope, by a scan of all records per record. */
function reference(envelopes: readonly Envelope[], sites: readonly Site[]): Map<string, { related: string[]; sameFunction: string[] }> {
  const RELATED = 5;
  const factsOf = envelopes.map((e) => {
    const o = e.occurrences[0]!;
    return sites.find((s) => s.path === o.filePath && s.line === o.lineNumber && s.kind === o.kind && (s.message ?? "") === e.record.errorMessage)?.facts ?? EMPTY_FACTS;
  });
  const words = envelopes.map((e) => [...new Set((e.record.errorMessage.toLowerCase().match(/[a-z][a-z0-9_]{2,}/g) ?? []).filter((w) => !COMMON_WORDS.has(w)))]);
  const holders = (w: string) => words.filter((ws) => ws.includes(w)).length;
  const out = new Map<string, { related: string[]; sameFunction: string[] }>();
  envelopes.forEach((e, i) => {
    const fn = factsOf[i]!.function;
    const line = e.record.lineNumber;
    const all = envelopes.map((_, j) => j).filter((j) => j !== i);
    const same = fn === undefined ? [] : all.filter((j) => envelopes[j]!.record.filePath === e.record.filePath && factsOf[j]!.function?.line === fn.line).sort((a, b) => envelopes[a]!.record.lineNumber - envelopes[b]!.record.lineNumber || a - b);
    const related = [...same];
    const file = all
      .filter((j) => envelopes[j]!.record.filePath === e.record.filePath && !related.includes(j))
      .sort((a, b) => Math.abs(envelopes[a]!.record.lineNumber - line) - Math.abs(envelopes[b]!.record.lineNumber - line) || a - b);
    related.push(...file.slice(0, RELATED));
    // Similar messages: shared words held by at most 50 messages, each weighing 1 / its holders, summed in the word order of `i`'s message.
    const score = (j: number) => words[i]!.reduce((s, w) => (words[j]!.includes(w) && holders(w) <= 50 ? s + 1 / holders(w) : s), 0);
    const similar = all.filter((j) => score(j) > 0).sort((a, b) => score(b) - score(a) || a - b);
    for (const j of similar.slice(0, RELATED)) if (related.length < RELATED && !related.includes(j)) related.push(j);
    out.set(e.record.id, { related: related.slice(0, RELATED).map((j) => envelopes[j]!.record.id), sameFunction: same.map((j) => envelopes[j]!.record.id).sort() });
  });
  return out;
}

describe("related ids", () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`are the reference's, in its order, on generated files (seed ${seed})`, async () => {
      const rand = random(seed);
      const texts = new Map<string, string>();
      for (let f = 0; f < 3; f++) texts.set(`crates/gen/src/f${f}.rs`, generated(rand, f, 20 + f * 15));
      const sites: Site[] = [];
      for (const [path, text] of texts) sites.push(...(await extractFile({ path, blob: path, text })).sites.filter((s) => s.runtime !== null));
      const built = buildEnvelopes({ repo: "fixture/related", sha: "0".repeat(40), contextLines: 2, groups: groupSites(sites), textOf: (p) => texts.get(p)!, now: "2026-01-01T00:00:00.000Z" });
      const envelopes = analyzeEnvelopes({ envelopes: built, sites });
      const want = reference(built, sites);
      assert.ok(envelopes.length > 60, `only ${envelopes.length} records`);
      // The ties the files are made for: two records on one line, and one with records at the same distance on both sides.
      const lines = envelopes.map((e) => `${e.record.filePath}:${e.record.lineNumber}`);
      assert.ok(new Set(lines).size < lines.length, "no two records on one line");
      const at = new Set(lines);
      assert.ok(
        envelopes.some((e) => [1, 2, 3, 4].some((d) => at.has(`${e.record.filePath}:${e.record.lineNumber - d}`) && at.has(`${e.record.filePath}:${e.record.lineNumber + d}`))),
        "no record with records at the same distance above and below",
      );
      assert.ok(envelopes.some((e) => !e.facts!.function), "no record outside a function");
      for (const e of envelopes) {
        assert.deepEqual(e.relatedIds, want.get(e.record.id)!.related, `related ids of ${e.record.filePath}:${e.record.lineNumber}`);
        assert.deepEqual(e.facts!.sameFunction, want.get(e.record.id)!.sameFunction, `same function of ${e.record.filePath}:${e.record.lineNumber}`);
      }
    });
  }
});
