/**
 * Every pattern of a fixture dataset (all records built from fixtures/extract/*.rs and
 * fixtures/runtime/panics.rs) compiles, with and without the `u` flag, and, anchored at both ends
 * as records are used, gives the right answer in linear time on 100 KB adversarial inputs made
 * from its own pieces: the literal runs repeated without the last one, the literals separated by
 * long white-space runs, near-misses of the full message, the last run everywhere but at the end,
 * a near-miss of the optional `: <Debug>` group, and whole messages whose holes hold long runs of
 * the text that follows them.
 *
 * Note: the outcome is what is asserted, from what the input is made of (an input lacking the
 *   last run, or not ending with it, cannot match; a message with its holes filled must). Time is
 *   measured only for a generous guard (2 s per input on 100 KB): a linear pattern needs a few
 *   milliseconds, catastrophic backtracking needs minutes or more, so the guard trips only on the
 *   latter and never on a slow machine.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { buildEnvelopes, groupSites } from "../pipeline/build.js";
import { extractFile } from "../pipeline/extract.js";
import { anchored, composePattern, normalizeParts } from "../pipeline/message.js";
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

/** A message's shape: its runs of text between holes (literals with gaps between), and what stands around them. */
interface Shape {
  readonly runs: string[][];
  readonly leadingHole: boolean;
  readonly trailingHole: boolean;
  /** The literal text of a final optional group, or null. */
  readonly optional: string | null;
}

function shapeOf(parts: readonly MessagePart[]): Shape {
  const norm = normalizeParts(parts);
  const last = norm.at(-1);
  const optional = last !== undefined && "optional" in last ? last.optional.flatMap((p) => ("lit" in p ? [p.lit] : [])).join("") : null;
  const body = optional === null ? norm : norm.slice(0, -1);
  const runs: string[][] = [[]];
  for (const p of body) {
    if ("wild" in p) runs.push([]);
    else if ("lit" in p) runs.at(-1)!.push(p.lit);
  }
  return { runs: runs.filter((u) => u.length > 0), leadingHole: body[0] !== undefined && "wild" in body[0], trailingHole: body.at(-1) !== undefined && "wild" in body.at(-1)!, optional };
}

const escape = (s: string) => s.replace(/[\\^$.|?*+()[\]{}/]/g, "\\$&");
/** A regex for one run alone: literals with `\s*` between. */
const runRegex = (run: readonly string[], flags = "") => new RegExp(run.map(escape).join("\\s*"), flags);

/** `seed` repeated (and cut) to exactly `size` characters. */
const fill = (seed: string, size = SIZE) => (seed === "" ? " ".repeat(size) : seed.repeat(Math.ceil(size / seed.length)).slice(0, size));

/** The adversarial inputs of one message, by name, each with the outcome it must give (null: only the time is checked here). */
function adversarial(shape: Shape): Record<string, { input: string; expected: boolean | null }> {
  const { runs } = shape;
  const all = runs.flat();
  const butLast = runs.slice(0, -1);
  const lastRun = runs.at(-1)!;
  const lastLit = lastRun.at(-1)!;
  const nearMiss = lastLit.slice(0, -1) + (lastLit.endsWith("\u0001") ? "\u0002" : "\u0001");
  const wsRuns = " \t\n".repeat(SIZE / 3 / Math.max(1, all.length) / 4);
  /** A whole message: runs joined by `hole` (and at the ends when the message has holes there). */
  const message = (hole: (k: number) => string) =>
    (shape.leadingHole ? hole(0) : "") + runs.map((r, k) => (k > 0 ? hole(k) : "") + r.join(" ")).join("") + (shape.trailingHole ? hole(runs.length) : "");
  const holes = runs.length - 1 + Number(shape.leadingHole) + Number(shape.trailingHole);
  /** A hole's filling: the run that follows it without its last character, again and again. */
  const decoy = (k: number) => fill(((runs[k] ?? lastRun).join(" ").slice(0, -1) || "x") + " ", Math.floor(SIZE / Math.max(1, holes)));
  const cases: Record<string, { input: string; expected: boolean | null }> = {
    // Every run but the last, again and again: each run keeps finding a next occurrence.
    "repeated pieces without the last": { input: fill(butLast.map((u) => u.join(" ")).join("") + lastRun.slice(0, -1).join(" ")), expected: null },
    // The same with a hole's worth of text between runs.
    "pieces and holes without the last": { input: fill(butLast.map((u) => u.join(" ") + "x").join("") + lastRun.slice(0, -1).join(" ")), expected: null },
    // Every literal separated by long white space (the gaps' `\s*`), the last literal missing.
    "long white-space runs": { input: fill(all.slice(0, -1).join(wsRuns) + wsRuns), expected: null },
    // The whole message with its last character changed, repeated.
    "near-miss of the full message": { input: fill(runs.map((u) => u.join(" ")).join("x").slice(0, -lastLit.length) + nearMiss + "\n"), expected: null },
    // Pure white space, and the first literal's first character over and over.
    "white space only": { input: " ".repeat(SIZE / 2) + "\n".repeat(SIZE / 2), expected: null },
    "first character repeated": { input: fill(all[0]!.slice(0, 1)), expected: null },
    // A whole message, then its last run again and again with one character after each: the
    // message ends elsewhere than after a last run, unless it ends with a hole.
    "last run everywhere but at the end": { input: message(() => "h") + fill(lastRun.join(" ") + "x"), expected: shape.trailingHole ? true : null },
    // A whole message, then `:` and a tab where the optional group wants `: `, and the last run again.
    "near-miss of the optional group": { input: message(() => "h") + fill(":\t" + lastRun.join(" ") + ":"), expected: shape.trailingHole ? true : null },
  };
  // A whole message whose holes hold long runs of what follows them, cut short: it must match.
  // Note: a gap is written as one space, which any gap allows.
  if (holes > 0) cases["holes full of decoys"] = { input: message(decoy), expected: true };
  return cases;
}

/**
 * Whether `input` is certainly no whole message of this shape: it lacks the last run, or the
 * message ends with that run and the input neither ends with it nor (with an optional group) has
 * it followed by the group's text.
 */
function cannotMatch(shape: Shape, last: readonly string[], input: string): boolean {
  const run = runRegex(last).source;
  if (!new RegExp(run).test(input)) return true;
  if (shape.trailingHole) return false;
  if (new RegExp(`(?:${run})$`).test(input)) return false;
  return shape.optional === null || !new RegExp(`(?:${run})${escape(shape.optional)}`).test(input);
}

const { sites, texts } = await fixtureSites();

describe("pattern safety", () => {
  const envelopes = buildEnvelopes({ repo: "fixture/safety", sha: "0".repeat(40), contextLines: 1, groups: groupSites(sites), textOf: (p) => texts.get(p) ?? "", now: "2026-01-01T00:00:00.000Z" });
  const partsOf = new Map(sites.map((s) => [composePattern(s.runtime!), s.runtime!]));

  it("has a dataset worth checking", () => {
    assert.ok(envelopes.length >= 120, `only ${envelopes.length} records`);
    const patterns = envelopes.map((e) => e.record.messagePattern);
    assert.ok(patterns.some((p) => p.includes("(?=(")), "no pattern with a middle run");
    assert.ok(patterns.some((p) => p.includes("\\s*")), "no pattern with gaps");
    assert.ok(patterns.some((p) => p.endsWith(")?")), "no pattern with an optional group");
    assert.ok(patterns.some((p) => /\[\\s\\S\]\*\?[^(]*$/.test(p)), "no pattern whose last run ends the message after a hole");
  });

  it("compiles every pattern, with and without the u flag", () => {
    for (const { record } of envelopes) {
      assert.doesNotThrow(() => anchored(record.messagePattern), record.messagePattern);
      assert.doesNotThrow(() => anchored(record.messagePattern, "u"), record.messagePattern);
      assert.ok(partsOf.has(record.messagePattern), `no parts for ${record.messagePattern}`);
    }
  });

  it("answers right on 100 KB adversarial inputs without catastrophic backtracking", () => {
    let asserted = 0;
    let runs = 0;
    for (const { record } of envelopes) {
      const shape = shapeOf(partsOf.get(record.messagePattern)!);
      const last = shape.runs.at(-1)!;
      for (const [name, { input, expected }] of Object.entries(adversarial(shape))) {
        assert.equal(input.length >= SIZE - 1, true, `${name} is only ${input.length} characters`);
        for (const flags of ["", "u"]) {
          const re = anchored(record.messagePattern, flags);
          const start = performance.now();
          const matched = re.test(input);
          const ms = performance.now() - start;
          runs++;
          assert.ok(ms < GUARD_MS, `/${record.messagePattern}/${flags} took ${ms.toFixed(0)} ms on "${name}"`);
          const must = expected ?? (cannotMatch(shape, last, input) ? false : null);
          if (must !== null) {
            assert.equal(matched, must, `/${record.messagePattern}/ on "${name}"`);
            asserted++;
          }
        }
      }
    }
    // Nearly every input has a known outcome: the answer is checked, not just the time.
    assert.ok(asserted >= runs * 0.9, `outcome checked on only ${asserted} of ${runs} runs`);
  });
});
