/**
 * Every pattern of a fixture dataset (all records built from fixtures/extract/*.rs and
 * fixtures/runtime/panics.rs) compiles, with and without the `u` flag, and fails in linear time
 * on 100 KB adversarial inputs made from its own pieces: the literal runs repeated without the
 * last one, the literals separated by long white-space runs, and near-misses of the full message.
 *
 * Note: the outcome is what is asserted. Time is measured only for a generous guard (2 s per
 *   input on 100 KB): a linear pattern needs a few milliseconds, catastrophic backtracking
 *   needs minutes or more, so the guard trips only on the latter and never on a slow machine.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { buildEnvelopes, groupSites } from "../pipeline/build.js";
import { extractFile } from "../pipeline/extract.js";
import { composePattern } from "../pipeline/message.js";
import type { MessagePart, Site } from "../pipeline/types.js";
import { fixture } from "./helpers/git.js";

const SIZE = 100 * 1024;
const GUARD_MS = 2000;

/** The sites with a record, from every fixture file. */
async function fixtureSites(): Promise<{ sites: Site[]; texts: Map<string, string> }> {
  const files = [
    ...readdirSync(fixture("extract")).filter((f) => f.endsWith(".rs")).map((f) => path.join(fixture("extract"), f)),
    fixture("runtime", "panics.rs"),
  ];
  const texts = new Map<string, string>();
  const sites: Site[] = [];
  for (const file of files) {
    const rel = path.relative(fixture(), file);
    const text = readFileSync(file, "utf8");
    texts.set(rel, text);
    sites.push(...(await extractFile({ path: rel, blob: "0".repeat(40), text })).sites.filter((s) => s.runtime !== null));
  }
  return { sites, texts };
}

/** The runs of text between holes: each a list of literals that gaps (any white space) separate. */
function unitsOf(parts: readonly MessagePart[]): string[][] {
  const units: string[][] = [[]];
  for (const p of parts) {
    if ("wild" in p) units.push([]);
    else if ("lit" in p) units.at(-1)!.push(p.lit);
  }
  return units.filter((u) => u.length > 0);
}

const escape = (s: string) => s.replace(/[\\^$.|?*+()[\]{}/]/g, "\\$&");
/** A regex for one unit alone: literals with `\s*` between, as composePattern joins them. */
const unitRegex = (unit: readonly string[]) => new RegExp(unit.map(escape).join("\\s*"));

/** `seed` repeated (and cut) to exactly SIZE characters. */
const fill = (seed: string) => (seed === "" ? " ".repeat(SIZE) : seed.repeat(Math.ceil(SIZE / seed.length)).slice(0, SIZE));

/** The adversarial inputs of one pattern, by name. */
function adversarial(units: readonly (readonly string[])[]): Record<string, string> {
  const all = units.flat();
  const butLast = units.slice(0, -1);
  const lastUnit = units.at(-1)!;
  const lastLit = lastUnit.at(-1)!;
  const nearMiss = lastLit.slice(0, -1) + (lastLit.endsWith("\u0001") ? "\u0002" : "\u0001");
  const wsRuns = " \t\n".repeat(SIZE / 3 / Math.max(1, all.length) / 4);
  return {
    // Every run but the last, again and again: each unit keeps finding a next occurrence.
    "repeated pieces without the last": fill(butLast.map((u) => u.join(" ")).join("") + lastUnit.slice(0, -1).join(" ")),
    // The same with a hole's worth of text between runs.
    "pieces and holes without the last": fill(butLast.map((u) => u.join(" ") + "x").join("") + lastUnit.slice(0, -1).join(" ")),
    // Every literal separated by long white space (the gaps' `\s*`), the last literal missing.
    "long white-space runs": fill(all.slice(0, -1).join(wsRuns) + wsRuns),
    // The whole message with its last character changed, repeated.
    "near-miss of the full message": fill(units.map((u) => u.join(" ")).join("x").slice(0, -lastLit.length) + nearMiss + "\n"),
    // Pure white space, and the first literal's first character over and over.
    "white space only": " ".repeat(SIZE / 2) + "\n".repeat(SIZE / 2),
    "first character repeated": fill(all[0]!.slice(0, 1)),
  };
}

const { sites, texts } = await fixtureSites();

describe("pattern safety", () => {
  const envelopes = buildEnvelopes({ repo: "fixture/safety", sha: "0".repeat(40), contextLines: 1, groups: groupSites(sites), textOf: (p) => texts.get(p) ?? "", now: "2026-01-01T00:00:00.000Z" });
  const partsOf = new Map(sites.map((s) => [composePattern(s.runtime!), s.runtime!]));

  it("has a dataset worth checking", () => {
    assert.ok(envelopes.length >= 80, `only ${envelopes.length} records`);
    assert.ok(envelopes.some((e) => e.record.messagePattern.startsWith("^")), "no multi-hole pattern");
    assert.ok(envelopes.some((e) => e.record.messagePattern.includes("\\s*")), "no pattern with gaps");
  });

  it("compiles every pattern, with and without the u flag", () => {
    for (const { record } of envelopes) {
      assert.doesNotThrow(() => new RegExp(record.messagePattern), record.messagePattern);
      assert.doesNotThrow(() => new RegExp(record.messagePattern, "u"), record.messagePattern);
      assert.ok(partsOf.has(record.messagePattern), `no parts for ${record.messagePattern}`);
    }
  });

  it("fails on 100 KB adversarial inputs without catastrophic backtracking", () => {
    let asserted = 0;
    let runs = 0;
    for (const { record } of envelopes) {
      const units = unitsOf(partsOf.get(record.messagePattern)!);
      const last = unitRegex(units.at(-1)!);
      for (const [name, input] of Object.entries(adversarial(units))) {
        assert.equal(input.length >= SIZE - 1, true, `${name} is only ${input.length} characters`);
        for (const flags of ["", "u"]) {
          const re = new RegExp(record.messagePattern, flags);
          const start = performance.now();
          const matched = re.test(input);
          const ms = performance.now() - start;
          runs++;
          assert.ok(ms < GUARD_MS, `/${record.messagePattern}/${flags} took ${ms.toFixed(0)} ms on "${name}"`);
          // Every match holds the last run of literals; where the input lacks it, the pattern must fail.
          if (!last.test(input)) {
            assert.equal(matched, false, `/${record.messagePattern}/ matched "${name}"`);
            asserted++;
          }
        }
      }
    }
    // Nearly every input lacks its pattern's last run: the outcome is checked, not just the time.
    assert.ok(asserted >= runs * 0.9, `outcome checked on only ${asserted} of ${runs} runs`);
  });
});
