/**
 * `pin`: moves one target's SHA in config.json and changes nothing else in the file; refs are
 * resolved with `git ls-remote` against a fixture repository used as the target's url.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { packageRoot } from "../pipeline/paths.js";
import { pin, replaceSha } from "../pipeline/pin.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const history = makeRepo([fixture("history", "1"), fixture("history", "2"), fixture("history", "3")]);
const [SHA1, SHA2, SHA3] = history.shas as [string, string, string];
const git = (...args: string[]) => execFileSync("git", ["-C", history.dir, ...args], { encoding: "utf8" });
git("tag", "v1", SHA1);
git("-c", "user.name=Fixture", "-c", "user.email=fixture@example.com", "tag", "-a", "-m", "annotated", "v2", SHA2);
git("branch", "release", SHA2);

const OTHER = "0123456789abcdef0123456789abcdef01234567";

/** A config in an unusual but valid layout: odd spacing, keys out of the usual order, two targets. */
function configText(first: string): string {
  return [
    "{",
    '    "output" : "out",',
    '  "targets": [',
    `    { "sha":"${first}", "repo": "example/history", "url": ${JSON.stringify(history.dir)},`,
    '      "include": ["**/*.rs"], "exclude": [] },',
    "    {",
    '      "repo": "example/other",',
    `      "url": ${JSON.stringify(history.dir)},`,
    `      "sha"   :   "${OTHER}"`,
    "    }",
    "  ]",
    "}",
  ].join("\r\n");
}

function writeConfig(first: string): string {
  const file = path.join(tempDir("error-catalog-pin-"), "config.json");
  writeFileSync(file, configText(first));
  return file;
}

describe("pin", () => {
  test("--sha rewrites only that target's 40 characters", async () => {
    const file = writeConfig(SHA1);
    const result = await pin({ configPath: file, sha: SHA3 });
    assert.deepEqual(result, { repo: "example/history", previous: SHA1, sha: SHA3, changed: true });
    assert.equal(readFileSync(file, "utf8"), configText(SHA3));
  });

  test("--target picks another target", async () => {
    const file = writeConfig(SHA1);
    await pin({ configPath: file, target: "example/other", sha: SHA2 });
    assert.equal(readFileSync(file, "utf8"), configText(SHA1).replace(OTHER, SHA2));
  });

  test("--ref resolves a branch, a lightweight tag and an annotated tag (peeled to its commit)", async () => {
    const file = writeConfig(SHA3);
    assert.equal((await pin({ configPath: file, ref: "v1" })).sha, SHA1);
    assert.equal((await pin({ configPath: file, ref: "v2" })).sha, SHA2);
    assert.equal((await pin({ configPath: file, ref: "main" })).sha, SHA3);
    assert.equal((await pin({ configPath: file, ref: "refs/heads/release" })).sha, SHA2);
    assert.equal(readFileSync(file, "utf8"), configText(SHA2));
  });

  test("pinning the SHA already pinned leaves the file alone", async () => {
    const file = writeConfig(SHA1);
    const result = await pin({ configPath: file, ref: "v1" });
    assert.equal(result.changed, false);
    assert.equal(readFileSync(file, "utf8"), configText(SHA1));
  });

  test("bad input: an unknown ref, both or neither of --sha and --ref, a short SHA", async () => {
    const file = writeConfig(SHA1);
    await assert.rejects(pin({ configPath: file, ref: "v9" }), { code: "E_INPUT", message: `${history.dir} has no branch or tag v9` });
    await assert.rejects(pin({ configPath: file, ref: "v1", sha: SHA2 }), { code: "E_USAGE" });
    await assert.rejects(pin({ configPath: file }), { code: "E_USAGE" });
    await assert.rejects(pin({ configPath: file, sha: SHA2.slice(0, 12) }), { code: "E_USAGE" });
    assert.equal(readFileSync(file, "utf8"), configText(SHA1));
  });

  test("replaceSha finds the n-th target's sha in document order", () => {
    const text = '{"targets":[{"sha":"' + "a".repeat(40) + '"},{"sha" : "' + "b".repeat(40) + '"}]}';
    assert.equal(replaceSha(text, 1, "c".repeat(40)), text.replace("b".repeat(40), "c".repeat(40)));
    assert.equal(replaceSha(text, 2, "c".repeat(40)), null);
  });

  test("the CLI prints what it did; an unknown ref is exit 2", () => {
    const file = writeConfig(SHA1);
    const bin = path.join(packageRoot(), "bin", "error-catalog.js");
    const ok = spawnSync(process.execPath, [bin, "pin", "--config", file, "--ref", "v2"], { encoding: "utf8" });
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stdout, `example/history: pinned ${SHA2} (was ${SHA1}) in ${file}\n`);
    const bad = spawnSync(process.execPath, [bin, "pin", "--config", file, "--ref", "nope"], { encoding: "utf8" });
    assert.equal(bad.status, 2);
  });
});
