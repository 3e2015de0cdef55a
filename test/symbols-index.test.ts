/**
 * The symbol index on small workspaces written for it, file by file: which methods are public when
 * types or traits of the same name stand in several modules, when a type's module is private but
 * a `pub use` re-exports it, and which calls through a type parameter (or a trait's method) reach
 * the implementations. Each workspace is a map of paths to Rust text and the place of each file;
 * expectations by hand.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { indexFile } from "../pipeline/symbols/file.js";
import { SymbolIndex } from "../pipeline/symbols/index.js";

/** A file of a workspace: its path, its package and module, and its text (lines). */
type Source = readonly [path: string, pkg: string, module: string, lines: readonly string[]];

function indexOf(sources: readonly Source[]): SymbolIndex {
  const places = new Map(sources.map(([path, pkg, module]) => [path, { package: pkg, module }]));
  const files = sources.map(([path, , , lines]) => ({ path, test: false, symbols: indexFile(lines.join("\n")) }));
  return new SymbolIndex(files, (path) => places.get(path) ?? { package: null, module: null });
}

function node(index: SymbolIndex, symbol: string, path?: string) {
  const found = index.nodes.filter((n) => n.symbol === symbol && (path === undefined || n.path === path));
  assert.equal(found.length, 1, `one ${symbol}${path === undefined ? "" : ` in ${path}`}`);
  return found[0]!;
}

function entries(index: SymbolIndex, symbol: string, path?: string) {
  return index.entryPoints(node(index, symbol, path)).map((e) => [e.symbol, e.via.join(" → "), e.confidence, e.through.join(", ")]);
}

describe("the symbol index: public types and traits", () => {
  // A crate with a public `Numeric` and a `pub(crate)` one; `Int` is declared in a private module and re-exported by another.
  const crate: Source[] = [
    ["t/src/lib.rs", "t", "", ["mod bridge;", "pub mod api;", "pub(crate) mod engine;"]],
    ["t/src/bridge/mod.rs", "t", "bridge", ["pub mod kind;", "mod numeric;", "mod ops;"]],
    ["t/src/bridge/kind.rs", "t", "bridge::kind", ["pub struct Int;", "pub struct Hidden;", "impl Int {", "    pub fn zero() -> Int { Int }", "}", "impl Hidden {", "    pub fn make() {}", "}"]],
    ["t/src/bridge/numeric.rs", "t", "bridge::numeric", ["pub(crate) trait Numeric {", "    fn mean(x: u32) -> u32;", "}"]],
    ["t/src/bridge/ops.rs", "t", "bridge::ops", [
      "use crate::{bridge::Numeric, Int};",
      "impl Numeric for Int {",
      "    fn mean(x: u32) -> u32 { assert!(x > 0); x }",
      "}",
    ]],
    ["t/src/api.rs", "t", "api", [
      "pub use crate::bridge::kind::Int;",
      "pub trait Numeric {",
      "    fn total(&self) -> u32;",
      "}",
      "impl Numeric for Int {",
      "    fn total(&self) -> u32 { 0 }",
      "}",
    ]],
    ["t/src/engine/mod.rs", "t", "engine", ["pub mod view;"]],
    ["t/src/engine/view.rs", "t", "engine::view", [
      "use other::ViewOps;",
      "#[derive(CubeType)]",
      "pub struct Output;",
      "impl ViewOps for OutputExpand {",
      "    fn read(&self) { todo!() }",
      "}",
      "impl ViewOps for Output {",
      "    fn write(&self) { todo!() }",
      "}",
    ]],
  ];
  const index = indexOf(crate);

  it("keeps an impl of the pub(crate) trait the file's use names in the crate, though a pub trait of that name stands in another module", () => {
    assert.equal(node(index, "Int::mean").public, false);
    assert.equal(node(index, "Int::total").public, true, "the pub trait's impl, for a type re-exported from a private module");
  });

  it("takes a type re-exported by a reachable pub use as reachable, and one in a private module that nothing re-exports as not", () => {
    assert.equal(node(index, "Int::zero").public, true);
    assert.equal(node(index, "Hidden::make").public, false);
  });

  it("keeps the methods of a type in a pub(crate) module in the crate, a derive's companion type (`OutputExpand`) with them", () => {
    assert.equal(node(index, "Output::write").public, false);
    assert.equal(node(index, "OutputExpand::read").public, false);
  });
});

describe("the symbol index: modules the syntax declares elsewhere", () => {
  it("reads a module declared in a macro's invocation, and takes a module its parent does not declare as reachable", () => {
    const index = indexOf([
      ["m/src/lib.rs", "m", "", ["cfg_net! {", "    pub mod net;", "    mod hidden;", "}"]],
      ["m/src/net.rs", "m", "net", ["pub fn connect() {}"]],
      ["m/src/hidden.rs", "m", "hidden", ["pub fn secret() {}"]],
      ["m/src/made.rs", "m", "made", ["pub fn expanded() {}"]],
    ]);
    assert.deepEqual([node(index, "connect").public, node(index, "secret").public, node(index, "expanded").public], [true, false, true]);
  });
});

describe("the symbol index: calls", () => {
  it("resolves a path call to the type the caller's file declares when other modules of the package declare one of that name", () => {
    const index = indexOf([
      ["d/src/lib.rs", "d", "", ["mod ser;", "mod de;", "pub fn derive_ser() { ser::expand(); }", "pub fn derive_de() { de::expand(); }"]],
      ["d/src/ser.rs", "d", "ser", ["struct Parameters;", "impl Parameters {", "    fn new() { build(); }", "}", "pub fn expand() { Parameters::new(); }", "fn build() {}"]],
      ["d/src/de.rs", "d", "de", ["struct Parameters;", "impl Parameters {", "    fn new() { build(); }", "}", "pub fn expand() { Parameters::new(); }", "fn build() { check(); }", "fn check() { panic!() }"]],
    ]);
    assert.deepEqual(entries(index, "check"), [["derive_de", "derive_de → expand → Parameters::new → build → check", "resolved", ""]]);
    assert.deepEqual(index.resolvedCallers(node(index, "Parameters::new", "d/src/ser.rs")), ["expand"]);
  });

  it("resolves a module path and a used function to the caller's package, and a module path its package has a module for to nothing of another package's", () => {
    const index = indexOf([
      ["p/src/lib.rs", "p", "", ["pub mod kernel;", "pub mod grid;", "pub fn run() { kernel::gather(); }", "pub fn draw() { use crate::grid::sample; sample(); }"]],
      ["p/src/kernel/mod.rs", "p", "kernel", ["mod imp;", "pub use imp::*;"]],
      ["p/src/grid.rs", "p", "grid", ["pub(crate) fn sample() { panic!() }"]],
      ["q/src/lib.rs", "q", "", ["pub mod kernel;", "pub mod grid;"]],
      ["q/src/kernel.rs", "q", "kernel", ["pub fn gather() { panic!() }"]],
      ["q/src/grid.rs", "q", "grid", ["pub fn sample() { panic!() }"]],
    ]);
    assert.deepEqual(index.resolvedCallers(node(index, "gather", "q/src/kernel.rs")), []);
    assert.deepEqual(index.resolvedCallers(node(index, "sample", "p/src/grid.rs")), ["draw"]);
    assert.deepEqual(index.resolvedCallers(node(index, "sample", "q/src/grid.rs")), []);
  });

  const backends: Source[] = [
    ["b/src/lib.rs", "b", "", ["pub mod ops;", "pub mod api;", "pub mod flex;", "pub mod dispatch;"]],
    ["b/src/ops.rs", "b", "ops", [
      "pub trait FloatOps {",
      "    fn scatter_add(x: u32) -> u32;",
      "    fn scatter(x: u32, add: bool) -> u32 {",
      "        if add { Self::scatter_add(x) } else { unimplemented!() }",
      "    }",
      "}",
    ]],
    ["b/src/flex.rs", "b", "flex", [
      "use crate::ops::FloatOps;",
      "pub struct Flex;",
      "impl FloatOps for Flex {",
      "    fn scatter_add(x: u32) -> u32 { if x > 3 { panic!(\"unsupported\") } x }",
      "}",
    ]],
    ["b/src/dispatch.rs", "b", "dispatch", [
      "use crate::ops::FloatOps;",
      "macro_rules! on_backend {",
      "    ($name:ident, $body:expr) => {{ type B = $crate::$name; $body }};",
      "}",
      "pub struct Dispatch;",
      "impl FloatOps for Dispatch {",
      "    fn scatter_add(x: u32) -> u32 { on_backend!(Flex, B::scatter_add(x)) }",
      "}",
    ]],
    ["b/src/api.rs", "b", "api", [
      "use crate::ops::FloatOps;",
      "pub struct Tensor<K> { k: K }",
      "impl<K: FloatOps> Tensor<K> {",
      "    pub fn scatter(self, x: u32) -> u32 { K::scatter(x, true) }",
      "}",
      "pub fn unrelated() -> u32 { T::scatter_add(1) }",
    ]],
  ];

  it("links a call through a type parameter, a trait's default method calling Self, and a macro's type alias to the implementations, and names the trait methods", () => {
    const index = indexOf(backends);
    const flex = index.entryPoints(node(index, "Flex::scatter_add"));
    assert.deepEqual(flex.map((e) => [e.symbol, e.via.join(" → "), e.confidence, e.through.join(", ")]), [
      ["Flex::scatter_add", "Flex::scatter_add", "self", ""],
      ["Tensor::scatter", "Tensor::scatter → FloatOps::scatter → Flex::scatter_add", "type-parameter", "FloatOps::scatter, FloatOps::scatter_add"],
      ["Dispatch::scatter_add", "Dispatch::scatter_add → Flex::scatter_add", "type-parameter", "FloatOps::scatter_add"],
      ["FloatOps::scatter", "FloatOps::scatter → Flex::scatter_add", "type-parameter", "FloatOps::scatter_add"],
    ]);
    // A qualifier that is no type parameter, alias, type or module in scope (`T` in `unrelated`) links nothing.
    assert.equal(index.nodes.filter((n) => n.symbol === "unrelated").length, 1);
    assert.ok(!flex.some((e) => e.symbol === "unrelated"));
    // Calls through a type parameter are not calls the index resolves: no caller of the record.
    assert.deepEqual(index.resolvedCallers(node(index, "Flex::scatter_add")), []);
  });

  it("links a call through a type parameter to the implementations of the types its bounds admit only", () => {
    // `Fused<B>` runs for `B: FusedBackend`, which only `Cube` implements: `Fused::scatter_add` reaches `Cube`'s, not `Flex`'s; a bound the workspace implements for any type (a blanket impl) narrows nothing.
    const fused: Source[] = [
      ["b/src/fused.rs", "b", "fused", [
        "use crate::ops::FloatOps;",
        "pub trait FusedBackend {",
        "    fn fuse(&self);",
        "}",
        "pub trait Any2 {",
        "    fn any(&self);",
        "}",
        "impl<T: Clone> Any2 for T {",
        "    fn any(&self) {}",
        "}",
        "pub struct Cube;",
        "impl FusedBackend for Cube {",
        "    fn fuse(&self) {}",
        "}",
        "impl FloatOps for Cube {",
        "    fn scatter_add(x: u32) -> u32 { assert!(x < 9); x }",
        "}",
        "pub struct Fused<B> { b: B }",
        "impl<B: FusedBackend> FloatOps for Fused<B> {",
        "    fn scatter_add(x: u32) -> u32 { B::scatter_add(x) }",
        "}",
        "pub struct Wide<B> { b: B }",
        "impl<B> FloatOps for Wide<B> where B: Any2 {",
        "    fn scatter_add(x: u32) -> u32 { B::scatter_add(x) }",
        "}",
      ]],
    ];
    const index = indexOf([...backends.map(([p, pkg, m, lines]): Source => (p === "b/src/lib.rs" ? [p, pkg, m, [...lines, "pub mod fused;"]] : [p, pkg, m, lines])), ...fused]);
    const callers = (symbol: string) => index.entryPoints(node(index, symbol)).filter((e) => e.via.length === 2).map((e) => e.symbol).sort();
    assert.ok(callers("Cube::scatter_add").includes("Fused::scatter_add"));
    assert.ok(!callers("Flex::scatter_add").includes("Fused::scatter_add"));
    assert.ok(callers("Flex::scatter_add").includes("Wide::scatter_add"));
    assert.deepEqual(indexFile(fused[0]![3].join("\n")).functions.filter((f) => f.name === "scatter_add").map((f) => f.bounds), [undefined, [["B", ["FusedBackend"]]], [["B", ["Any2"]]]]);
  });

  it("links a call through a type parameter to nothing when the workspace has more than 16 implementations of the method", () => {
    const many: Source[] = Array.from({ length: 17 }, (_, k) => [`b/src/impl${k}.rs`, "b", `impl${k}`, ["use crate::ops::FloatOps;", `pub struct B${k};`, `impl FloatOps for B${k} {`, "    fn scatter_add(x: u32) -> u32 { x }", "}"]] as const);
    const index = indexOf([...backends, ...many]);
    assert.ok(!index.entryPoints(node(index, "Flex::scatter_add")).some((e) => e.symbol === "Tensor::scatter" && e.via.length === 2));
    assert.ok(!index.entryPoints(node(index, "Flex::scatter_add")).some((e) => e.symbol === "Dispatch::scatter_add"));
  });
});

describe("indexFile: generics and a macro's type aliases", () => {
  it("reads the type parameters in scope of a method and the type aliases of a macro's body", () => {
    const s = indexFile([
      "macro_rules! m { () => { type B = $crate::X; type C = u8; }; }",
      "impl<'a, B: Backend<X>, const D: usize> Ops for Wrapper<'a, B> {",
      "    fn run<K, T: Into<u8>>(x: K) {}",
      "}",
      "fn plain() {}",
    ].join("\n"));
    assert.deepEqual(s.functions.map((f) => [f.name, f.generics]), [["run", ["K", "T", "B"]], ["plain", undefined]]);
    assert.deepEqual(s.macros.map((m) => [m.name, m.types]), [["m", ["B"]]]);
  });

  it("takes no call from the tokens of a quasi-quote: they run in the crate the macro writes them into", () => {
    const s = indexFile([
      "fn expand(input: Input) -> TokenStream {",
      "    let len = count(&input);",
      "    let body = quote_block! { _serde::Serializer::serialize_tuple_struct(__serializer, #len) };",
      "    quote! { fn f() { helper(#body) } }",
      "}",
    ].join("\n"));
    assert.deepEqual(s.functions[0]!.calls, ["count"]);
  });
});

describe("the symbol index: parameters handed on unchanged", () => {
  // `narrow` hands `length` and the tensor it is called on to the check; `dim` it rebinds first,
  // `start` it hands on once unchanged and once changed; `width` goes through two calls.
  const crate: Source[] = [
    ["t/src/lib.rs", "t", "", [
      "pub struct Tensor;",
      "impl Tensor {",
      "    pub fn narrow(self, dim: i64, start: usize, length: usize) -> Self {",
      "        let dim = dim as usize;",
      "        Check::narrow(&self, dim, start, length);",
      "        Check::narrow(&self, dim, start + 1, length);",
      "        self",
      "    }",
      "    pub fn pad(&self, width: usize) { self.pad_inner(width) }",
      "    fn pad_inner(&self, w: usize) { check_width(w, Vec::<(u8, u8)>::new()) }",
      "    pub fn stack(tensors: Vec<Tensor>) { Check::stack(tensors.as_slice()); Check::count(tensors.len()); }",
      "}",
      "pub(crate) struct Check;",
      "impl Check {",
      "    pub(crate) fn narrow(tensor: &Tensor, dim: usize, start: usize, length: usize) { assert!(length > 0); }",
      "    pub(crate) fn stack(tensors: &[Tensor]) { assert!(!tensors.is_empty()); }",
      "    pub(crate) fn count(n: usize) { assert!(n > 0); }",
      "}",
      "fn check_width(width: usize, pairs: Vec<(u8, u8)>) { assert!(width < 8); }",
    ]],
  ];
  const index = indexOf(crate);
  const carries = (symbol: string) => index.entryPoints(node(index, symbol)).map((e) => [e.symbol, e.carries.map(([a, b]) => `${a}←${b}`).join(" ")]);

  it("pairs each parameter of the check with the entry point's, through every call on the way", () => {
    assert.deepEqual(carries("Check::narrow"), [["Tensor::narrow", "tensor←self length←length"]]);
    assert.deepEqual(carries("check_width"), [["Tensor::pad", "width←width"]]);
  });

  it("takes a method of std's that gives the same value (`as_slice()`) as handing it on, and one that computes another (`len()`) as handing on that expression", () => {
    assert.deepEqual(carries("Check::stack"), [["Tensor::stack", "tensors←tensors"]]);
    assert.deepEqual(carries("Check::count"), [["Tensor::stack", "n←tensors.len()"]]);
  });

  it("reads the parameters a function takes, a turbofish's commas and generic types not splitting them", () => {
    const symbols = indexFile(crate[0]![3].join("\n"));
    const fn = (name: string) => symbols.functions.find((f) => f.name === name)!;
    assert.deepEqual(fn("narrow").params, ["dim", "start", "length"]);
    assert.deepEqual(fn("check_width").params, ["width", "pairs"]);
    assert.deepEqual(fn("pad_inner").passes, [["check_width", 0, "w"]]);
    assert.deepEqual(fn("pad").passes, [["self.pad_inner", 0, "width"]]);
  });
});

describe("the symbol index: functions a parent module re-exports", () => {
  // `kernel/pool/mod.rs` re-exports its child `base` by a glob; `other/mod.rs` does not re-export `inner`.
  const crate: Source[] = [
    ["k/src/lib.rs", "k", "", ["pub mod ops;", "mod kernel;", "mod other;"]],
    ["k/src/kernel/mod.rs", "k", "kernel", ["pub(crate) mod pool;"]],
    ["k/src/kernel/pool/mod.rs", "k", "kernel::pool", ["mod base;", "pub(crate) use base::*;"]],
    ["k/src/kernel/pool/base.rs", "k", "kernel::pool::base", ["pub(crate) fn avg_backward(x: u8) { assert!(x > 0); }"]],
    ["k/src/other/mod.rs", "k", "other", ["mod inner;"]],
    ["k/src/other/inner.rs", "k", "other::inner", ["pub(crate) fn hidden(x: u8) { assert!(x > 0); }"]],
    ["k/src/ops.rs", "k", "ops", ["pub fn backward(x: u8) { crate::kernel::pool::avg_backward(x); crate::other::hidden(x); }"]],
  ];
  const index = indexOf(crate);

  it("resolves a path through the re-export to the child's function, and only there", () => {
    assert.deepEqual(index.resolvedCallers(node(index, "avg_backward")), ["backward"]);
    assert.deepEqual(index.resolvedCallers(node(index, "hidden")), []);
  });
});

describe("the symbol index: entry points that reach much", () => {
  // `run_op` calls 41 functions (one a step to `check`); `narrow` reaches `check` through two private steps.
  const steps = Array.from({ length: 40 }, (_, i) => `fn step${i}(x: u8) {}`);
  const crate: Source[] = [
    ["d/src/lib.rs", "d", "", [
      "fn check(x: u8) { assert!(x > 0); }",
      "fn via_one(x: u8) { via_two(x); }",
      "fn via_two(x: u8) { check(x); }",
      "pub fn narrow(x: u8) { via_one(x); }",
      ...steps,
      `pub fn run_op(x: u8) { check(x); ${steps.map((_, i) => `step${i}(x);`).join(" ")} }`,
    ]],
  ];
  const index = indexOf(crate);

  it("lists a function calling more than 40 others after one that reaches the site by a longer path", () => {
    assert.deepEqual(entries(index, "check").map(([symbol, via]) => `${symbol}: ${via}`), ["narrow: narrow → via_one → via_two → check", "run_op: run_op → check"]);
  });
});

describe("the symbol index: traits of one name and an impl of one for a type of that name", () => {
  // Two traits named `Error` (in `ser` and `de`); `doc` implements `ser::Error` for its own `Error`; `value` implements `de::Error`.
  const crate: Source[] = [
    ["s/src/lib.rs", "s", "", ["pub mod ser;", "pub mod de;", "pub mod doc;", "pub mod value;", "pub mod api;"]],
    ["s/src/ser.rs", "s", "ser", ["pub trait Error {", "    fn custom(msg: &str) -> Self;", "}"]],
    ["s/src/de.rs", "s", "de", ["pub trait Error {", "    fn custom(msg: &str) -> Self;", "}"]],
    ["s/src/doc.rs", "s", "doc", ["use crate::ser;", "pub struct Error;", "impl ser::Error for Error {", "    fn custom(msg: &str) -> Self { unimplemented!() }", "}"]],
    ["s/src/value.rs", "s", "value", ["use crate::de;", "pub struct Fail;", "impl de::Error for Fail {", "    fn custom(msg: &str) -> Self { panic!(\"{msg}\") }", "}"]],
    ["s/src/api.rs", "s", "api", [
      "use crate::de::Error;",
      "pub fn visit<E: Error>() -> E { Error::custom(\"no enum\") }",
    ]],
  ];
  const index = indexOf(crate);

  it("takes the impl for a type named like its trait as an implementation, not as the trait's own item", () => {
    assert.deepEqual(entries(index, "Error::custom", "s/src/doc.rs").map(([symbol, via]) => `${symbol}: ${via}`), ["Error::custom: Error::custom"]);
  });

  it("links a call the file means as `de::Error::custom` to `de::Error`'s implementations only", () => {
    assert.deepEqual(entries(index, "Fail::custom").map(([symbol, via, confidence]) => `${symbol}: ${via} (${confidence})`), ["Fail::custom: Fail::custom (self)", "visit: visit → Fail::custom (type-parameter)"]);
  });
});

describe("the symbol index: what a function calls before another", () => {
  const crate: Source[] = [
    ["c/src/lib.rs", "c", "", [
      "fn check(x: u8) { assert!(x > 0, \"x must be positive\"); }",
      "fn prepare(x: u8) -> u8 { x }",
      "fn kernel(x: u8) { assert!(x < 9, \"x must be small\"); }",
      "pub fn run(x: u8) { let y = prepare(x); check(y); kernel(y); check(x); }",
      "pub trait Op { fn apply(x: u8); }",
      "pub struct A;",
      "pub struct B;",
      "impl Op for A { fn apply(x: u8) { assert!(x > 1, \"a needs more\"); } }",
      "impl Op for B { fn apply(x: u8) { assert!(x > 2, \"b needs more\"); } }",
      "pub fn dispatch(k: u8, x: u8) { match k { 0 => A::apply(x), _ => B::apply(x) } }",
    ]],
  ];
  const index = indexOf(crate);

  it("lists the callees a function's code calls first, in the order written, each once", () => {
    const id = (s: string) => node(index, s).id;
    assert.deepEqual(index.calledBefore(id("run"), id("kernel")).map((i) => index.nodes[i]!.symbol), ["prepare", "check"]);
    assert.deepEqual(index.calledBefore(id("run"), id("prepare")), []);
    assert.deepEqual(index.calledBefore(id("check"), id("kernel")), [], "check does not call kernel");
  });

  it("leaves out another implementation of the same trait method: a dispatch's arms are alternatives", () => {
    assert.deepEqual(index.calledBefore(node(index, "dispatch").id, node(index, "B::apply").id), []);
  });
});

describe("indexFile: what a function returns, by its return type's head", () => {
  it("reads Option, Result and paths ending in Result, no return type as none, and nothing else", () => {
    const s = indexFile([
      "fn a() -> Option<u8> { None }",
      "fn b() -> io::Result<()> { Ok(()) }",
      "fn c() -> std::result::Result<u8, E> where E: Clone { todo!() }",
      "fn d() -> fmt::Result { Ok(()) }",
      "fn e() -> Vec<Option<u8>> { vec![] }",
      "fn f(x: Option<u8>) { }",
    ].join("\n"));
    assert.deepEqual(s.functions.map((f) => [f.name, f.returns ?? null]), [["a", "option"], ["b", "result"], ["c", "result"], ["d", "result"], ["e", null], ["f", "none"]]);
  });
});

describe("the symbol index: a method called on a parameter of a named type", () => {
  const crate: Source[] = [
    ["o/src/lib.rs", "o", "", [
      "pub struct Options { pub n: usize }",
      "pub struct Other;",
      "impl Options { fn check(&self) { assert!(self.n > 0, \"n must be positive\"); } }",
      "impl Other { fn check(&self) {} }",
      "pub fn run(options: &Options, other: Other) { options.check(); other.check(); }",
      "pub fn rebound(options: Options) { let options = Options { n: 0 }; options.check(); }",
    ]],
  ];
  const index = indexOf(crate);

  it("resolves it to that type's method, the parameter handed on as its self; a value a `let` rebinds is the let's, not the caller's", () => {
    const found = index.entryPoints(node(index, "Options::check")).map((e) => [e.symbol, e.confidence, e.carries.map((c) => c.join("←")).join(",")]);
    assert.deepEqual(found.sort(), [["rebound", "resolved", ""], ["run", "resolved", "self←options"]]);
  });
});

describe("the symbol index: a method called on a value a `let` binds to a named type", () => {
  const crate: Source[] = [
    ["l/src/lib.rs", "l", "", [
      "pub struct Clock { paused: bool }",
      "pub struct Sleep;",
      "impl Clock { pub fn new() -> Clock { Clock { paused: false } } fn pause(&self) { assert!(!self.paused, \"already paused\"); } }",
      "impl Sleep { fn pause(&self) {} }",
      "pub fn literal() { let clock = Clock { paused: true }; clock.pause(); }",
      "pub fn annotated() { let clock: crate::Clock = make(); clock.pause(); }",
      "pub fn made() -> Result<(), ()> { let mut clock = Clock::new()?; clock.pause(); Ok(()) }",
      "pub fn unknown() { let clock = Clock::open(); clock.pause(); }",
      "pub fn shadowed() { let clock = Clock::new(); let clock = other(clock); clock.pause(); }",
      "fn make() -> Clock { Clock::new() }",
    ]],
  ];
  const index = indexOf(crate);

  it("resolves it to that type's method where the let's annotation, struct literal or `T::new(…)` names the type, and not where its value is any other call", () => {
    assert.deepEqual(entries(index, "Clock::pause").map(([symbol]) => symbol).sort(), ["annotated", "literal", "made"]);
    assert.deepEqual(entries(index, "Sleep::pause"), []);
  });
});

describe("the symbol index: a trait's default method and the types that override it", () => {
  const crate: Source[] = [
    ["k/src/lib.rs", "k", "", [
      "pub trait Ops { fn fill(x: u8); fn clamp(x: u8) { Self::fill(x) } }",
      "pub struct Own;",
      "pub struct Plain;",
      "impl Ops for Own { fn fill(x: u8) { assert!(x > 0, \"own fill\"); } fn clamp(x: u8) {} }",
      "impl Ops for Plain { fn fill(x: u8) { assert!(x > 1, \"plain fill\"); } }",
    ]],
  ];
  const index = indexOf(crate);

  it("links the default's calls to the implementations of the types that use it, not of those with their own", () => {
    assert.deepEqual(index.entryPoints(node(index, "Plain::fill")).map((e) => e.via.join(" → ")), ["Plain::fill", "Ops::clamp → Plain::fill"]);
    assert.deepEqual(index.entryPoints(node(index, "Own::fill")).map((e) => e.via.join(" → ")), ["Own::fill"]);
  });
});

describe("the symbol index: a function named as a macro's argument", () => {
  const crate: Source[] = [
    ["m/src/lib.rs", "m", "", [
      "macro_rules! dispatch { ($x:expr, $f:ident) => { $f($x) }; }",
      "fn kernel(x: u8) { assert!(x > 0, \"x must be positive\"); }",
      "fn wrap(x: u8) -> u8 { x }",
      "pub fn attention(x: u8) { dispatch!(x, kernel); }",
      "pub fn other(x: u8) { dispatch!(wrap(x), wrap); }",
    ]],
  ];
  const index = indexOf(crate);

  it("is a call of it, where the file declares it; a name inside a call in the arguments is not", () => {
    assert.deepEqual(index.entryPoints(node(index, "kernel")).map((e) => e.via.join(" → ")), ["attention → kernel"]);
    const s = indexFile(crate[0]![3].join("\n"));
    assert.deepEqual(s.functions.find((f) => f.name === "other")!.calls, ["dispatch!", "wrap", "&wrap"]);
  });
});

describe("the symbol index: a function a parent module re-exports by name, called through the re-export", () => {
  const crate: Source[] = [
    ["p/src/lib.rs", "p", "", ["mod service;", "pub mod client;"]],
    ["p/src/service/mod.rs", "p", "service", ["mod base;", "pub(crate) use base::parse;"]],
    ["p/src/service/base.rs", "p", "service::base", ["pub fn parse(x: u8) { assert!(x > 0, \"bad handshake\"); }"]],
    ["p/src/client.rs", "p", "client", ["use crate::service::parse;", "pub fn connect(x: u8) { parse(x); }"]],
  ];
  const index = indexOf(crate);

  it("resolves the call to the re-exported function", () => {
    assert.deepEqual(index.entryPoints(node(index, "parse")).map((e) => [e.via.join(" → "), e.confidence]), [["connect → parse", "resolved"]]);
  });
});

describe("the symbol index: a function named alone as a call's argument", () => {
  const crate: Source[] = [
    ["g/src/lib.rs", "g", "", [
      "fn init() -> u8 { panic!(\"cannot init\") }",
      "fn fallback() -> u8 { panic!(\"no fallback\") }",
      "pub fn once() -> u8 { CELL.get_or_init(init) }",
      "pub fn value(x: Option<u8>) -> u8 { x.unwrap_or_else(fallback) }",
      "pub fn local(x: Option<u8>) -> u8 { let init = || 1; x.unwrap_or_else(init) }",
      "pub fn param(x: Option<u8>, fallback: fn() -> u8) -> u8 { x.unwrap_or_else(fallback) }",
      "pub fn built() -> Option<u8> { Some(fallback) .map(|f| 1) }",
    ]],
  ];
  const index = indexOf(crate);

  it("counts as a call of that function, unless a parameter or a `let` of the caller has the name, or a constructor takes it", () => {
    assert.deepEqual(entries(index, "init").map(([symbol]) => symbol), ["once"]);
    assert.deepEqual(entries(index, "fallback").map(([symbol]) => symbol), ["value"]);
  });
});

describe("the symbol pass: what a function returns by its head", () => {
  it("tells `Self` or its impl's own type from Option, Result and the rest", () => {
    const symbols = indexFile(["pub enum Error { Custom }", "impl Error {", "  pub fn custom(m: &str) -> Self { Error::Custom }", "  pub fn named() -> Error { Error::Custom }", "  pub fn generic() -> Error<u8> { todo!() }", "  pub fn parse(m: &str) -> Result<Self, Error> { Ok(Error::Custom) }", "  pub fn none(&self) {}", "}"].join("\n"));
    assert.deepEqual(symbols.functions.map((f) => [f.name, f.returns ?? null]), [["custom", "self"], ["named", "self"], ["generic", null], ["parse", "result"], ["none", "none"]]);
  });
});

describe("the symbol index: readings a review found wrong", () => {
  const crate: Source[] = [
    ["r/src/lib.rs", "r", "", [
      "pub struct DirBuilder;",
      "impl DirBuilder { pub fn new() -> Self { DirBuilder } fn recursive(&self) { panic!(\"own recursive\") } }",
      "pub fn std_builder() { let b = std::fs::DirBuilder::new(); b.recursive(); }",
      "pub fn own_builder() { let b = crate::DirBuilder::new(); b.recursive(); }",
      "fn unix() { panic!(\"a function named unix\") }",
      "pub fn gated() { #[cfg(unix)] let x = 1; }",
    ]],
  ];
  const index = indexOf(crate);

  it("types no value by another crate's path, and reads no attribute's words as a function named as an argument", () => {
    assert.deepEqual(entries(index, "DirBuilder::recursive").map(([symbol]) => symbol), ["own_builder"]);
    assert.deepEqual(entries(index, "unix"), []);
  });
});

describe("the symbol index: a method called on a field of self", () => {
  // `sync::Semaphore` holds a `batch::Semaphore` in its field `ll_sem`, through a module path; `Pool` holds it through `Arc<…>`; `Other` has a field of a type parameter.
  const crate: Source[] = [
    ["t/src/lib.rs", "t", "", ["pub mod sync;", "mod batch;"]],
    ["t/src/batch.rs", "t", "batch", ["pub(crate) struct Semaphore { permits: usize }", "impl Semaphore {", "    pub(crate) fn try_acquire(&self, n: u32) -> Result<(), TryAcquireError> {", "        if n == 0 { panic!(\"zero permits\"); }", "        Ok(())", "    }", "}"]],
    ["t/src/sync.rs", "t", "sync", [
      "pub struct Semaphore {",
      "    /// The low level semaphore",
      "    ll_sem: crate::batch::Semaphore,",
      "}",
      "pub struct Pool { pub(crate) inner: std::sync::Arc<Semaphore>, count: usize }",
      "pub struct Other<S> { sem: S }",
      "impl Semaphore {",
      "    pub fn try_acquire(&self) -> Result<(), TryAcquireError> {",
      "        self.ll_sem.try_acquire(1)",
      "    }",
      "}",
      "impl Pool {",
      "    pub fn take(&self) { self.inner.try_acquire().unwrap(); }",
      "}",
      "impl<S> Other<S> {",
      "    pub fn take(&self) { self.sem.try_acquire(); }",
      "}",
    ]],
  ];
  const index = indexOf(crate);

  it("reads the fields whose type is one named type, through a module path and Arc, not a type parameter", () => {
    assert.deepEqual(indexFile(crate[2]![3].join("\n")).fields, [["Semaphore", "ll_sem", "crate::batch::Semaphore"], ["Pool", "inner", "*Semaphore"]]);
    assert.deepEqual(node(index, "Other::take").fn!.calls, ["self.sem.try_acquire"]);
  });

  it("links the call to the method of the declaration the field's type means in the struct's file, so the public method is an entry point of the field's check", () => {
    const check = index.nodes.find((n) => n.symbol === "Semaphore::try_acquire" && n.path === "t/src/batch.rs")!;
    const found = index.entryPoints(check).map((e) => [e.symbol, e.via.join(" → "), e.confidence]);
    assert.deepEqual(found, [["Semaphore::try_acquire", "Semaphore::try_acquire → Semaphore::try_acquire", "resolved"]]);
    // Note: `Pool.inner` is the `Semaphore` of its own file: `Pool::take` reaches the check through it, past that public method, and is no entry point of it.
    const outer = index.nodes.find((n) => n.symbol === "Semaphore::try_acquire" && n.path === "t/src/sync.rs")!;
    assert.deepEqual(index.entryPoints(outer).map((e) => [e.symbol, e.via.join(" → "), e.confidence]), [["Semaphore::try_acquire", "Semaphore::try_acquire", "self"], ["Pool::take", "Pool::take → Semaphore::try_acquire", "resolved"]]);
  });

  it("leaves a field of a type outside the workspace (std's Mutex) to the name, and tells structs of the same name apart", () => {
    const other: Source[] = [
      ["u/src/lib.rs", "u", "", ["pub mod a;", "pub mod b;", "pub mod sync;"]],
      ["u/src/sync.rs", "u", "sync", ["pub struct Mutex;", "impl Mutex {", "    pub fn lock(&self) { panic!(\"poisoned async mutex\"); }", "}"]],
      ["u/src/a.rs", "u", "a", ["use std::sync::Mutex;", "pub struct Cache { map: Mutex<Vec<u8>>, st: State }", "pub struct State;", "impl State {", "    pub(crate) fn check(&self) { panic!(\"a\"); }", "}", "impl Cache {", "    pub fn get(&self) { self.map.lock(); self.st.check(); }", "}"]],
      ["u/src/b.rs", "u", "b", ["pub struct Cache { st: State }", "pub struct State;", "impl State {", "    pub(crate) fn check(&self) { panic!(\"b\"); }", "}", "impl Cache {", "    pub fn go(&self) { self.st.check(); }", "}"]],
    ];
    const u = indexOf(other);
    assert.deepEqual(entries(u, "Mutex::lock").map(([s]) => s), ["Mutex::lock"]);
    // Note: another crate's type by a `use` or a path, and a workspace type that lacks the method, link nothing.
    const foreign = indexOf([...other.slice(0, 2), ["u/src/c.rs", "u", "c", ["use parking_lot::Mutex;", "pub struct Pool { a: Mutex<u8>, b: mio::net::Mutex, s: crate::sync::Mutex }", "impl Pool {", "    pub fn take(&self) { self.a.lock(); self.b.lock(); self.s.unlock(); }", "}"]]]);
    assert.deepEqual(entries(foreign, "Mutex::lock").map(([s]) => s), ["Mutex::lock"]);
    assert.deepEqual(entries(u, "State::check", "u/src/a.rs").map(([s, via]) => [s, via]), [["Cache::get", "Cache::get → State::check"]]);
    assert.deepEqual(entries(u, "State::check", "u/src/b.rs").map(([s, via]) => [s, via]), [["Cache::go", "Cache::go → State::check"]]);
  });
});

describe("the symbol index: the line of a function's first call of another", () => {
  it("is the first call by the callee's name, by path, method or as an argument; null where it makes none", () => {
    const index = indexOf([["t/src/lib.rs", "t", "", [
      "pub fn max(x: &[f32]) -> f32 {",
      "    assert!(!x.is_empty(), \"max: cannot reduce an empty tensor\");",
      "    let m = reduce(x);",
      "    reduce(x).max(m)",
      "}",
      "fn reduce(x: &[f32]) -> f32 { x.iter().copied().fold(f32::MIN, f32::max) }",
    ]]]);
    assert.equal(index.firstCallLine(node(index, "max"), node(index, "reduce")), 3);
    assert.equal(index.firstCallLine(node(index, "reduce"), node(index, "max")), null);
  });
});
