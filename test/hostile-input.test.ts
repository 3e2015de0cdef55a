/**
 * Input a user (or a config from elsewhere) can give that must do no harm: git transports that
 * run commands, repos that name folders outside the output, sources and folders that are not
 * what they should be, a missing config. Run as a user would: the CLI as a process, on real git
 * repositories in temp dirs, with a git config that allows every protocol (`GIT_CONFIG_GLOBAL`).
 */
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import { git, sourceProblem } from "../pipeline/git.js";
import { inside, packageRoot, SAFE_REPO } from "../pipeline/paths.js";
import { cli } from "./helpers/cli.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const repo = makeRepo([fixture("burnlike", "tree")]);
const sha = repo.shas[0]!;
const scratch = tempDir("error-catalog-hostile-");
after(() => {
  rmSync(repo.dir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/** A git config that allows every transport, `ext::` included, as a user's may. */
const permissive = path.join(scratch, "gitconfig");
writeFileSync(permissive, '[protocol]\n\tallow = always\n[protocol "ext"]\n\tallow = always\n');
const PERMISSIVE = { GIT_CONFIG_GLOBAL: permissive };

let made = 0;
/** A folder with config.json: output `out`, cache `cache`, one target (`target` replaces its fields). */
function workspace(target: Record<string, unknown> = {}): { dir: string; config: string } {
  const dir = path.join(scratch, `ws-${++made}`);
  mkdirSync(dir);
  const config = path.join(dir, "config.json");
  writeFileSync(config, `${JSON.stringify({ output: "out", cacheDir: "cache", targets: [{ repo: "example/burnlike", url: repo.dir, sha, ...target }] }, null, 2)}\n`);
  return { dir, config };
}

/** Every file under `dir`, as paths relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

describe("git transports", () => {
  const marker = path.join(scratch, "ran");
  const ext = [`ext::sh -c touch% ${marker}`, `ext::sh -c touch% ${marker}% x@h:y`];

  test("run --source ext::… is refused as bad input naming --source or the url, and runs nothing, cache or not", () => {
    const ws = workspace();
    for (const source of ext) {
      const result = cli(["run", "--config", ws.config, "--source", source], undefined, PERMISSIVE);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, /^error\[E_INPUT\]: .*"ext::sh -c touch% .*" uses git's "ext" transport \(a remote helper\), which error-catalog does not allow$/m);
    }
    assert.equal(cli(["run", "--config", ws.config], undefined, PERMISSIVE).status, 0, "the commit is cached now");
    for (const source of ext) assert.equal(cli(["run", "--config", ws.config, "--force", "--source", source], undefined, PERMISSIVE).status, 2);
    assert.ok(!existsSync(marker), "the command never ran");
  });

  test("a config whose url is ext::, fd:: or of another protocol is an invalid config, for run and pin", () => {
    for (const url of [ext[0]!, "fd::3", "http://example.com/x.git", "ftp://example.com/x.git", "-oProxyCommand=x:y"]) {
      const ws = workspace({ url });
      for (const args of [["run"], ["pin", "--ref", "main"]]) {
        const result = cli([...args, "--config", ws.config], undefined, PERMISSIVE);
        assert.equal(result.status, 2, `${url}: ${result.stderr}`);
        assert.match(result.stderr, /error\[E_CONFIG\]/);
        assert.match(result.stderr, /config\.json \/targets\/0\/url: /);
      }
    }
    assert.ok(!existsSync(marker));
  });

  test("pin --source ext::… is refused naming --source, and runs nothing", () => {
    const ws = workspace();
    const before = readFileSync(ws.config, "utf8");
    for (const source of ext) {
      const result = cli(["pin", "--config", ws.config, "--ref", "main", "--source", source], undefined, PERMISSIVE);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, /^error\[E_INPUT\]: --source "ext::sh -c touch% .*" uses git's "ext" transport/m);
    }
    assert.ok(!existsSync(marker));
    assert.equal(readFileSync(ws.config, "utf8"), before);
  });

  test("git itself is given the allow-list: ext:: is not allowed even where this config allows it", async () => {
    const saved = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = permissive;
    try {
      await assert.rejects(git(["ls-remote", "--", ext[0]!]), /transport 'ext' not allowed/);
    } finally {
      if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = saved;
    }
    assert.ok(!existsSync(marker));
  });

  test("every git the run and pin start has GIT_ALLOW_PROTOCOL=file:git:https:ssh", () => {
    // A git first on PATH that notes what it was given, then runs the real one.
    const bin = path.join(scratch, "bin");
    const log = path.join(scratch, "git.log");
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, "git"), `#!/bin/sh\necho "$GIT_ALLOW_PROTOCOL $*" >> '${log}'\nexec '${gitPath()}' "$@"\n`);
    chmodSync(path.join(bin, "git"), 0o755);
    const env = { ...PERMISSIVE, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` };
    const ws = workspace();
    assert.equal(cli(["run", "--config", ws.config], undefined, env).status, 0);
    assert.equal(cli(["pin", "--config", ws.config, "--ref", "main"], undefined, env).status, 0);
    const calls = readFileSync(log, "utf8").trim().split("\n");
    for (const verb of ["clone", "cat-file", "ls-tree", "ls-remote"]) assert.ok(calls.some((c) => c.includes(` ${verb} `) || c.endsWith(` ${verb}`)), `git ${verb} was run: ${calls.join("; ")}`);
    for (const call of calls) assert.match(call, /^file:git:https:ssh /);
  });

  test("which sources are refused before git sees them", () => {
    const refused = [ext[0]!, ext[1]!, "fd::17", "foo::bar", "http://host/x.git", "ftp://host/x", "foo://host/x", "-u", "--upload-pack=touch x", ""];
    for (const s of refused) assert.notEqual(sourceProblem(s), null, s);
    const allowed = ["https://github.com/tracel-ai/burn", "ssh://git@github.com/tracel-ai/burn.git", "git@github.com:tracel-ai/burn.git", "git://host/x.git", "file:///srv/burn.git", "git+ssh://host/x", "/srv/burn.git", "./burn", "burn", "../a:b"];
    for (const s of allowed) assert.equal(sourceProblem(s), null, s);
  });
});

describe("paths that escape", () => {
  test("a repo that is not owner/name of safe segments is an invalid config, and nothing is written", () => {
    for (const bad of ["../..", "..", ".", "a/..", "../b", "a/.", "a/.hidden", ".a/b", "a/", "/b", "a/b/c", "a\\b", "a b/c"]) {
      const ws = workspace({ repo: bad });
      const result = cli(["run", "--config", ws.config], undefined, PERMISSIVE);
      assert.equal(result.status, 2, `${bad}: ${result.stderr}`);
      assert.match(result.stderr, /config\.json \/targets\/0\/repo: must match /);
      assert.deepEqual(files(ws.dir), ["config.json"], `${bad}: nothing written`);
    }
    assert.deepEqual(readdirSync(scratch).filter((n) => n === "versions.json"), []);
  });

  test("GitHub's names pass: letters, digits, -, _ and . inside a segment", () => {
    for (const good of ["tracel-ai/burn", "rust-lang/rust", "a_b/c.d-e", "A1/x.y.z", "o/name.rs"]) assert.match(good, SAFE_REPO);
    for (const bad of ["../..", "a/..", "a/.github", "a", "a/b/c", "-/."]) assert.doesNotMatch(bad, SAFE_REPO);
  });

  test("the code's owner/name rule is the config schema's", () => {
    const schema = JSON.parse(readFileSync(path.join(packageRoot(), "schemas", "config.schema.json"), "utf8")) as { $defs: { Target: { properties: { repo: { pattern: string } } } } };
    assert.equal(schema.$defs.Target.properties.repo.pattern, SAFE_REPO.source.replaceAll("\\/", "/"));
  });

  test("--repo of match, diff and validate goes through the same check", () => {
    const ws = workspace();
    assert.equal(cli(["run", "--config", ws.config]).status, 0);
    const out = path.join(ws.dir, "out");
    for (const args of [["match", "boom", "--out", out, "--repo", "../.."], ["diff", "--config", ws.config, "--repo", "../.."], ["validate", "--config", ws.config, "--repo", "../.."]]) {
      const result = cli(args);
      assert.equal(result.status, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, /\.\.\/\.\./);
      assert.doesNotMatch(result.stderr, /^\s+at /m);
    }
  });

  test("inside(root, p): strictly below root, by the path alone", () => {
    assert.ok(inside("/a/out", "/a/out/x/y"));
    assert.ok(inside("/a/out", "/a/out/..x"));
    assert.ok(!inside("/a/out", "/a/out"));
    assert.ok(!inside("/a/out", "/a/out/x/../.."));
    assert.ok(!inside("/a/out", "/a/outside"));
    assert.ok(!inside("/a/out", "/a"));
    assert.ok(!inside("out", "/elsewhere"));
  });
});

describe("sources and folders that are not what they should be", () => {
  test("a --source that does not exist or is not a repository is bad input, even with the commit cached", () => {
    const ws = workspace();
    assert.equal(cli(["run", "--config", ws.config]).status, 0);
    const plain = path.join(scratch, "plain");
    mkdirSync(plain, { recursive: true });
    writeFileSync(path.join(scratch, "a-file"), "x\n");
    const cases: [string, RegExp][] = [
      [path.join(scratch, "nowhere"), /--source|the source/],
      [plain, /is not a git repository/],
      [path.join(scratch, "a-file"), /is not a git repository/],
      [path.join(repo.dir, "crates"), /is not a git repository/],
    ];
    for (const [source, message] of cases) {
      const result = cli(["run", "--config", ws.config, "--force", "--source", source]);
      assert.equal(result.status, 2, `${source}: ${result.stderr}`);
      assert.match(result.stderr, message);
      assert.match(result.stderr, new RegExp(source.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    }
    assert.match(cli(["run", "--config", ws.config, "--force", "--source", path.join(scratch, "nowhere")]).stderr, /does not exist/);
  });

  test("a bare repository, a work tree and a file:// URL are sources", () => {
    const ws = workspace();
    assert.equal(cli(["run", "--config", ws.config]).status, 0);
    // The cached clone is a bare repository; use it as a source of its own.
    const cached = path.join(ws.dir, "cache", "repos", "example+burnlike.git");
    for (const source of [cached, repo.dir, `file://${repo.dir}`]) {
      const result = cli(["run", "--config", ws.config, "--force", "--source", source]);
      assert.equal(result.status, 0, `${source}: ${result.stderr}`);
    }
  });

  test("a source that is a repository git cannot read is git's failure: exit 3", () => {
    const broken = path.join(scratch, "broken.git");
    for (const d of ["objects", "refs"]) mkdirSync(path.join(broken, d), { recursive: true });
    writeFileSync(path.join(broken, "HEAD"), "not a ref\n");
    const ws = workspace({ url: broken });
    const result = cli(["run", "--config", ws.config]);
    assert.equal(result.status, 3, result.stderr);
    assert.match(result.stderr, /^error\[E_GIT\]: could not clone/m);
    assert.deepEqual(readdirSync(path.join(ws.dir, "cache", "repos")), [], "no partial clone left");
  });

  test("an --out that cannot be made fails within seconds: under a file, under /proc, under /sys (not writable, even by root)", () => {
    const ws = workspace();
    writeFileSync(path.join(ws.dir, "file"), "x\n");
    const outs = [path.join(ws.dir, "file", "out"), ...(existsSync("/proc/self") ? ["/proc/nope"] : []), ...(existsSync("/sys/kernel") ? ["/sys/error-catalog-out"] : [])];
    for (const out of outs) {
      const started = Date.now();
      const result = cli(["run", "--config", ws.config, "--out", out]);
      assert.ok(Date.now() - started < 10_000, `${out}: ${Date.now() - started} ms`);
      assert.equal(result.status, 2, `${out}: ${result.stderr}`);
      assert.match(result.stderr, /^error\[E_INPUT\]: cannot make the output folder /m);
    }
  });

  test("an --out in a folder that cannot be written fails at once", { skip: process.getuid?.() === 0 ? "root may write any folder" : false }, () => {
    const ws = workspace();
    const locked = path.join(ws.dir, "read-only");
    mkdirSync(locked);
    chmodSync(locked, 0o555);
    try {
      const result = cli(["run", "--config", ws.config, "--out", path.join(locked, "out")]);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, /cannot make the output folder/);
    } finally {
      chmodSync(locked, 0o755);
    }
  });

  test("a missing config says it is missing; an invalid one says it is invalid", () => {
    const missing = path.join(scratch, "no-such-config.json");
    for (const command of [["run"], ["diff"], ["validate"], ["match", "boom"], ["pin", "--ref", "main"]]) {
      const result = cli([...command, "--config", missing]);
      assert.equal(result.status, 2, result.stderr);
      assert.equal(result.stderr, `error[E_CONFIG]: the config file ${missing} does not exist\nhint: pass --config with the path of config.json, or run in the folder that holds it\n`);
    }
    const ws = workspace({ sha: "abc" });
    const invalid = cli(["run", "--config", ws.config]);
    assert.equal(invalid.status, 2);
    assert.match(invalid.stderr, /is not a valid configuration/);
  });
});

/** The git this process finds on PATH. */
function gitPath(): string {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, "git");
    if (dir !== "" && existsSync(candidate)) return candidate;
  }
  return "git";
}
