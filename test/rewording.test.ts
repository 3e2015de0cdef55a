/**
 * Rewordings on generated datasets, against a reference that weighs every removed and added pair
 * of a file (the plain reading of the rule): the same pairs, similarities, added and removed.
 * The files are made so that pairs are found both ways: through lines few excerpts hold, and
 * between excerpts made mostly of lines that many hold (`}`, `};`).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diffDatasets, messageSimilarity, REWORD_MIN_PLACE, REWORD_MIN_SIMILARITY } from "../pipeline/diff.js";
import type { DiffReworded, Envelope, Manifest } from "../pipeline/schema-types.generated.js";
import { random } from "./helpers/random.js";

const CONTEXT = 3;

/** An envelope as diff reads it: id, message, place and excerpt. */
function envelope(id: string, message: string, file: string, lines: readonly string[], line: number): Envelope {
  const start = Math.max(1, line - CONTEXT);
  const end = Math.min(lines.length, line + CONTEXT);
  const record = { id, errorMessage: message, messagePattern: message, filePath: file, lineNumber: line, sourceCode: lines.slice(start - 1, end).join("\n"), sourceCodeStart: start, sourceCodeEnd: end, githubUrl: `https://example.com/${file}#L${line}` };
  return { record, occurrences: [{ filePath: file, lineNumber: line, githubUrl: record.githubUrl, kind: "panic", context: "library" }], datasetVersion: "" } as unknown as Envelope;
}

/**
 * Two versions of two files: the new one has lines put in here and there, and each record is
 * kept in place, reworded (a word changed), or replaced by an unrelated message.
 */
function versions(rand: () => number): { old: Envelope[]; new: Envelope[] } {
  const words = ["shape", "rank", "index", "bounds", "device", "kernel", "stride", "layout"];
  const pick = () => words[Math.floor(rand() * words.length)]!;
  const old: Envelope[] = [];
  const now: Envelope[] = [];
  let id = 0;
  const nextId = () => (id++).toString(16).padStart(16, "0");
  for (const [file, count] of [["src/big.rs", 400], ["src/small.rs", 30]] as const) {
    // Lines 100–199 are braces (lines many excerpts hold); the others are mostly lines of their own.
    const before = Array.from({ length: count }, (_, k) => (k >= 100 && k < 200 ? (k % 3 === 0 ? "};" : "}") : rand() < 0.2 ? "}" : `let v${k} = x${k % 53};`));
    const after: string[] = [];
    const moved: number[] = [];
    before.forEach((l, k) => {
      if (rand() < 0.03) after.push(`// note ${k}`);
      moved.push(after.length + 1);
      after.push(l);
    });
    for (let line = 3; line <= count; line += 1 + Math.floor(rand() * 3)) {
      const message = `${pick()} ${pick()} is out of ${pick()} for ${pick()} ${line}`;
      old.push(envelope(nextId(), message, file, before, line));
      const fate = rand();
      if (fate < 0.5) now.push(envelope(nextId(), message.replace(/^\w+/, pick()), file, after, moved[line - 1]!));
      else if (fate < 0.8) now.push(envelope(nextId(), `${pick()} ${pick()} ${pick()} ${pick()} ${pick()}`, file, after, moved[line - 1]!));
    }
  }
  return { old, new: now };
}

/** The pairs the rule gives when every removed and added pair of a file is weighed. */
function reference(removed: readonly Envelope[], added: readonly Envelope[]): DiffReworded[] {
  const textOf = (e: Envelope) => (e.record.errorMessage !== "" ? e.record.errorMessage : e.record.messagePattern);
  const linesOf = (e: Envelope) => {
    const lines = e.record.sourceCode.split("\n");
    lines.splice(e.record.lineNumber - e.record.sourceCodeStart, 1);
    return lines.map((l) => l.trim()).filter((l) => l !== "");
  };
  const place = (a: Envelope, b: Envelope) => {
    const [x, y] = [linesOf(a), [...linesOf(b)]];
    const longest = Math.max(x.length, y.length);
    if (longest === 0) return 1;
    let common = 0;
    for (const l of x) {
      const k = y.indexOf(l);
      if (k >= 0) (y.splice(k, 1), common++);
    }
    return common / longest;
  };
  const candidates = removed.flatMap((a) =>
    added
      .filter((b) => b.record.filePath === a.record.filePath)
      .map((b) => ({ a, b, similarity: messageSimilarity(textOf(a), textOf(b)), place: place(a, b), distance: Math.abs(a.record.lineNumber - b.record.lineNumber) }))
      .filter((c) => c.similarity >= REWORD_MIN_SIMILARITY && c.place >= REWORD_MIN_PLACE),
  );
  const order = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  candidates.sort((x, y) => y.similarity - x.similarity || y.place - x.place || x.distance - y.distance || order(x.a.record.id, y.a.record.id) || order(x.b.record.id, y.b.record.id));
  const used = new Set<string>();
  const pairs: DiffReworded[] = [];
  for (const c of candidates) {
    if (used.has(c.a.record.id) || used.has(c.b.record.id)) continue;
    used.add(c.a.record.id).add(c.b.record.id);
    const ref = (e: Envelope) => ({ id: e.record.id, errorMessage: e.record.errorMessage, messagePattern: e.record.messagePattern, kind: e.occurrences[0]!.kind, filePath: e.record.filePath, lineNumber: e.record.lineNumber, githubUrl: e.record.githubUrl, occurrences: 1 });
    pairs.push({ old: ref(c.a), new: ref(c.b), similarity: Math.round(c.similarity * 1000) / 1000 });
  }
  return pairs.sort((x, y) => order(x.old.id, y.old.id));
}

describe("rewordings", () => {
  for (const seed of [1, 2, 3]) {
    it(`are the reference's on generated versions (seed ${seed})`, () => {
      const v = versions(random(seed));
      const manifest = (sha: string) => ({ repo: "example/gen", sha }) as Manifest;
      const diff = diffDatasets({ old: { manifest: manifest("1".repeat(40)), envelopes: v.old, version: "0001" }, new: { manifest: manifest("2".repeat(40)), envelopes: v.new, version: "0002" } });
      const want = reference(v.old, v.new);
      assert.deepEqual(diff.reworded, want);
      const paired = new Set(want.flatMap((p) => [p.old.id, p.new.id]));
      assert.deepEqual(
        diff.removed.map((r) => r.id),
        v.old.flatMap((e) => (paired.has(e.record.id) ? [] : [e.record.id])),
      );
      assert.deepEqual(
        diff.added.map((r) => r.id),
        v.new.flatMap((e) => (paired.has(e.record.id) ? [] : [e.record.id])),
      );
      assert.ok(want.length > 50, `only ${want.length} rewordings`);
      // The pairs the files are made for: excerpts of braces only, alike though no line of theirs is rare.
      const braces = (id: string) => v.old.concat(v.new).find((e) => e.record.id === id)!.record.sourceCode.split("\n").every((l) => l === "}" || l === "};");
      assert.ok(want.some((p) => braces(p.old.id) && braces(p.new.id)), "no pair of excerpts made of braces");
    });
  }
});
