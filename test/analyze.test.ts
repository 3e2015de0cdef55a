/**
 * The analyze stage on fixtures/analyze/: golden facts and fields per site (`<case>.expected.json`
 * beside `<case>.rs`, written from reading the fixture), the "nothing invented" check over every
 * record, and for the self-contained programs in programs/, the generated `would_panic` and
 * `check` functions compiled with rustc next to the fixture and run on inputs that do and do not
 * reach the panic (`<case>.guards.json`).
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { analyzeEnvelopes, sameJson } from "../pipeline/analyze/index.js";
import { closureParam, declaredKind, errBinding, formattedNames, lastLetValue, lex, receiverKind, valueCalls } from "../pipeline/analyze/rust.js";
import { buildEnvelopes, groupSites } from "../pipeline/build.js";
import { applyTestModules, extractFile, LIBRARY_ONLY } from "../pipeline/extract.js";
import { analysisFields } from "../pipeline/analyze/fields.js";
import type { Envelope, FunctionFact, RecordFacts } from "../pipeline/schema-types.generated.js";
import { validate } from "../pipeline/validate.js";
import { fixture, tempDir } from "./helpers/git.js";

const GROUPS = ["facts", "programs"] as const;

interface Case {
  readonly group: string;
  readonly name: string;
  readonly text: string;
  readonly envelopes: Envelope[];
}

/**
 * Extract, build and analyze one fixture file as `crates/fixture/src/<name>.rs`, the way a run
 * does: `extractFile` with the default options (only what a library site needs is parsed), the
 * test modules applied, the library sites with a runtime message grouped into records.
 */
async function analyse(group: string, name: string): Promise<Case> {
  const text = readFileSync(fixture("analyze", group, `${name}.rs`), "utf8");
  const file = `crates/fixture/src/${name}.rs`;
  const [extracted] = applyTestModules([await extractFile({ path: file, blob: "0".repeat(40), text }, LIBRARY_ONLY)]);
  const sites = extracted!.sites.filter((s) => s.runtime !== null && s.context === "library");
  const built = buildEnvelopes({ repo: "fixture/analyze", sha: "0".repeat(40), contextLines: 3, groups: groupSites(sites), textOf: () => text, now: "2026-01-01T00:00:00.000Z" });
  return { group, name, text, envelopes: analyzeEnvelopes({ envelopes: built, sites }) };
}

const cases: Case[] = await Promise.all(
  GROUPS.flatMap((group) =>
  readdirSync(fixture("analyze", group))
    .filter((f) => f.endsWith(".rs"))
    .sort()
    .map((f) => analyse(group, f.slice(0, -3))),
  ),
);

/** The keys of `expected` taken from `actual`: goldens list what they check. */
function project(actual: unknown, expected: unknown): unknown {
  if (Array.isArray(expected) && Array.isArray(actual)) return actual.length === expected.length ? actual.map((a, i) => project(a, expected[i])) : actual;
  if (expected !== null && typeof expected === "object" && actual !== null && typeof actual === "object" && !Array.isArray(actual)) {
    return Object.fromEntries(Object.keys(expected).map((k) => [k, project((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k])]));
  }
  return actual;
}

interface ExpectedSite {
  readonly line: number;
  readonly kind: string;
  readonly [key: string]: unknown;
}

describe("golden facts and fields", () => {
  it("every fixture has its expected file and every expected file its fixture", () => {
    for (const group of GROUPS) {
      const files = readdirSync(fixture("analyze", group));
      const sources = files.filter((f) => f.endsWith(".rs")).map((f) => f.slice(0, -3)).sort();
      const goldens = files.filter((f) => f.endsWith(".expected.json")).map((f) => f.slice(0, -".expected.json".length)).sort();
      assert.deepEqual(goldens, sources, `fixtures/analyze/${group}`);
    }
  });

  for (const c of cases) {
    const expected = JSON.parse(readFileSync(fixture("analyze", c.group, `${c.name}.expected.json`), "utf8")) as { sites: ExpectedSite[] };
    for (const want of expected.sites) {
      it(`${c.group}/${c.name}.rs:${want.line} (${want.kind})`, () => {
        const e = c.envelopes.find((x) => x.record.lineNumber === want.line);
        assert.ok(e, `no record at line ${want.line}`);
        const f = e.facts!;
        const fn = f.function;
        const actual: Record<string, unknown> = {
          line: e.record.lineNumber,
          kind: e.occurrences[0]!.kind,
          items: f.items.map((i) => `${i.kind} ${i.name}`),
          function: fn?.name ?? null,
          visibility: fn?.visibility ?? null,
          receiver: fn?.receiver ?? null,
          traitName: fn?.traitName ?? null,
          lets: fn?.lets ?? [],
          gates: f.gates,
          macro: f.macro,
          callers: f.callers,
          boundInside: f.boundInside,
          pathLets: f.pathLets ?? [],
          comment: f.comment ?? null,
          exitInPath: f.exitInPath,
          exitBeforePath: f.exitBeforePath,
          conditions: f.conditions,
          otherSites: f.otherSites ?? [],
          compileTime: f.compileTime ?? false,
          ...e.record,
        };
        assert.deepEqual(project(actual, want), want);
      });
    }
  }

  it("the burn-like nested match names `DispatchTensorKind::Autodiff` twice and the function", () => {
    const e = cases.find((c) => c.name === "dispatch")!.envelopes.find((x) => x.record.errorMessage === "Autodiff should not wrap an autodiff tensor.")!;
    const steps = e.facts!.conditions.filter((c) => c.kind === "match");
    assert.deepEqual(steps.map((s) => s.pattern?.startsWith("DispatchTensorKind::Autodiff(")), [true, true]);
    assert.equal(e.record.triggerScenarios!.match(/DispatchTensorKind::Autodiff/g)?.length, 2);
    assert.match(e.record.documentation!, /fn backward/);
    assert.match(e.record.triggerScenarios!, /^Calling `<Dispatch as AutodiffBackend>::backward\(tensor\)` with `tensor` such that, after `let DispatchTensor \{ kind, \.\. \} = tensor;`,/);
  });

  it("an `async` block is a value of its own: what it returns goes to what awaits it, and no guard is written across it", () => {
    const at = (line: number) => cases.find((c) => c.name === "paths")!.envelopes.find((x) => x.record.lineNumber === line)!.record;
    assert.match(at(126).documentation!, /^An `async` block returns this error through `Err\(…\)`, in `fn drive` .* What awaits the block gets it: where it goes from there is not worked out here\./);
    assert.doesNotMatch(at(126).documentation!, /returned to the caller/);
    assert.match(at(118).triggerScenarios!, /the `async` block passed to `spawn` is polled, then `jobs\.is_empty\(\)` is true/);
    assert.equal(at(118).typeGuard, null);
  });

  it("the reading fixture follows the lets on the path and quotes the code's comments", () => {
    const at = (line: number) => cases.find((c) => c.name === "reading")!.envelopes.find((x) => x.record.lineNumber === line)!.record;
    // `l` and `r` are bound inside the `else`, from `lhs[i]` and `rhs[i]`: all three parameters are read, `dim` itself and the others through the values `cross` computes.
    assert.match(at(13).documentation!, /a check of the parameter `dim` of `cross` and `i`, `l` and `r`, which `cross` computes from the parameters `lhs` and `rhs`\./);
    // `prev` is what `insert` (a call with effects) answered for `handle` and `key`: no "no parameter" claim.
    assert.doesNotMatch(at(28).documentation!, /No parameter/);
    assert.match(at(28).documentation!, /reads the parameters `key` and `handle` of `Slots::insert` only through a `let` whose value a call with effects gives/);
    assert.match(at(35).documentation!, /The code's comment on it says: “special case elsewhere”/);
    // The other site writes the message with other holes: its owner is still found.
    assert.match(at(45).commonSituations!, /The catalog finds the same message at one other site too: `dims` \(`crates\/fixture\/src\/reading\.rs:52`\)/);
    // `offset` is bound by `let mut` and grows from `indices` and `strides` in the loop: no "no parameter" claim.
    const offset = cases.find((c) => c.name === "reading")!.envelopes.find((x) => x.record.lineNumber === 60)!;
    assert.deepEqual(offset.facts!.function?.mutableLets, ["offset"]);
    assert.doesNotMatch(offset.record.documentation!, /No parameter/);
    assert.match(offset.record.documentation!, /It reads `offset`, which the function binds with `let mut`/);
    // `dst` is filled by the loop: a check of the function's own work, not of what `repeat` is given.
    const repeat = cases.find((c) => c.name === "reading")!.envelopes.find((x) => x.record.lineNumber === 70)!;
    assert.match(repeat.record.documentation!, /It reads `dst`, which the function binds with `let mut`/);
    assert.doesNotMatch(repeat.record.solutions.join("\n"), /only with/);
    // `owner` comes from the parameter `task` through a `let` with `?`: a check of what the caller passes.
    const owner = cases.find((c) => c.name === "reading")!.envelopes.find((x) => x.record.lineNumber === 76)!;
    assert.deepEqual(owner.facts!.function?.flowLets, ["let owner = (*task)?;"]);
    assert.doesNotMatch(owner.record.documentation!, /No parameter/);
    assert.match(owner.record.documentation!, /`task`/);
    // `self.pos` is assigned before the check from the parameter: not only what the calls before left.
    const advance = cases.find((c) => c.name === "reading")!.envelopes.find((x) => x.record.lineNumber === 88)!;
    assert.deepEqual(advance.facts!.function?.assignedFields, ["pos"]);
    assert.match(advance.record.documentation!, /as the calls before left it and as this call changes it: it reads `self\.pos`, which the function assigns before the site/);
    // Both sides are known when the crate is compiled, and equal: the check never fails.
    const fixedLen = cases.find((c) => c.name === "reading")!.envelopes.find((x) => x.record.lineNumber === 95)!;
    assert.deepEqual(fixedLen.facts!.constants, [["MAX_LEN", 15]]);
    assert.match(fixedLen.record.documentation!, /Both sides are fixed when the crate is compiled: `MAX_LEN` is 15 and `"101\.102\.103\.104"\.len\(\)` is 15, so the check never fails\./);
    assert.match(fixedLen.record.solutions.join("\n"), /This check cannot fail \(both sides are 15\)/);
  });

  it("the frames fixture is told in the words of what each check tests", () => {
    const at = (line: number) => cases.find((c) => c.name === "frames")!.envelopes.find((x) => x.record.lineNumber === line)!.record;
    assert.match(at(9).documentation!, /a check of the configuration field `size`/);
    assert.match(at(16).documentation!, /No parameter of `counter` is seen in the check/);
    assert.match(at(45).documentation!, /`self\.tx\.send\(\(\)\)` is an Err \(if `send` is std's, a guess from its name alone: std's is an Err when the receiver is dropped\)/);
    assert.match(at(45).commonSituations!, /Drop::drop`: a value dropped while another panic unwinds/);
    // A long macro arm is named by its line, not restated.
    assert.match(at(117).triggerScenarios!, /the invocation takes the `macro_rules!` arm of line 115/);
    assert.doesNotMatch(at(117).triggerScenarios!, /\$fifth/);
    // A drop that raises only when no other panic unwinds never aborts the process.
    assert.doesNotMatch(at(109).commonSituations!, /abort/);
    assert.match(at(58).documentation!, /`values\.first\(\)` holds no value \(None\) \(if `first` is std's, a guess from its name alone/);
    // A `_` arm after the constants the value's own state is set to: the code's assumption, not an answer to handle.
    assert.match(at(211).solutions.join("\n"), /points to a bug of/);
    assert.doesNotMatch(at(211).solutions.join("\n"), /handle that answer/);
    assert.doesNotMatch(at(58).documentation!, /Err/);
    assert.match(at(63).documentation!, /the generic parameters `DM` and `DV`/);
    assert.match(at(77).commonSituations!, /The catalog finds the same message at one other site too: `right` \(`crates\/fixture\/src\/frames\.rs:83`\)/);
    assert.match(at(92).solutions![0]!, /`text\.parse::<u16>\(\)` is an Err\./);
    assert.match(at(98).solutions![0]!, /a call with effects/);
    assert.doesNotMatch(at(98).documentation!, /checks what its caller passes/);
    // `self` handed to another function is that function's input; `self`'s own field is the value's state.
    assert.doesNotMatch(at(176).documentation!, /called on \(`self`\)/);
    assert.match(at(183).documentation!, /a check of the value `Handle::level` is called on \(`self`\)/);
    for (const line of [9, 16, 28, 34, 45, 52, 58, 63, 71, 77, 92, 98]) assert.doesNotMatch(at(line).solutions!.join(" "), /make sure this does not hold/);
  });

  it("every analysed envelope validates against the envelope schema", () => {
    for (const c of cases) {
      for (const e of c.envelopes) {
        const r = validate("envelope.v2", e, `${c.name}:${e.record.lineNumber}`);
        assert.deepEqual(r.ok ? [] : r.errors, []);
      }
    }
  });

  it("related ids list the records of the same function first", () => {
    const dispatch = cases.find((c) => c.name === "dispatch")!.envelopes;
    const byMessage = (m: string) => dispatch.find((e) => e.record.errorMessage === m)!;
    const autodiff = byMessage("Autodiff should not wrap an autodiff tensor.");
    const others = [byMessage("Requires autodiff tensor.").record.id, byMessage("Capture tensors do not support autodiff").record.id];
    assert.deepEqual([...autodiff.facts!.sameFunction].sort(), [...others].sort());
    assert.deepEqual(new Set(autodiff.relatedIds!.slice(0, 2)), new Set(others));
  });
});

/** Identifiers the generator may write that need not be in the source: Rust keywords and its own small vocabulary. */
const VOCABULARY = new Set([
  "as", "break", "const", "continue", "crate", "else", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static", "super", "true", "while", "_",
  "would_panic", "check", "reaches", "matches", "config", "IntoIterator", "into_iter", "any", "Result", "Ok", "Err", "bool", "str", "cfg", "all", "debug_assertions",
]);

function identifiers(code: string): string[] {
  return lex(code).filter((t) => t.kind === "ident").map((t) => t.text);
}

describe("nothing invented", () => {
  it("each identifier in triggerScenarios' code, validationCode and typeGuard occurs in the source file", () => {
    let checked = 0;
    for (const c of cases) {
      const source = new Set(identifiers(c.text));
      for (const e of c.envelopes) {
        const r = e.record;
        const spans = [...(r.triggerScenarios ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
        for (const [field, code] of [...spans.map((s) => ["triggerScenarios", s] as const), ["validationCode", r.validationCode ?? ""] as const, ["typeGuard", r.typeGuard ?? ""] as const]) {
          for (const id of identifiers(code)) {
            checked++;
            assert.ok(source.has(id) || VOCABULARY.has(id), `${c.name}.rs:${r.lineNumber} ${field} names \`${id}\`, which is not in the source`);
          }
        }
      }
    }
    assert.ok(checked > 100, `only ${checked} identifiers checked`);
  });
});

function hasRustc(): boolean {
  return spawnSync("rustc", ["--version"], { encoding: "utf8" }).status === 0;
}

/** Compiles `program` with rustc in a temp dir and runs it; fails on a compile error or a panic. */
function compileAndRun(program: string): void {
  const dir = tempDir("error-catalog-rustc-");
  try {
    const src = path.join(dir, "main.rs");
    writeFileSync(src, program);
    const bin = path.join(dir, "main");
    const compiled = spawnSync("rustc", ["--edition", "2021", "-A", "warnings", "-o", bin, src], { encoding: "utf8" });
    assert.equal(compiled.status, 0, `rustc failed:\n${compiled.stderr}`);
    execFileSync(bin, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface GuardCase {
  readonly message: string;
  readonly call: string;
  readonly reach: readonly string[];
  readonly pass: readonly string[];
}

describe("generated guards compile and decide", { skip: hasRustc() ? false : "rustc is not installed" }, () => {
  for (const c of cases.filter((x) => x.group === "programs")) {
    it(`programs/${c.name}.rs: would_panic and check are true exactly for inputs that reach the panic`, () => {
      const spec = JSON.parse(readFileSync(fixture("analyze", "programs", `${c.name}.guards.json`), "utf8")) as { cases: GuardCase[] };
      // Note: each record's functions go into a module of their own with the checks that call
      // them (a child module sees its parent's private items: the fixture and `message`).
      const cases = new Map(spec.cases.map((k) => [k.message, k]));
      const modules: string[] = [];
      const runs: string[] = [];
      c.envelopes.forEach((e, i) => {
        const k = cases.get(e.record.errorMessage);
        if (e.record.typeGuard === null || e.record.validationCode === null) {
          assert.equal(k, undefined, `no function-form guard for "${e.record.errorMessage}"`);
          return;
        }
        const lines = (k?.reach ?? []).map(
          (args) => `    assert!(would_panic(${args}), "would_panic({}) should be true", ${JSON.stringify(args)});
    assert!(check(${args}).is_err(), "check({}) should fail", ${JSON.stringify(args)});
    let text = message(std::panic::catch_unwind(|| { let _ = ${k!.call}(${args}); }));
    assert!(text.contains(${JSON.stringify(k!.message)}), "{}({}) should panic with the message, got {:?}", ${JSON.stringify(k!.call)}, ${JSON.stringify(args)}, text);`,
        );
        lines.push(...(k?.pass ?? []).map((args) => `    assert!(!would_panic(${args}), "would_panic({}) should be false", ${JSON.stringify(args)});\n    assert!(check(${args}).is_ok(), "check({}) should pass", ${JSON.stringify(args)});`));
        modules.push(`mod g${i} {\n#![allow(warnings)]\nuse super::*;\n${e.record.typeGuard}\n${e.record.validationCode}\npub fn run() {\n${lines.join("\n")}\n}\n}`);
        if (k !== undefined) runs.push(`    g${i}::run();`);
        cases.delete(e.record.errorMessage);
      });
      assert.deepEqual([...cases.keys()], [], "cases without a record");
      const checks = runs;
      const program = `${c.text}\n${modules.join("\n")}\n
fn message(outcome: std::thread::Result<()>) -> String {
    match outcome {
        Ok(()) => String::from("<no panic>"),
        Err(p) => p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default(),
    }
}

fn main() {
    std::panic::set_hook(Box::new(|_| {}));
${checks.join("\n")}
}
`;
      compileAndRun(program);
    });
  }
});

describe("a configuration's guard as the user's code", { skip: hasRustc() ? false : "rustc is not installed" }, () => {
  it("compiles outside the crate's module and is true exactly for a configuration that panics", () => {
    const frames = cases.find((c) => c.name === "frames")!;
    const guard = frames.envelopes.find((e) => e.record.lineNumber === 9)!.record.typeGuard!;
    // Note: the fixture's own type and method, in a module of their own: the guard sees only what is public.
    const crate = /pub struct WindowConfig \{[\s\S]*?\n\}\n\nimpl WindowConfig \{[\s\S]*?\n\}\n/.exec(frames.text)![0];
    const program = `mod lib {\n${crate}}\nuse lib::WindowConfig;\n${guard}\nfn main() {\n    std::panic::set_hook(Box::new(|_| {}));\n    assert!(would_panic(&WindowConfig { size: 0 }));\n    assert!(std::panic::catch_unwind(|| WindowConfig { size: 0 }.init()).is_err());\n    assert!(!would_panic(&WindowConfig { size: 3 }));\n    assert!(std::panic::catch_unwind(|| WindowConfig { size: 3 }.init()).is_ok());\n}\n`;
    compileAndRun(program);
  });
});

describe("a guard on the variant of a generic type's `self` as the user's code", { skip: hasRustc() ? false : "rustc is not installed" }, () => {
  it("declares the impl's type parameters, takes the value in place of self, compiles and decides", () => {
    const asInt: FunctionFact = { name: "int", line: 10, visibility: "pub", generics: null, whereClause: null, receiver: "&self", params: [], returnType: "&B", implGenerics: "<B: Clone>", implType: "Handle<B>", implTrait: null, traitName: null, lets: [], unchangedParams: [] };
    const arm = { kind: "match" as const, line: 11, scrutinee: "self", pattern: "_", guard: null, attributes: [], earlierArms: [{ pattern: "Handle::Int(b)", guard: null, attributes: [] }] };
    const facts: RecordFacts = { crate: "lib", module: "", crateDescription: null, crateKind: "lib", moduleGates: [], items: [{ kind: "fn", name: "int", visibility: "pub", line: 10 }], function: asInt, gates: [], conditions: [arm], macro: null, callers: [], boundInside: [], exitInPath: false, exitBeforePath: false, sameFunction: [], entryPoints: [{ symbol: "Handle::int", path: "src/lib.rs", line: 10, via: ["Handle::int"], confidence: "self" }] };
    const guard = analysisFields("unreachable", "internal error: entered unreachable code", "src/lib.rs", 13, facts, []).typeGuard!;
    assert.match(guard, /^\/\/ `value` is your `Handle<B>`\.\nfn would_panic<B: Clone>\(value: &Handle<B>\) -> bool \{/);
    assert.doesNotMatch(guard, /\bself\b/);
    const crate = "pub enum Handle<B> { Int(B), Float(B) }\nimpl<B: Clone> Handle<B> {\n    pub fn int(&self) -> &B {\n        match self {\n            Handle::Int(b) => b,\n            _ => unreachable!(),\n        }\n    }\n}\n";
    compileAndRun(`mod lib {\n${crate}}\nuse lib::Handle;\n${guard}\nfn main() {\n    std::panic::set_hook(Box::new(|_| {}));\n    assert!(!would_panic(&Handle::Int(1u8)));\n    assert!(std::panic::catch_unwind(|| { Handle::Int(1u8).int(); }).is_ok());\n    assert!(would_panic(&Handle::Float(1u8)));\n    assert!(std::panic::catch_unwind(|| { Handle::Float(1u8).int(); }).is_err());\n}\n`);
  });
});

describe("a catch_unwind sketch of a method that returns a borrow", { skip: hasRustc() ? false : "rustc is not installed" }, () => {
  it("makes the call a statement, so that the closure returns no borrow of what it captures, and compiles", () => {
    const method: FunctionFact = { name: "unhandled_panic", line: 10, visibility: "pub", generics: null, whereClause: null, receiver: "&mut self", params: [{ pattern: "behavior", type: "u8" }], returnType: "&mut Self", implGenerics: null, implType: "LocalSet", implTrait: null, traitName: null, lets: [], unchangedParams: ["behavior"] };
    const facts: RecordFacts = { crate: "lib", module: "", crateDescription: null, crateKind: "lib", moduleGates: [], items: [{ kind: "fn", name: "unhandled_panic", visibility: "pub", line: 10 }], function: method, gates: [], conditions: [{ kind: "expect", line: 12, receiver: "self.started.then_some(())" }], macro: null, callers: [], boundInside: [], exitInPath: false, exitBeforePath: false, sameFunction: [], entryPoints: [{ symbol: "LocalSet::unhandled_panic", path: "src/lib.rs", line: 10, via: ["LocalSet::unhandled_panic"], confidence: "self" }] };
    const sketch = analysisFields("expect", "already started", "src/lib.rs", 12, facts, []).tryCatchPattern!;
    assert.match(sketch, /\|\| \{ value\.unhandled_panic\(behavior\); \}/);
    const crate = "pub struct LocalSet { pub started: bool }\nimpl LocalSet {\n    pub fn unhandled_panic(&mut self, behavior: u8) -> &mut Self {\n        self.started.then_some(()).expect(\"already started\");\n        let _ = behavior;\n        self\n    }\n}\n";
    compileAndRun(`mod lib {\n${crate}}\nuse lib::LocalSet;\n#[allow(warnings)]\nfn sketch(value: &mut LocalSet, behavior: u8) {\n${sketch}\n}\nfn main() {\n    std::panic::set_hook(Box::new(|_| {}));\n    sketch(&mut LocalSet { started: false }, 1);\n    sketch(&mut LocalSet { started: true }, 1);\n}\n`);
  });
});

/**
 * A function that holds a record's `catch_unwind` sketch, with its stand-ins as parameters: the
 * receiver as `value` (of the impl's type, borrowed as the method borrows it) and the function's
 * parameters as it declares them.
 */
function sketchHolder(e: Envelope, i: number): string {
  const fn = e.facts!.function!;
  const receiver = fn.receiver === null ? [] : [`value: ${fn.receiver.replace(/^mut\s+/, "").replace(/\bself\b/, fn.implType ?? "")}`];
  const params = fn.params.map((p) => `${p.pattern}: ${p.type}`);
  return `#[allow(warnings)]\nfn sketch${i}${fn.generics ?? ""}(${[...receiver, ...params].join(", ")}) {\n${e.record.tryCatchPattern}\n}`;
}

describe("generated catch_unwind sketches compile", { skip: hasRustc() ? false : "rustc is not installed" }, () => {
  for (const c of cases.filter((x) => x.group === "programs")) {
    it(`programs/${c.name}.rs: each sketch compiles with its stand-ins of the declared types`, () => {
      const holders = c.envelopes.flatMap((e, i) => (e.record.tryCatchPattern === null || e.facts?.function === undefined ? [] : [sketchHolder(e, i)]));
      const dir = tempDir("error-catalog-rustc-");
      try {
        const src = path.join(dir, "lib.rs");
        writeFileSync(src, `${c.text}\n${holders.join("\n")}\n`);
        const compiled = spawnSync("rustc", ["--edition", "2021", "--crate-type", "lib", "-A", "warnings", "-o", path.join(dir, "lib.rlib"), src], { encoding: "utf8" });
        assert.equal(compiled.status, 0, `rustc failed:\n${compiled.stderr}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
  it("programs/catching.rs writes the sketches that compile and leaves out those that would not", () => {
    const c = cases.find((x) => x.name === "catching")!;
    assert.deepEqual(c.envelopes.filter((e) => e.record.tryCatchPattern !== null).map((e) => e.facts!.function!.name).sort(), ["advance", "port"]);
  });
});

describe("sameJson (how carried-over facts are compared)", () => {
  it("is equality of the JSON text the values would have, whatever the key order", () => {
    const facts = { crate: "c", function: { name: "f", line: 3, params: [{ pattern: "x", type: "u8" }] }, gates: [] };
    assert.ok(sameJson(facts, JSON.parse(JSON.stringify(facts))));
    assert.ok(sameJson({ a: 1, b: [2, { c: null }] }, { b: [2, { c: null }], a: 1 }), "key order");
    assert.ok(sameJson({ a: 1, gone: undefined }, { a: 1 }), "an undefined key is absent, as in JSON");
    assert.ok(!sameJson({ a: 1 }, { a: 1, b: null }), "null is a value");
    assert.ok(!sameJson([1, 2], [2, 1]), "array order");
    assert.ok(!sameJson({ a: [1] }, { a: { 0: 1 } }), "an array is not an object");
    assert.ok(!sameJson({ a: "1" }, { a: 1 }));
    assert.ok(!sameJson({ f: { line: 3 } }, { f: { line: 4 } }), "nested");
  });
});

describe("declaredKind (an expect's receiver, Option or Result, by what its function declares)", () => {
  const params = [{ pattern: "fan_in", type: "Option<usize>" }, { pattern: "mut read", type: "std::result::Result<u8, E>" }, { pattern: "n", type: "usize" }];
  const lets = ["let cached: Option<u8> = None;", "let found = Some(3);", "let parsed = Ok(1);", "let other = make();"];

  it("reads a parameter's type, a let's type or value, a test in the conditions, through methods that keep the kind", () => {
    assert.equal(declaredKind("fan_in", params, lets, []), "option");
    assert.equal(declaredKind("read", params, lets, []), "result");
    assert.equal(declaredKind("fan_in.as_ref()", params, lets, []), "option");
    assert.equal(declaredKind("cached", params, lets, []), "option");
    assert.equal(declaredKind("found.take()", params, lets, []), "option");
    assert.equal(declaredKind("parsed", params, lets, []), "result");
    assert.equal(declaredKind("self.slot", [], [], ["(ctx.is_set(), self.slot.is_some())"]), "option");
    assert.equal(declaredKind("job", [], [], ["job.is_err()"]), "result");
  });

  it("says nothing where the function does not declare it", () => {
    assert.equal(declaredKind("n", params, lets, []), null);
    assert.equal(declaredKind("other", params, lets, []), null);
    assert.equal(declaredKind("self.inner.take()", params, lets, []), null);
    assert.equal(declaredKind("my_job", [], [], ["job.is_err()"]), null);
    assert.equal(declaredKind("x.job", [], [], ["job.is_err()"]), null);
  });
});

describe("the error value a panic formats (errBinding, closureParam, formattedNames, lastLetValue, valueCalls)", () => {
  it("reads the name an Err pattern or an error handler's closure binds, and nothing else", () => {
    assert.equal(errBinding("Err(msg)"), "msg");
    assert.equal(errBinding("Err( ref e )"), "e");
    assert.equal(errBinding("Err(_)"), null);
    assert.equal(errBinding("Err(Error::Io(e))"), null);
    assert.equal(errBinding("Some(msg)"), null);
    assert.equal(closureParam("|err|"), "err");
    assert.equal(closureParam("|err: String|"), "err");
    assert.equal(closureParam("move |e|"), "e");
    assert.equal(closureParam("||"), null);
    assert.equal(closureParam("|a, b|"), null);
  });

  it("reads the names a format macro prints: named holes and plain arguments after the format string", () => {
    assert.deepEqual(formattedNames('panic!("{}", msg);'), ["msg"]);
    assert.deepEqual(formattedNames('panic!("Failed: {err:?} at {}", &path)'), ["err", "path"]);
    assert.deepEqual(formattedNames('panic!("{}", e.to_string())'), ["e"]);
    assert.deepEqual(formattedNames('panic!("{}", f(e))'), []);
    assert.deepEqual(formattedNames('panic!("{{literal}}")'), []);
    assert.deepEqual(formattedNames("x.unwrap()"), []);
  });

  it("reads a let's value to its own `;`, a match as the value included", () => {
    const src = "let res = match h() {\n  Ok(c) => f(Some(c)),\n  Err(_) => f(None),\n};\nlet other = 1;";
    assert.equal(lastLetValue(src, "res"), "match h() {\n  Ok(c) => f(Some(c)),\n  Err(_) => f(None),\n}");
    assert.equal(lastLetValue(src, "other"), "1");
    assert.equal(lastLetValue("if let Ok(res) = g() {}", "res"), undefined);
  });

  it("reads the calls a value comes from, past .await and ?, and into a one-argument wrapper", () => {
    assert.deepEqual(valueCalls("clock.advance(duration)"), ["advance"]);
    assert.deepEqual(valueCalls("open_channels(&plan.endpoint)\n .await"), ["open_channels"]);
    assert.deepEqual(valueCalls("executor.block_on(open_channels(endpoint))"), ["block_on", "open_channels"]);
    assert.deepEqual(valueCalls("f(a, g(b))"), ["f"]);
    assert.deepEqual(valueCalls("res"), []);
  });
});

describe("receiverKind through std's combinators", () => {
  it("gives the kind of the value a combinator is called on (and_then, map, copied), and none where that value's kind is not shown", () => {
    assert.equal(receiverKind("Rc::get_mut(&mut self.context).and_then(|ctx| Arc::get_mut(&mut ctx.shared))"), "option");
    assert.equal(receiverKind("text.parse::<u8>().map(|x| x + 1)"), "result");
    assert.equal(receiverKind("x.get(0).copied()"), "option");
    assert.equal(receiverKind("foo.map(f)"), null);
  });
  it("reads the call before an .await, write! and writeln!, and std's slice and file methods", () => {
    const kinds: [string, string][] = [["Endpoint::builder(p)\n        .bind()\n        .await", "result"], ['writeln!(&mut self.file, "{item}")', "result"], ["data.split_first()", "option"], ["f.read_exact(&mut buf)", "result"], ["create_dir_all(&cache_dir)", "result"]];
    assert.deepEqual(kinds.map(([receiver]) => receiverKind(receiver)), kinds.map(([, kind]) => kind));
  });
});

