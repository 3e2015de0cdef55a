/**
 * Sites without text of their own (`panic!()`, `todo!()`, `assert_eq!(a, b)`, `panic!("{}", e)`)
 * have records keyed by the place they stand: the file and the items around them, not the line.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildEnvelopes, groupSites, recordKey } from "../pipeline/build.js";
import { extractFile } from "../pipeline/extract.js";

const SOURCE = `pub fn top(v: u32) {
    if v == 0 {
        panic!();
    }
}

mod inner {
    pub struct Bar;

    impl<T: Clone> From<Vec<T>> for Bar {
        fn from(v: Vec<T>) -> Self {
            assert_eq!(v.len(), 1);
            assert_eq!(v.len(), 1);
            Bar
        }
    }

    pub trait Shape {
        fn rank(&self) -> usize {
            todo!()
        }
    }

    impl Bar {
        pub fn explain(e: std::io::Error) {
            panic!("{}", e);
        }
    }
}
`;

async function records(text: string) {
  const { sites } = await extractFile({ path: "src/lib.rs", blob: "0".repeat(40), text });
  const groups = groupSites(sites.filter((s) => recordKey(s) !== null));
  return buildEnvelopes({ repo: "o/r", sha: "0".repeat(40), contextLines: 2, groups, textOf: () => text, now: "2026-01-01T00:00:00.000Z" });
}

describe("a site without text of its own", () => {
  it("has a record named by std's text, its pattern what Rust prints, its place the items around it", async () => {
    const { sites } = await extractFile({ path: "src/lib.rs", blob: "0".repeat(40), text: SOURCE });
    // Hand-written: each site's items, outermost first, and the functions around it.
    assert.deepEqual(
      sites.map((s) => [s.kind, s.line, s.owner, s.place?.message]),
      [
        ["panic", 3, "top", "explicit panic"],
        ["assert-eq", 12, "inner::Bar::from", "assertion `left == right` failed"],
        ["assert-eq", 13, "inner::Bar::from", "assertion `left == right` failed"],
        ["todo", 20, "inner::Shape::rank", "not yet implemented"],
        ["panic", 26, "inner::Bar::explain", "{}"],
      ],
    );
    const built = await records(SOURCE);
    const byMessage = new Map(built.map((e) => [e.record.errorMessage, e]));
    assert.equal(built.length, 4, "the two assert_eq! of one function are one record");
    assert.deepEqual(byMessage.get("assertion `left == right` failed")!.occurrences.map((o) => o.lineNumber), [12, 13]);
    const patterns = new Map(built.map((e) => [e.record.errorMessage, new RegExp(`^(?:${e.record.messagePattern})$`)]));
    assert.ok(patterns.get("explicit panic")!.test("explicit panic"));
    assert.ok(patterns.get("not yet implemented")!.test("not yet implemented"));
    assert.ok(patterns.get("assertion `left == right` failed")!.test("assertion `left == right` failed\n  left: 2\n right: 1"));
    assert.ok(patterns.get("{}")!.test("entity not found"));
  });

  it("an empty message and a message without words: a pattern all the same, and a slug of the kind and place", async () => {
    const built = await records(`pub fn quiet(k: u8) {\n    match k {\n        0 => panic!(""),\n        _ => panic!("{}", k),\n    }\n}\n`);
    const empty = built.find((e) => e.record.errorMessage === "")!;
    assert.ok(new RegExp(`^(?:${empty.record.messagePattern})$`).test(""));
    assert.ok(!new RegExp(`^(?:${empty.record.messagePattern})$`).test("x"));
    for (const e of built) assert.match(e.record.slug, /^panic-in-quiet-[0-9a-f]{6}$/);
  });

  it("keeps its id when lines move, and has another in another item", async () => {
    const before = await records(SOURCE);
    const moved = await records(`// a comment\n\n${SOURCE}`);
    assert.deepEqual(moved.map((e) => e.record.id), before.map((e) => e.record.id));
    assert.deepEqual(moved.map((e) => e.record.lineNumber), before.map((e) => e.record.lineNumber + 2));
    const renamed = await records(SOURCE.replace("fn rank", "fn dims"));
    const todo = (list: typeof before) => list.find((e) => e.record.errorMessage === "not yet implemented")!.record.id;
    assert.notEqual(todo(renamed), todo(before));
  });
});
