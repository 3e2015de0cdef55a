/**
 * A version's parent is the nearest earlier version of its own history, whatever order the runs
 * came in; `diff` compares a version with its parent by default.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { diffVersions } from "../pipeline/commands/diff.js";
import { run } from "../pipeline/run.js";
import type { VersionsIndex } from "../pipeline/schema-types.generated.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

describe("the parent of a version", () => {
  const history = makeRepo([fixture("history", "1"), fixture("history", "2"), fixture("history", "3")]);
  const [C1, C2, C3] = history.shas as [string, string, string];

  test("is the nearest ancestor among the versions, not the one run last", async () => {
    const dir = tempDir("error-catalog-lineage-");
    const config = path.join(dir, "config.json");
    writeFileSync(config, JSON.stringify({ output: "out", cacheDir: "cache", targets: [{ repo: "example/history", url: history.dir, sha: C1 }] }));
    const index = () => JSON.parse(readFileSync(path.join(dir, "out", "example", "history", "versions.json"), "utf8")) as VersionsIndex;
    const at = (sha: string) => run({ configPath: config, sha, force: true });
    await at(C3);
    // An older commit after a newer one: no version is its ancestor.
    await at(C1);
    assert.deepEqual(index().versions.map((v) => [v.sha, v.parent]), [
      [C3, null],
      [C1, null],
    ]);
    // The diff of the newest version with its parent (none): everything in it is added, nothing shown backwards.
    const first = await diffVersions({ out: path.join(dir, "out"), repo: "example/history" });
    assert.equal(first.removed.length, 0);
    assert.ok(first.added.length > 0);
    // C2 descends from C1 (run second) and not from C3.
    await at(C2);
    assert.equal(index().versions[2]!.parent, index().versions[1]!.version);
    // C3 again: C2's version is nearer than C1's, and C3's own version is nearer still.
    await at(C3);
    assert.equal(index().versions[3]!.parent, index().versions[0]!.version);
    const manifest = JSON.parse(readFileSync(path.join(dir, "out", "example", "history", index().versions[2]!.version, "manifest.json"), "utf8")) as { parentSha: string };
    assert.equal(manifest.parentSha, C1);
    // The default diff is the newest with its parent, here two versions of one commit.
    const same = await diffVersions({ out: path.join(dir, "out"), repo: "example/history" });
    assert.deepEqual([same.old?.version, same.new.version], [index().versions[0]!.version, index().versions[3]!.version]);
  });

  test("a nearer ancestor run before a farther one is still the parent", async () => {
    const dir = tempDir("error-catalog-lineage-");
    const config = path.join(dir, "config.json");
    writeFileSync(config, JSON.stringify({ output: "out", cacheDir: "cache", targets: [{ repo: "example/history", url: history.dir, sha: C1 }] }));
    for (const sha of [C2, C1, C3]) await run({ configPath: config, sha, force: true });
    const index = JSON.parse(readFileSync(path.join(dir, "out", "example", "history", "versions.json"), "utf8")) as VersionsIndex;
    // C1's version is the newest ancestor of C3 in run order, but C2 lies between them.
    assert.deepEqual(index.versions.map((v) => v.parent), [null, null, index.versions[0]!.version]);
  });
});
