/**
 * The workspace's layout: packages as their `Cargo.toml` names them, modules as rustc builds them
 * from each crate root (`#[path]`, inline modules, item-wrapping macros), and the gates of the
 * `mod` declarations on the way down, on a hand-written workspace (fixtures/workspace/tree).
 * Expectations are written by hand from the fixture's files.
 */
import assert from "node:assert/strict";
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import { run } from "../pipeline/run.js";
import type { Envelope } from "../pipeline/schema-types.generated.js";
import { readVersion } from "../pipeline/write.js";
import { isManifest, itemMacro, moduleOf, placeOf, readWorkspace, scanModules, type WorkspaceLayout } from "../pipeline/workspace/index.js";
import { writeConfig } from "./helpers/config.js";
import { fixture, makeRepo, tempDir } from "./helpers/git.js";

const TREE = fixture("workspace", "tree");

function filesOf(dir: string, prefix = ""): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(path.join(dir, name)).isDirectory() ? filesOf(path.join(dir, name), `${prefix}${name}/`) : [`${prefix}${name}`]));
}

function layoutOfFixture(): WorkspaceLayout {
  const paths = filesOf(TREE);
  const text = (p: string) => readFileSync(path.join(TREE, p), "utf8");
  const manifests = paths.filter(isManifest).map((p) => ({ path: p, text: text(p) }));
  const files = paths.filter((p) => p.endsWith(".rs")).map((p) => ({ path: p, modules: scanModules(text(p)) }));
  const { layout, problems } = readWorkspace(manifests, files);
  assert.deepEqual(problems, []);
  return layout;
}

describe("the workspace's layout", () => {
  const layout = layoutOfFixture();

  it("names each file's package as its Cargo.toml does, and its module as rustc does", () => {
    const expected: [string, string | null, string | null][] = [
      ["crates/alpha/src/lib.rs", "alpha-core", ""],
      ["crates/alpha/src/m.rs", "alpha-core", "m"],
      ["crates/alpha/src/net/mod.rs", "alpha-core", "net"],
      ["crates/alpha/src/sys/unix_impl.rs", "alpha-core", "imp"],
      ["crates/alpha/src/plain.rs", "alpha-core", "plain"],
      ["crates/alpha/src/plain/child.rs", "alpha-core", "plain::child"],
      ["crates/alpha/src/outer/inner.rs", "alpha-core", "outer::inner"],
      ["crates/alpha/src/either.rs", "alpha-core", "either"],
      // no `mod` reaches it: its package by folder, no module
      ["crates/alpha/src/orphan.rs", "alpha-core", null],
      ["crates/beta/src/lib.rs", "beta-io", ""],
      ["crates/gamma-macros/src/lib.rs", "gamma-macros", ""],
      // a binary whose root the root manifest names outside any `src/`
      ["app/main.rs", "the-app", ""],
      ["app/cli.rs", "the-app", "cli"],
    ];
    for (const [file, pkg, module] of expected) assert.deepEqual(moduleOf(layout, file), { package: pkg, module }, file);
    assert.deepEqual(moduleOf(layout, "elsewhere/x.rs"), { package: "the-app", module: null }, "the root package holds the rest of the tree by folder");
  });

  it("gives each file the gates of the mod declarations down to it, wrapping macros included", () => {
    const gates: [string, string[]][] = [
      ["crates/alpha/src/lib.rs", []],
      ["crates/alpha/src/m.rs", ['feature = "x"']],
      ["crates/alpha/src/net/mod.rs", ['feature = "net"']],
      ["crates/alpha/src/sys/unix_impl.rs", ["unix"]],
      ["crates/alpha/src/plain/child.rs", []],
      ["crates/alpha/src/outer/inner.rs", ['feature = "deep"']],
      ["crates/alpha/src/either.rs", ['any(feature = "a", feature = "b")']],
      // a wrapper that hands its items on to another: both gates
      ["crates/alpha/src/sock.rs", ["unix", 'feature = "net"']],
    ];
    for (const [file, expected] of gates) assert.deepEqual(placeOf(layout, file).gates, expected, file);
  });

  it("reads descriptions (inherited from [workspace.package] too) and the crate's kind", () => {
    assert.equal(placeOf(layout, "crates/alpha/src/m.rs").description, "Alpha: the core.");
    assert.equal(placeOf(layout, "crates/beta/src/lib.rs").description, "A two-crate workspace for the layout's tests.");
    assert.equal(placeOf(layout, "crates/gamma-macros/src/lib.rs").crateKind, "proc-macro");
    assert.equal(placeOf(layout, "app/cli.rs").crateKind, "bin");
    assert.equal(placeOf(layout, "crates/alpha/src/plain.rs").crateKind, "lib");
  });

  it("takes a macro_rules! whose arms put `#[cfg(…)] $item` back as that gate, and no other macro", () => {
    assert.deepEqual(itemMacro(layout, "crates/alpha/src/net/mod.rs", "cfg_net"), { name: "cfg_net", gates: ['feature = "net"'], attribute: false });
    assert.deepEqual(itemMacro(layout, "crates/alpha/src/lib.rs", "feature"), { name: "feature", gates: [], attribute: true });
    assert.equal(itemMacro(layout, "crates/beta/src/lib.rs", "cfg_net"), undefined, "a macro_rules! of another package");
    const other = scanModules("macro_rules! twice { ($e:expr) => { $e; $e }; }\nmacro_rules! odd { ($($i:item)*) => { $(#[cfg(a)] $i)* }; (x) => { fn x() {} }; }\n");
    assert.deepEqual(other.macros, []);
  });

  it("compiles a file declared twice under other gates when either holds, and what it declares too", () => {
    const text: Record<string, string> = { "src/lib.rs": "#[cfg(a)]\nmod s;\n#[cfg(not(a))]\n#[cfg(b)]\nmod s;\n", "src/s.rs": "mod w;\n", "src/s/w.rs": "" };
    const files = Object.keys(text).map((p) => ({ path: p, modules: scanModules(text[p]!) }));
    const { layout: l } = readWorkspace([{ path: "Cargo.toml", text: '[package]\nname = "twice"\n' }], files);
    assert.deepEqual(placeOf(l, "src/s.rs").gates, ["any(a, b)"]);
    assert.deepEqual(placeOf(l, "src/s/w.rs").gates, ["any(a, b)"]);
    assert.equal(placeOf(l, "src/s/w.rs").module, "s::w");
  });

  it("puts the modules a file declares under its own inner #![cfg], and not the file itself twice", () => {
    const text: Record<string, string> = {
      "src/lib.rs": '#[cfg(feature = "signal")]\npub mod signal;\n',
      "src/signal.rs": '//! Windows-specific types.\n\n#![cfg(any(windows, docsrs))]\n#![cfg_attr(docsrs, doc(cfg(windows)))]\n\n#[cfg(not(windows))]\n#[path = "signal/stub.rs"]\nmod imp;\n',
      "src/signal/stub.rs": "",
    };
    const files = Object.keys(text).map((p) => ({ path: p, modules: scanModules(text[p]!) }));
    const { layout: l } = readWorkspace([{ path: "Cargo.toml", text: '[package]\nname = "sig"\n' }], files);
    assert.deepEqual(placeOf(l, "src/signal.rs").gates, ['feature = "signal"']);
    assert.deepEqual(placeOf(l, "src/signal/stub.rs").gates, ['feature = "signal"', "any(windows, docsrs)", "not(windows)"]);
  });

  it("declares the modules of a macro without arguments where it is invoked, and reads no cfg_attr path", () => {
    const text: Record<string, string> = {
      "src/lib.rs": "macro_rules! crate_root {\n    () => {\n        #[cfg_attr(docsrs, path = \"elsewhere/de.rs\")]\n        pub mod de;\n        mod lib {\n            pub use core::*;\n        }\n    };\n}\n\ncrate_root!();\n",
      "src/de.rs": "",
    };
    const files = Object.keys(text).map((p) => ({ path: p, modules: scanModules(text[p]!) }));
    const { layout: l } = readWorkspace([{ path: "Cargo.toml", text: '[package]\nname = "rooted"\n' }], files);
    assert.equal(placeOf(l, "src/de.rs").module, "de");
  });

  it("takes src/main.rs and src/bin/*.rs as binaries' roots", () => {
    const files = ["tool/src/lib.rs", "tool/src/main.rs", "tool/src/bin/extra.rs", "tool/src/bin/multi/main.rs", "tool/src/bin/multi/part.rs"].map((p) => ({ path: p, modules: scanModules(p.endsWith("multi/main.rs") ? "mod part;\n" : "") }));
    const { layout: l } = readWorkspace([{ path: "tool/Cargo.toml", text: '[package]\nname = "tool"\n' }], files);
    assert.deepEqual(l.packages[0]!.roots, [
      { path: "tool/src/lib.rs", kind: "lib" },
      { path: "tool/src/bin/extra.rs", kind: "bin" },
      { path: "tool/src/bin/multi/main.rs", kind: "bin" },
      { path: "tool/src/main.rs", kind: "bin" },
    ]);
    assert.deepEqual(moduleOf(l, "tool/src/bin/extra.rs"), { package: "tool", module: "" });
    assert.deepEqual(moduleOf(l, "tool/src/bin/multi/part.rs"), { package: "tool", module: "part" });
    assert.equal(placeOf(l, "tool/src/bin/extra.rs").crateKind, "bin");
  });

  it("reports a manifest that is not TOML, and leaves its package out", () => {
    const { layout: l, problems } = readWorkspace([{ path: "bad/Cargo.toml", text: "[package\nname = 1" }], [{ path: "bad/src/lib.rs" }]);
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.path, "bad/Cargo.toml");
    assert.deepEqual(moduleOf(l, "bad/src/lib.rs"), { package: null, module: null });
  });
});

describe("records of the fixture workspace", () => {
  let byMessage: Map<string, Envelope>;
  let envelopes: readonly Envelope[];
  before(async () => {
    const repo = makeRepo([TREE]);
    const result = await run({ configPath: writeConfig(repo.dir, repo.shas[0]!), now: () => new Date("2026-02-01T00:00:00.000Z") });
    ({ envelopes } = await readVersion(result.dir));
    byMessage = new Map(envelopes.map((e) => [e.record.errorMessage, e]));
  });
  const get = (m: string) => {
    const e = byMessage.get(m);
    assert.ok(e, `a record of "${m}"`);
    return e;
  };

  it("name the package and the module, and put the module's gates first", () => {
    const e = get("inside the gated module");
    assert.equal(e.facts!.crate, "alpha-core");
    assert.equal(e.facts!.module, "m");
    assert.equal(e.facts!.crateDescription, "Alpha: the core.");
    assert.deepEqual(e.facts!.moduleGates, ['feature = "x"']);
    assert.deepEqual(e.facts!.gates, ['feature = "x"']);
    assert.ok(!(e.record.commonSituations ?? "").includes("every build"));
    assert.ok(!e.record.tags.includes("unconditional"));
    assert.equal(get("inside the path module").facts!.module, "imp");
    assert.deepEqual(get("inside the path module").facts!.gates, ["unix"]);
  });

  it("name the crate in the words its Cargo.toml describes it in", () => {
    assert.match(get("always panics").record.documentation ?? "", /of crate `alpha-core` \(its `Cargo\.toml`: “Alpha: the core\.”\)/);
  });

  it("say every build, no branch and unconditional only where nothing gates or conditions the site", () => {
    const always = get("always panics");
    assert.ok((always.record.commonSituations ?? "").includes("present in every build"));
    assert.ok((always.record.documentation ?? "").includes("No branch, loop or closure"));
    assert.ok(always.record.tags.includes("unconditional"));
    for (const m of ["item too big", "zero in a vec", "no value with x", "wrapped and flagged", "inside the net module"]) {
      const e = get(m);
      assert.ok(!e.record.tags.includes("unconditional"), m);
      assert.ok(!(e.record.documentation ?? "").includes("No branch, loop or closure lies between"), m);
    }
    assert.deepEqual(get("no value with x").facts!.gates, ['feature = "x"']);
    assert.equal(get("zero in a vec").facts!.macro, "vec");
  });

  it("read the items inside a cfg-wrapping macro as items, gated by that macro", () => {
    const e = get("wrapped and flagged");
    assert.equal(e.facts!.macro, null);
    assert.deepEqual(e.facts!.macroPath, [{ name: "cfg_net", attribute: null }]);
    assert.equal(e.facts!.function?.name, "wrapped");
    assert.deepEqual(e.facts!.items.map((i) => `${i.kind} ${i.name}`), ["fn wrapped"]);
    assert.deepEqual(e.facts!.conditions.map((c) => c.kind), ["if"]);
    assert.deepEqual(e.facts!.moduleGates, ['feature = "net"']);
    assert.ok((e.record.commonSituations ?? "").includes('Only in builds where `feature = "net"` holds'));
    const arm = get("not the net kind");
    assert.equal(arm.facts!.function?.name, "expect_net");
    assert.deepEqual(arm.facts!.conditions.map((c) => [c.kind, c.pattern]), [["match", "_"]]);
    assert.ok(!arm.record.tags.includes("unconditional"));
    assert.ok(!(arm.record.documentation ?? "").includes("at the top level"));
  });

  it("give facts to a method call inside a cfg-wrapping macro, to a returned error without text of its own, and to a place's record after another file's constant", () => {
    const expect = get("net value missing");
    assert.equal(expect.facts!.function?.name, "wrapped_expect");
    assert.deepEqual(expect.facts!.gates, ['feature = "net"']);
    const held = envelopes.find((e) => e.record.errorClass === "HeldError" && e.facts?.function?.name === "fmt" && e.record.lineNumber === e.facts.function.line + 1 && !e.record.errorMessage.includes("without x"));
    assert.ok(held, "a record of HeldError's Display text of the held value");
    assert.deepEqual(held.facts!.gates, ['feature = "x"']);
    assert.ok(!(held.record.commonSituations ?? "").includes("every build"));
    assert.equal(get("the value is gone").occurrences[0]!.source?.via, "constant");
    const relayed = envelopes.filter((e) => e.record.errorMessage === "{}" && e.record.filePath.endsWith("lib.rs"));
    assert.equal(relayed.length, 1, "the record of relay's `{}` has relay's facts");
    assert.deepEqual(relayed[0]!.facts!.conditions.map((c) => [c.kind, c.pattern]), [["match", "Err(msg)"]]);
  });

  it("read the #[cfg] a macro's tokens put on the site's own match arm", () => {
    const e = get("picked zero with x");
    assert.equal(e.facts!.macro, "macro_rules");
    assert.deepEqual(e.facts!.gates, ['feature = "x"']);
    assert.ok(!e.record.tags.includes("unconditional"));
  });

  it("read the #[cfg] on an arm that follows a repetition of arms", () => {
    const e = get("picked minus one with x after the listed arms");
    assert.equal(e.facts!.macro, "macro_rules");
    assert.deepEqual(e.facts!.gates, ['feature = "x"']);
  });

  it("leave the tokens of any other macro as tokens", () => {
    const e = get("in another macro's tokens");
    assert.equal(e.facts!.macro, "keep");
    assert.equal(e.facts!.function, undefined);
    assert.deepEqual(e.facts!.moduleGates, []);
    assert.ok(!e.record.tags.includes("unconditional"));
  });

  it("explain a proc-macro crate's panic as its users' compile error, with no catch_unwind", () => {
    const e = get("Gamma needs a struct");
    assert.equal(e.facts!.crateKind, "proc-macro");
    assert.equal(e.record.tryCatchPattern, null);
    assert.ok((e.record.documentation ?? "").includes("error: proc-macro derive panicked"));
    assert.ok((e.record.documentation ?? "").includes("= help: message: Gamma needs a struct"));
    assert.ok(!e.record.solutions.some((s) => s.includes("catch_unwind(")));
    assert.ok(e.record.tags.includes("proc-macro"));
  });

  it("say that no build compiles a site whose gates cannot hold together, given what each feature enables", () => {
    const never = get("fast without x");
    assert.equal(never.facts!.neverCompiled, true);
    assert.deepEqual(never.facts!.gates, ['all(feature = "fast", not(feature = "x"))']);
    assert.deepEqual(never.facts!.entryPoints ?? [], []);
    assert.match(never.record.documentation ?? "", /No build compiles it/);
    assert.equal(never.record.triggerScenarios, "None: the site is not compiled in any build of the crate.");
    assert.equal(never.record.tryCatchPattern, null);
    // A gate that holds because `fast` enables `x` is no gate.
    assert.deepEqual(get("x or slow").facts!.gates, []);
    // `x` alone, or `fast` with `x`: builds exist, so nothing is said of the others.
    for (const m of ["inside the gated module", "no value with x", "inside plain"]) assert.equal(get(m).facts!.neverCompiled, undefined, m);
  });

  it("say of a message of placeholders alone that the value's text shows through", () => {
    const e = envelopes.find((x) => x.record.errorMessage === "{}" && x.record.filePath.endsWith("plain.rs"));
    assert.ok(e, "a record of rethrow's `{}`");
    assert.equal(e.facts!.function?.name, "rethrow");
    assert.match(e.record.documentation ?? "", /Its text is only what `\{\}` formats/);
    assert.doesNotMatch(get("inside plain").record.documentation ?? "", /Its text is only/);
  });

  it("leave out a gate that holds in every build", () => {
    const e = get("fast or not");
    assert.deepEqual(e.facts!.gates, []);
    assert.equal(e.facts!.neverCompiled, undefined);
    assert.ok((e.record.commonSituations ?? "").includes("present in every build"));
  });

  it("explain a panic in the tokens a proc macro quotes as one of the user's program, at run time", () => {
    const e = get("Failed building the Gamma runtime");
    assert.equal(e.facts!.crateKind, "proc-macro");
    assert.equal(e.facts!.macro, "quote");
    const doc = e.record.documentation ?? "";
    assert.ok(!doc.includes("error: proc-macro derive panicked"), doc);
    assert.match(doc, /panics at run time when that code runs, not while compiling/);
    assert.ok(!/is reached with them when/.test(doc), "the site's own check is no step on the way to the macro");
  });

  it("name no caller as absent: a name match is said to be one", () => {
    for (const e of byMessage.values()) assert.ok(!/No other function in this file/.test(e.record.commonSituations ?? ""), e.record.errorMessage);
  });
});

describe("a run after a change of the layout alone", () => {
  it("takes nothing whole and no analysis when a Cargo.toml changed, and the records say what it says now", async () => {
    const second = path.join(tempDir(), "tree");
    cpSync(TREE, second, { recursive: true });
    writeFileSync(path.join(second, "crates/beta/Cargo.toml"), '[package]\nname = "beta-io"\nversion = "0.1.0"\ndescription = "Beta, described anew."\n');
    // and a gate on a mod declaration in a file that holds no record's site
    writeFileSync(path.join(second, "app/main.rs"), '#[cfg(feature = "cli")]\nmod cli;\n\nfn main() {}\n');
    // and `fast` no longer turns on `x`: `fast` without `x` is a build now
    const alpha = path.join(second, "crates/alpha/Cargo.toml");
    writeFileSync(alpha, readFileSync(alpha, "utf8").replace('fast = ["x", ', "fast = ["));
    const repo = makeRepo([TREE, second]);
    // One config, so that the second run has the first's version before it.
    const config = writeConfig(repo.dir, repo.shas[0]!);
    const at = (sha: string) => {
      writeFileSync(config, readFileSync(config, "utf8").replace(/"sha": "[0-9a-f]+"/, `"sha": "${sha}"`));
      return run({ configPath: config, now: () => new Date("2026-02-01T00:00:00.000Z") });
    };
    await at(repo.shas[0]!);
    const result = await at(repo.shas[1]!);
    const { envelopes, manifest } = await readVersion(result.dir);
    assert.equal(manifest.carry?.mode, "partial");
    assert.equal(manifest.carry?.from, "0001-" + repo.shas[0]!.slice(0, 12));
    const beta = envelopes.find((e) => e.record.errorMessage === "inside beta")!;
    assert.equal(beta.facts!.crateDescription, "Beta, described anew.");
    const cli = envelopes.find((e) => e.record.errorMessage === "the app's cli failed")!;
    assert.deepEqual(cli.facts!.gates, ['feature = "cli"']);
    const fast = envelopes.find((e) => e.record.errorMessage === "fast without x")!;
    assert.equal(fast.facts!.neverCompiled, undefined, "a build compiles it now");
    assert.deepEqual(fast.facts!.gates, ['all(feature = "fast", not(feature = "x"))']);
    assert.doesNotMatch(fast.record.documentation ?? "", /No build compiles it/);
    // The gate that held in every build while `fast` enabled `x` holds in some only.
    assert.deepEqual(envelopes.find((e) => e.record.errorMessage === "x or slow")!.facts!.gates, ['any(feature = "x", not(feature = "fast"))']);
  });
});

describe("the workspace's layout: #[doc(hidden)] modules", () => {
  it("marks the files a #[doc(hidden)] mod declaration leads to, and those below them", () => {
    const manifests = [{ path: "h/Cargo.toml", text: '[package]\nname = "h"\nversion = "0.1.0"\n' }];
    const sources: [string, string][] = [
      ["h/src/lib.rs", "#[doc(hidden)]\npub mod private;\npub mod open;\n"],
      ["h/src/private.rs", "pub mod de;\n"],
      ["h/src/private/de.rs", "pub fn f() {}\n"],
      ["h/src/open.rs", "pub fn g() {}\n"],
    ];
    const { layout, problems } = readWorkspace(manifests, sources.map(([p, text]) => ({ path: p, modules: scanModules(text) })));
    assert.deepEqual(problems, []);
    assert.deepEqual(sources.map(([p]) => [p, placeOf(layout, p).hidden === true]), [["h/src/lib.rs", false], ["h/src/private.rs", true], ["h/src/private/de.rs", true], ["h/src/open.rs", false]]);
  });
});
