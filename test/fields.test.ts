/**
 * The analysis fields of hand-written facts (the shape the extract stage and the symbol index
 * give): how a check is framed by who calls its function, and which `catch_unwind` sketches are
 * written. Expectations are read from the facts by hand.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analysisFields, messageAdvice } from "../pipeline/analyze/fields.js";
import { withOwnWords } from "../pipeline/analyze/words.js";
import type { EntryPoint, FunctionFact, RecordFacts } from "../pipeline/schema-types.generated.js";

function fn(over: Partial<FunctionFact>): FunctionFact {
  return { name: "f", line: 1, visibility: null, generics: null, whereClause: null, receiver: null, params: [], returnType: null, implGenerics: null, implType: null, implTrait: null, traitName: null, lets: [], unchangedParams: [], ...over };
}

function facts(function_: FunctionFact, over: Partial<RecordFacts> = {}): RecordFacts {
  return {
    crate: "lines", module: "read", crateDescription: null, crateKind: "lib", moduleGates: [], items: [{ kind: "fn", name: function_.name, visibility: function_.visibility, line: function_.line }],
    function: function_, gates: [], conditions: [], macro: null, callers: [], boundInside: [], exitInPath: false, exitBeforePath: false, sameFunction: [], ...over,
  };
}

const entry = (symbol: string, via: string[]): EntryPoint => ({ symbol, path: "src/lib.rs", line: 3, via, confidence: "resolved" });

describe("a check in a function users reach only through other functions", () => {
  // `pub(super) fn read_line_internal(output: &mut String)` with `assert!(output.is_empty())`, reached from `Lines::next_line`.
  const internal = fn({ name: "read_line_internal", line: 10, visibility: "pub(super)", params: [{ pattern: "output", type: "&mut String" }] });
  const check = { kind: "assert" as const, line: 12, macro: "assert", condition: "output.is_empty()" };

  it("says it checks what its callers pass and that whether they pass such a value is not worked out, with no fix that presumes the user controls it", () => {
    const f = analysisFields("assert", "assertion failed: output.is_empty()", "src/read.rs", 12, facts(internal, { conditions: [check], entryPoints: [entry("Lines::next_line", ["Lines::next_line", "read_line_internal"])] }), []);
    assert.match(f.documentation, /`read_line_internal` checks what its callers pass: it panics when `output\.is_empty\(\)` is false, a check of the parameter `output`/);
    assert.match(f.documentation, /Users do not call `read_line_internal` themselves/);
    assert.match(f.documentation, /is not worked out here; that a value of the user's is passed on unchanged and is the cause is a guess, not a finding/);
    // Note: what the check reads comes down from public functions: the user acts on their input to those, so the strategy is the input's.
    assert.equal(f.handlingStrategy, "validate-input");
    assert.ok(!f.tags.includes("precondition"), f.tags.join(", "));
    assert.equal(f.backgroundTag, "failed-precondition");
    assert.equal(f.validationCode, null);
    assert.equal(f.typeGuard, null);
    assert.equal(f.tryCatchPattern, null);
    const advice = [...f.solutions, ...f.preventionTips].join("\n");
    assert.doesNotMatch(advice, /give it input|Validate what you pass|make sure/i);
    assert.match(advice, /not worked out here, and its docs may not list every input it rejects: compare what you passed with the condition above before taking it for a bug of `lines`/);
    assert.match(advice, /A guess, not worked out here: if that call hands `read_line_internal` what you passed unchanged, input for which `output\.is_empty\(\)` holds avoids the panic/);
  });

  it("keeps a debug assertion there a check of what the crate's own callers promise", () => {
    const debug = { ...check, macro: "debug_assert" };
    const f = analysisFields("debug-assert", "assertion failed: output.is_empty()", "src/read.rs", 12, facts(internal, { conditions: [debug], gates: ["debug_assertions"], entryPoints: [entry("Lines::next_line", ["Lines::next_line", "read_line_internal"])] }), []);
    assert.equal(f.handlingStrategy, "fix-invariant");
    assert.equal(f.backgroundTag, "failed-assertion");
  });

  it("frames the same check as the user's input when users call the function itself", () => {
    const pub = { ...internal, visibility: "pub" };
    const f = analysisFields("assert", "assertion failed: output.is_empty()", "src/read.rs", 12, facts(pub, { conditions: [check], entryPoints: [entry("read_line_internal", ["read_line_internal"])] }), []);
    assert.equal(f.handlingStrategy, "validate-input");
    assert.match(f.triggerScenarios, /^Calling `read_line_internal\(output\)` with `output` such that `output\.is_empty\(\)` is false/);
    assert.match(f.solutions[0]!, /^Call `read_line_internal` only with `output` such that `output\.is_empty\(\)` holds/);
  });

  it("says the same of a check of the value a method is called on, in a method users reach only through others", () => {
    const method = fn({ name: "fmt", line: 20, receiver: "&self", implType: "OneOf" });
    const arm = { kind: "match" as const, line: 22, scrutinee: "self.names.len()", pattern: "0", guard: null, attributes: [], earlierArms: [] };
    const f = analysisFields("panic", "no names", "src/de.rs", 22, facts(method, { conditions: [arm], entryPoints: [entry("Error::invalid", ["Error::invalid", "OneOf::fmt"])] }), []);
    assert.match(f.documentation, /a check of the value `OneOf::fmt` is called on \(`self`\)\. Users do not call `OneOf::fmt` themselves/);
    assert.doesNotMatch(f.solutions.join("\n"), /call it only on values/);
    assert.deepEqual(f.preventionTips, ["Read the docs of the public functions you call for the input they accept."]);
  });
});

describe("a check of parameters a public function hands on unchanged", () => {
  // `pub(crate) fn narrow(tensor: &Tensor, dim: usize, start: usize, length: usize)` with `if length == 0 { panic!(…) }`, called by `Tensor::narrow(self, dim, start, len)` as `Check::narrow(&self, dim, start, len)`.
  const narrow = fn({ name: "narrow", line: 90, visibility: "pub(crate)", implType: "Check", params: ["tensor", "dim", "start", "length"].map((pattern) => ({ pattern, type: "usize" })), unchangedParams: ["tensor", "dim", "start", "length"] });
  const branch = { kind: "if" as const, line: 95, condition: "length == 0", holds: true };
  const handing = (carries: [string, string][]): EntryPoint => ({ ...entry("Tensor::narrow", ["Tensor::narrow", "Check::narrow"]), carries });

  it("is the public function's input: the check in its names, and the advice to call it with other values", () => {
    const f = analysisFields("panic", "length must be greater than 0", "src/check.rs", 96, facts(narrow, { conditions: [branch], entryPoints: [handing([["tensor", "self"], ["length", "len"]])] }), []);
    assert.match(f.documentation, /`Tensor::narrow` hands `Check::narrow` its `len` as `length` unchanged \(`Tensor::narrow → Check::narrow`/);
    assert.match(f.documentation, /what `Tensor::narrow` does before that call \(an earlier check, an early return\) is not worked out here/);
    assert.equal(f.solutions[0], "Call `Tensor::narrow` with its `len` for which `len == 0` is false: it hands it on unchanged to `Check::narrow`, which checks it.");
    assert.equal(f.handlingStrategy, "validate-input");
    assert.ok(f.tags.includes("precondition"), f.tags.join(", "));
  });

  it("is the public function's input where it hands on a method's answer on its input (`&self.shape()`): the check in those words, without \"unchanged\"", () => {
    const f = analysisFields("panic", "length must be greater than 0", "src/check.rs", 96, facts(narrow, { conditions: [branch], entryPoints: [handing([["length", "self.len()"]])] }), []);
    assert.match(f.documentation, /`Tensor::narrow` hands `Check::narrow` `self\.len\(\)` as `length` \(`Tensor::narrow → Check::narrow`: what a method of its own input answers/);
    assert.match(f.documentation, /So a call of `Tensor::narrow` gets here when `self\.len\(\) == 0` is true, for the `len\(\)` of the value it is called on/);
    assert.equal(f.solutions[0], "Call `Tensor::narrow` only where `self.len() == 0` is false (`self` there is the value you call it on): it reads that value of its input and hands it to `Check::narrow`, which checks it.");
    assert.equal(f.handlingStrategy, "validate-input");
  });

  it("stays a guess when no value the check reads is handed on, or it is rebound before it", () => {
    const notHanded = analysisFields("panic", "length must be greater than 0", "src/check.rs", 96, facts(narrow, { conditions: [branch], entryPoints: [handing([["tensor", "self"]])] }), []);
    assert.match(notHanded.solutions.join("\n"), /A guess, not worked out here/);
    assert.doesNotMatch(notHanded.solutions.join("\n"), /hands it on unchanged/);
    const rebound = analysisFields("panic", "length must be greater than 0", "src/check.rs", 96, facts({ ...narrow, unchangedParams: ["tensor", "dim", "start"] }, { conditions: [branch], entryPoints: [handing([["length", "len"]])] }), []);
    assert.match(rebound.solutions.join("\n"), /A guess, not worked out here/);
    assert.doesNotMatch(rebound.documentation, /hands `Check::narrow` its `len`/);
  });

  it("is the public function's input in part when the check reads a value handed on with others that are not", () => {
    const local = analysisFields("panic", "length must be greater than 0", "src/check.rs", 96, facts(narrow, { conditions: [{ ...branch, condition: "length == limit || dim > 3" }], entryPoints: [handing([["length", "len"]])] }), []);
    assert.equal(local.handlingStrategy, "validate-input");
    assert.match(local.documentation, /`Tensor::narrow` hands `Check::narrow` its `len` as `length` unchanged .* The check reads that value together with `dim`, which that path does not hand on unchanged \(how `Tensor::narrow` comes to it is not traced here\) and the function's own `limit`/);
    assert.match(local.solutions[0]!, /^Call `Tensor::narrow` with its `len` that passes the check of `Check::narrow`: it hands it on unchanged to `Check::narrow`, which fails when `len == limit \|\| dim > 3` is true/);
    assert.doesNotMatch(local.solutions.join("\n"), /A guess/);
  });
});


describe("a check of values a function computes from its parameter", () => {
  // `fn map_float(&mut self, param: Param)` with `let (id, tensor) = param.consume();`, `let tensor = tensor.to_device(&device);` on the path, then `debug_assert_eq!(tensor.device(), device)`.
  const mapFloat = fn({ name: "map_float", line: 20, receiver: "&mut self", implType: "Mapper", params: [{ pattern: "param", type: "Param" }], lets: ["let (id, tensor) = param.consume();"], unchangedParams: ["param"] });
  const check = { kind: "assert" as const, line: 30, macro: "debug_assert_eq", left: "tensor.device()", right: "device" };

  it("names the values it tests and where they come from, not the parameter as if the check read it", () => {
    const f = analysisFields("debug-assert-eq", "Tensor and gradients are on the same device.", "src/mapper.rs", 30, facts(mapFloat, { conditions: [check], pathLets: ["let device = self.device.clone();", "let tensor = tensor.to_device(&device);"], entryPoints: [] }), []);
    assert.match(f.documentation, /a check of `tensor`, which `Mapper::map_float` computes from the parameter `param`, and of `self`\./);
    assert.doesNotMatch(f.documentation, /a check of the parameter `param`/);
  });

  it("names a parameter the check reads itself as before", () => {
    const direct = analysisFields("debug-assert-eq", "Tensor and gradients are on the same device.", "src/mapper.rs", 30, facts(mapFloat, { conditions: [{ ...check, left: "param.device()" }], pathLets: ["let device = self.device.clone();"], entryPoints: [] }), []);
    assert.match(direct.documentation, /a check of the parameter `param` of `Mapper::map_float` and of `self`\./);
  });
});
describe("the advice a message gives", () => {
  it("is the sentences that open with an imperative, never cut inside backticks", () => {
    assert.deepEqual(messageAdvice("A Tokio 1.x context was found, but IO is disabled. Call `enable_io` on the runtime builder to enable IO."), ["Call `enable_io` on the runtime builder to enable IO."]);
    assert.deepEqual(messageAdvice("Failed to read tensor data synchronously. Try using `x.nonzero_async()` instead. See the docs."), ["Try using `x.nonzero_async()` instead."]);
    assert.deepEqual(messageAdvice("Cannot compute max of empty tensor"), []);
    assert.deepEqual(messageAdvice("Check failed: lhs > rhs"), []);
    assert.deepEqual(messageAdvice("use {} instead"), []);
    assert.deepEqual(messageAdvice("select: indices must be 1D, got {} dims"), []);
    assert.deepEqual(messageAdvice("Load error for '{}': {}"), []);
  });

  it("comes first in the solutions, quoted as the message's words", () => {
    const io = fn({ name: "io", line: 90, visibility: "pub(crate)", receiver: "&self", implType: "Handle" });
    const f = analysisFields("expect", "IO is disabled. Call `enable_io` on the runtime builder to enable IO.", "src/driver.rs", 94, facts(io, { conditions: [{ kind: "expect", line: 94, method: "expect", receiver: "self.io.as_ref()" }] }), []);
    assert.equal(f.solutions[0], "The message itself says what to do: “Call `enable_io` on the runtime builder to enable IO.”");
    assert.ok(f.solutions.length > 1);
  });
});

describe("what an `.expect`'s receiver is", () => {
  const expectOn = (receiver: string, lets: string[] = []) => analysisFields("expect", "no value", "src/x.rs", 9, facts(fn({ name: "f", line: 1, lets }), { conditions: [{ kind: "expect", line: 9, method: "expect", receiver }] }), []).documentation;

  it("reads a name through the `let` that binds it to a call", () => {
    assert.match(expectOn("value", ["let value = self.value.take();"]), /holds no value \(None\) \(a guess from the name `take` alone: std's gives an Option\)/);
    assert.doesNotMatch(expectOn("value", ["let value = self.value.take();"]), /None or an Err/);
    assert.match(expectOn("value"), /None or an Err/);
  });

  it("takes std's `try_fold` to give what its closure gives", () => {
    assert.match(expectOn("[a, b].iter().try_fold(1usize, |acc, &x| acc.checked_mul(x))"), /holds no value \(None\)/);
  });
});

describe("catch_unwind sketches", () => {
  const expect = (receiver: string) => ({ kind: "expect" as const, line: 5, method: "expect", receiver });

  it("are written for a call a user can write", () => {
    const port = fn({ name: "port", visibility: "pub", params: [{ pattern: "text", type: "&str" }], returnType: "u16" });
    const f = analysisFields("expect", "the port should be a number", "src/lib.rs", 5, facts(port, { conditions: [expect("text.parse()")] }), []);
    assert.match(f.tryCatchPattern ?? "", /catch_unwind\(std::panic::AssertUnwindSafe\(\|\| port\(text\)\)\)/);
  });

  it("are left out when the return type is one of the function's type parameters (rustc cannot infer it: E0283)", () => {
    const downcast = fn({ name: "downcast", visibility: "pub", generics: "<T: Clone + 'static>", receiver: "&self", returnType: "T", implType: "DynState" });
    const f = analysisFields("expect", "the state should match", "src/lib.rs", 5, facts(downcast, { conditions: [expect("self.state.downcast::<T>()")] }), []);
    assert.equal(f.tryCatchPattern, null);
    // A type parameter an argument's type names is inferred from it.
    const random = fn({ name: "random", visibility: "pub", generics: "<R: Runtime>", params: [{ pattern: "device", type: "&R::Device" }], returnType: "Tensor<R>" });
    assert.match(analysisFields("expect", "no device", "src/lib.rs", 5, facts(random, { conditions: [expect("device.client()")] }), []).tryCatchPattern ?? "", /\|\| random\(device\)\)/);
    // A lifetime is inferred too.
    const iter = fn({ name: "iter", visibility: "pub", generics: "<'a>", receiver: "&'a self", returnType: "Box<dyn Iterator<Item = u8> + 'a>", implType: "Loader" });
    assert.match(analysisFields("expect", "no items", "src/lib.rs", 5, facts(iter, { conditions: [expect("self.items.first()")] }), []).tryCatchPattern ?? "", /\|\| value\.iter\(\)\)/);
  });

  it("are left out when the call would name the impl's generic parameters or take `self` as a parameter", () => {
    const consume = fn({ name: "consume", params: [{ pattern: "self", type: "Pin<&mut Self>" }, { pattern: "amt", type: "usize" }], implGenerics: "<S, B>", implType: "StreamReader<S, B>", implTrait: "AsyncBufRead" });
    const f = analysisFields("expect", "No chunk present", "src/lib.rs", 5, facts(consume, { conditions: [expect("self.project().chunk.as_mut()")] }), []);
    assert.equal(f.tryCatchPattern, null);
    const generic = fn({ name: "read", visibility: "pub", params: [{ pattern: "n", type: "usize" }], implGenerics: "<S>", implType: "Reader<S>" });
    assert.equal(analysisFields("expect", "no data", "src/lib.rs", 5, facts(generic, { conditions: [expect("self.buf.get(n)")] }), []).tryCatchPattern, null);
  });
});

describe("what an `.expect` receiver is", () => {
  const expect = (receiver: string) => ({ kind: "expect" as const, line: 5, method: "expect", receiver });
  const init = fn({ name: "initialized", visibility: "pub", params: [{ pattern: "value", type: "T" }] });

  it("is settled by `.ok()`, and said as a guess from a std method's name alone", () => {
    assert.match(analysisFields("expect", "cell was just created", "src/lib.rs", 5, facts(init, { conditions: [expect("cell.set(value).ok()")] }), []).triggerScenarios, /`cell\.set\(value\)\.ok\(\)` holds no value \(None\)\./);
    assert.match(analysisFields("expect", "no entry", "src/lib.rs", 5, facts(init, { conditions: [expect("map.get(&value)")] }), []).triggerScenarios, /holds no value \(None\) \(a guess from the name `get` alone: std's gives an Option\)/);
  });
});

describe("an assertion of values fixed when the crate is compiled", () => {
  // `const MAX_LEN: usize = 39; debug_assert_eq!(MAX_LEN, "1001:1002:1003:1004:1005:1006:1007:1008".len());` in `fn serialize`.
  const serialize = fn({ name: "serialize", line: 30, params: [{ pattern: "serializer", type: "S" }], unchangedParams: ["serializer"] });
  const check = { kind: "assert" as const, line: 33, macro: "debug_assert_eq", left: "MAX_LEN", right: '"1001:1002:1003:1004:1005:1006:1007:1008".len()' };

  it("says no caller decides it, with no advice about callers or versions", () => {
    const f = analysisFields("debug-assert-eq", "assertion `left == right` failed", "src/ser.rs", 33, facts(serialize, { conditions: [check] }), []);
    assert.match(f.documentation, /The check reads no variable, parameter or type parameter: both sides are fixed when the crate is compiled/);
    assert.equal(f.solutions.length, 1);
    assert.match(f.solutions[0]!, /^Nothing a caller passes decides it/);
    assert.doesNotMatch([...f.solutions, ...f.preventionTips].join("\n"), /caller or earlier step|versions of the crates/);
  });

  it("is not said of an assertion that reads a variable or a const generic", () => {
    const local = analysisFields("debug-assert-eq", "assertion `left == right` failed", "src/ser.rs", 33, facts(serialize, { conditions: [{ ...check, left: "len" }] }), []);
    assert.doesNotMatch(local.documentation, /fixed when the crate is compiled/);
    const generic = analysisFields("assert-eq", "assertion `left == right` failed", "src/grid.rs", 33, facts({ ...serialize, generics: "<const D: usize, const D2: usize>" }, { conditions: [{ ...check, macro: "assert_eq", left: "D2", right: "D + 1" }] }), []);
    assert.doesNotMatch(generic.documentation, /fixed when the crate is compiled/);
  });
});

describe("a gate a macro's invocation fills in", () => {
  it("is said to be the invocation's, not a build option", () => {
    const f = analysisFields("panic", "no such variant", "src/convert.rs", 12, facts(fn({ name: "convert", line: 10 }), { gates: ["$cfg"] }), []);
    assert.match(f.documentation, /compiled only with the predicate each invocation of the macro gives \(`\$cfg`\)/);
  });
});

describe("a method of a trait's impl the symbol index gives no way in", () => {
  // `impl Parse for Header { fn parse(input: &str) -> Header { assert!(!input.is_empty()); … } }` with `struct Header` not `pub`.
  const parse = fn({ name: "parse", line: 40, implType: "Header", implTrait: "Parse", params: [{ pattern: "input", type: "&str" }], unchangedParams: ["input"] });
  const check = { kind: "assert" as const, line: 41, macro: "assert", condition: "!input.is_empty()" };

  it("is not taken as called by users when the index ran and lists none", () => {
    const f = analysisFields("assert", "assertion failed: !input.is_empty()", "src/header.rs", 41, facts(parse, { conditions: [check], entryPoints: [] }), []);
    assert.equal(f.handlingStrategy, "fix-invariant");
    assert.ok(f.tags.includes("internal-check"), f.tags.join(", "));
    assert.doesNotMatch(f.triggerScenarios, /^Calling/);
  });

  it("is taken as callable through its impl where the run has no index", () => {
    const f = analysisFields("assert", "assertion failed: !input.is_empty()", "src/header.rs", 41, facts(parse, { conditions: [check] }), []);
    assert.equal(f.handlingStrategy, "validate-input");
    assert.match(f.triggerScenarios, /^Calling `<Header as Parse>::parse\(input\)`/);
  });
});

describe("the example fix of an `.expect` in a function that returns a Result", () => {
  // `let value = stack.pop().expect("slot is empty");` in `fn next(stack: &mut Vec<u8>) -> <returnType>`.
  const expecting = (returnType: string) => {
    const next = fn({ name: "next", line: 5, params: [{ pattern: "stack", type: "&mut Vec<u8>" }], returnType, unchangedParams: ["stack"] });
    return analysisFields("expect", "slot is empty", "src/queue.rs", 6, facts(next, { conditions: [{ kind: "expect", line: 6, receiver: "stack.pop()" }] }), []).exampleFix;
  };

  it("returns the message where the error type takes a string (rustc: String, Box<dyn Error>)", () => {
    assert.match(expecting("Result<u8, String>") ?? "", /return Err\("slot is empty"\.into\(\)\);/);
    assert.match(expecting("Result<u8, Box<dyn std::error::Error + Send + Sync>>") ?? "", /return Err/);
    assert.match(expecting("anyhow::Result<u8>") ?? "", /return Err/);
  });

  it("writes none where the error type does not convert from a string (rustc: E0277)", () => {
    assert.equal(expecting("Result<u8, CheckpointerError>"), null);
    assert.equal(expecting("std::io::Result<u8>"), null);
    assert.equal(expecting("io::Result<u8>"), null);
    assert.equal(expecting("fmt::Result"), null);
  });
});

describe("a returned error in a macro's tokens", () => {
  it("is not said to be returned by every call: the branches around it are not analysed", () => {
    const convert = fn({ name: "try_from", line: 510, returnType: "Result<Self, Self::Error>" });
    const f = analysisFields("err-return", "Expected {} tensor, got variant: {}", "src/tensor.rs", 517, facts(convert, { macro: "macro_rules" }), []);
    assert.doesNotMatch(f.triggerScenarios, /every call that reaches/);
    assert.match(f.triggerScenarios, /stands in the tokens of `macro_rules!`, whose branches are not analysed here/);
  });
});

describe("the catch_unwind sketch of a generic trait's default method", () => {
  it("is left out: the call would have to name the trait's arguments (rustc E0107 without them)", () => {
    // `pub trait DistributedOps<B: Backend> { fn sync_collective(_device: &B::Device) { unimplemented!() } }`
    const sync = fn({ name: "sync_collective", line: 129, traitName: "DistributedOps", implGenerics: "<B: Backend>", params: [{ pattern: "_device", type: "&B::Device" }] });
    const f = analysisFields("unimplemented", "not implemented", "src/ops.rs", 130, facts(sync), []);
    assert.equal(f.tryCatchPattern, null);
    const plain = analysisFields("unimplemented", "not implemented", "src/ops.rs", 130, facts({ ...sync, implGenerics: null, params: [{ pattern: "_device", type: "&Device" }] }), []);
    assert.match(plain.tryCatchPattern ?? "", /<T as DistributedOps>::sync_collective\(_device\)/);
  });
});

describe("the call a sketch writes for a method", () => {
  it("names the receiver apart from an argument called `value`", () => {
    // `pub fn send_item(&mut self, value: T) -> Result<(), ()> { … .expect("`send_item` called without first calling `poll_reserve`") … }`
    const send = fn({ name: "send_item", line: 180, visibility: "pub", receiver: "&mut self", implType: "PollSender<T>", params: [{ pattern: "value", type: "T" }] });
    const f = analysisFields("expect", "`send_item` called without first calling `poll_reserve`", "src/mpsc.rs", 186, facts(send, { conditions: [{ kind: "expect", line: 186, receiver: "self.state.take()" }], entryPoints: [entry("PollSender::send_item", ["PollSender::send_item"])] }), []);
    assert.match(f.tryCatchPattern ?? "", /\|\| receiver\.send_item\(value\)\)/);
  });
});

describe("advice only where the code supports it", () => {
  it("frames a panic on a function's own values, in a function users reach only through others, without input advice", () => {
    const own = fn({ name: "block_on", line: 30, visibility: "pub(crate)", lets: ["let ret = lookup();"] });
    const arm = { kind: "match" as const, line: 34, scrutinee: "ret", pattern: "None", guard: null, attributes: [], earlierArms: [{ pattern: "Some(v)", guard: null, attributes: [] }] };
    const f = analysisFields("panic", "a task failed", "src/run.rs", 34, facts(own, { conditions: [arm], entryPoints: [entry("Runtime::block_on", ["Runtime::block_on", "block_on"])] }), []);
    assert.match(f.solutions[0]!, /on values it computes itself, and users reach it only through other code of `lines`: run with `RUST_BACKTRACE=1`/);
    assert.ok(f.tags.includes("path-condition") && !f.tags.includes("precondition"), f.tags.join(", "));
    assert.doesNotMatch(f.preventionTips.join("\n"), /Validate the arguments/);
    // A check that also reads a value at run time (`self.dtype`) does not fail on every call with those types.
    const cast = fn({ name: "as_slice", line: 40, visibility: "pub", receiver: "&self", implType: "Data", generics: "<E: Element>" });
    const g = analysisFields("assert", "dtype mismatch", "src/data.rs", 42, facts(cast, { conditions: [{ kind: "assert", line: 42, macro: "assert_eq", left: "E::dtype()", right: "self.dtype" }], entryPoints: [entry("Data::as_slice", ["Data::as_slice"])] }), []);
    assert.doesNotMatch(g.preventionTips.join("\n"), /fails on every such call/);
  });

  it("gives no advice to the crate's maintainers on a check of the caller's input, whether or not the trait's signature leaves room for an error", () => {
    // `impl FromId for Kind { fn from_id(id: u8) -> Self { match id { 0 => Kind::A, _ => panic!("unknown kind id {id}") } } }`
    const fromId = fn({ name: "from_id", line: 80, implType: "Kind", implTrait: "FromId<u8>", returnType: "Self", params: [{ pattern: "id", type: "u8" }], unchangedParams: ["id"] });
    const arm = { kind: "match" as const, line: 82, scrutinee: "id", pattern: "_", guard: null, attributes: [], earlierArms: [{ pattern: "0", guard: null, attributes: [] }] };
    const f = analysisFields("panic", "unknown kind id {id}", "src/kind.rs", 82, facts(fromId, { conditions: [arm], entryPoints: [entry("Kind::from_id", ["Kind::from_id"])] }), []);
    assert.doesNotMatch(f.solutions.join("\n"), /return an error for such input instead of panicking|For the maintainers/);
    assert.match(f.solutions.join("\n"), /Call `Kind::from_id` only with `id` for which `id` matches `0`/);
    const fallible = analysisFields("panic", "unknown kind id {id}", "src/kind.rs", 82, facts({ ...fromId, returnType: "Result<Self, Error>" }, { conditions: [arm], entryPoints: [entry("Kind::from_id", ["Kind::from_id"])] }), []);
    assert.doesNotMatch(fallible.solutions.join("\n"), /For the maintainers/);
  });

  it("writes no guard whose conditions call a function users cannot call", () => {
    // `pub fn filled(shape: u8, dtype: u8) { assert!(dtype_size(dtype) == 4) }` with `fn dtype_size` private to the crate.
    const filled = fn({ name: "filled", line: 100, visibility: "pub", params: [{ pattern: "shape", type: "u8" }, { pattern: "dtype", type: "u8" }], unchangedParams: ["shape", "dtype"] });
    const check = { kind: "assert" as const, line: 101, macro: "assert", condition: "dtype_size(dtype) == 4" };
    const users = { conditions: [check], entryPoints: [entry("filled", ["filled"])] };
    const open = analysisFields("assert", "dtype size mismatch", "src/fill.rs", 101, facts(filled, users), []);
    assert.match(open.typeGuard ?? "", /fn would_panic\(shape: u8, dtype: u8\) -> bool/);
    const hidden = analysisFields("assert", "dtype size mismatch", "src/fill.rs", 101, facts(filled, { ...users, privateCalls: ["dtype_size"] }), []);
    assert.equal(hidden.typeGuard, null);
    assert.equal(hidden.validationCode, null);
  });

  it("tells a caller to pass other types for a missing case only when the types and arguments alone decide it", () => {
    // `fn cast<E: Element>(&self) { if E::dtype() == self.dtype { … } else { unimplemented!() } }`: the type parameter and the value's own state decide.
    const cast = fn({ name: "cast", line: 90, visibility: "pub", receiver: "&self", implType: "Data", generics: "<E: Element>" });
    const onSelf = { kind: "if" as const, line: 91, condition: "E::dtype() == self.dtype", holds: false };
    const f = analysisFields("unimplemented", "not implemented", "src/data.rs", 93, facts(cast, { conditions: [onSelf], entryPoints: [entry("Data::cast", ["Data::cast"])] }), []);
    assert.doesNotMatch(f.solutions.join("\n"), /only with `E` for which/);
    const onType = { kind: "if" as const, line: 91, condition: "E::dtype() == DType::F32", holds: false };
    const g = analysisFields("unimplemented", "not implemented", "src/data.rs", 93, facts(cast, { conditions: [onType], entryPoints: [entry("Data::cast", ["Data::cast"])] }), []);
    assert.match(g.solutions.join("\n"), /Call `Data::cast` only with `E` for which/);
  });

  it("says a destructor runs when its value is dropped, not that users call it", () => {
    const drop = fn({ name: "drop", line: 40, receiver: "&mut self", implType: "Logger", implTrait: "Drop" });
    const f = analysisFields("panic", "logger stopped", "src/log.rs", 41, facts(drop, { entryPoints: [entry("Logger::drop", ["Logger::drop"])] }), []);
    assert.match(f.commonSituations, /It is the destructor of `Logger`: it runs whenever such a value is dropped/);
    assert.doesNotMatch(f.commonSituations, /every call of that trait method/);
  });

  it("returns a message with placeholders from the validation code as its text without the values, and says so", () => {
    const pub = fn({ name: "pool", line: 50, visibility: "pub", params: [{ pattern: "dtype", type: "u8" }], unchangedParams: ["dtype"] });
    const check = { kind: "if" as const, line: 51, condition: "dtype > 3", holds: true };
    const f = analysisFields("panic", "pool: dtype {:?} is too large", "src/pool.rs", 52, facts(pub, { conditions: [check], entryPoints: [entry("pool", ["pool"])] }), []);
    assert.match(f.validationCode ?? "", /return Err\("pool: dtype … is too large"\);/);
    assert.match(f.solutions.join("\n"), /returns the message's text, its values left out, as an `Err`/);
  });

  it("tells a caller to check a returned error's condition beforehand only when it reads nothing but the parameters of a function they call", () => {
    const pub = fn({ name: "open", line: 60, visibility: "pub", params: [{ pattern: "name", type: "&str" }] });
    const onParam = { kind: "if" as const, line: 61, condition: "name.is_empty()", holds: true };
    const onLocal = { kind: "if" as const, line: 61, condition: "!result.errors.is_empty()", holds: true };
    const users = { entryPoints: [entry("open", ["open"])] };
    const withParam = analysisFields("err-return", "no name", "src/open.rs", 62, facts(pub, { ...users, conditions: [onParam] }), []);
    assert.match(withParam.solutions.join("\n"), /check that beforehand to avoid it/);
    const withLocal = analysisFields("err-return", "no name", "src/open.rs", 62, facts(pub, { ...users, conditions: [onLocal] }), []);
    assert.doesNotMatch(withLocal.solutions.join("\n"), /beforehand/);
  });

  it("says a check of a parameter against the value's own state, in a function only the crate calls, is the crate's own assumption", () => {
    const own = fn({ name: "assert_owner", line: 70, visibility: "pub(crate)", receiver: "&self", implType: "OwnedTasks", params: [{ pattern: "task", type: "Task" }] });
    const check = { kind: "assert" as const, line: 71, macro: "assert_eq", left: "task.owner_id()", right: "Some(self.id)" };
    const f = analysisFields("assert-eq", "assertion `left == right` failed", "src/list.rs", 71, facts(own, { conditions: [check], entryPoints: [] }), []);
    assert.match(f.documentation, /checks what its callers in the crate pass against its own state: .* a check of the parameter `task` of `OwnedTasks::assert_owner` and of `self`\./);
    assert.match(f.documentation, /The symbol index finds no public function that reaches it \(it does not follow calls on values whose type the syntax does not show, nor calls a macro writes\): if none does, only the crate's own code gets there, and a failure means that code broke what `OwnedTasks::assert_owner` assumes/);
  });
});

describe("a returned error of a function users do not call", () => {
  const build = fn({ name: "build", line: 44, visibility: "pub(crate)", implType: "SequentialConfig", returnType: "Result<Sequential, String>" });

  it("is handled at the public calls that reach it, their passing it on said as not worked out", () => {
    const f = analysisFields("err-return", "at least one scheduler is required", "src/seq.rs", 49, facts(build, { entryPoints: [entry("SequentialConfig::init", ["SequentialConfig::init", "SequentialConfig::build"])] }), []);
    assert.match(f.solutions[0]!, /^Handle the error at your call of `SequentialConfig::init`, which reaches `build` \(whether it passes the error on as it is, maps it into an error of its own or handles it is not worked out here\)/);
    assert.match(f.commonSituations, /`pub\(crate\) fn build` returns it to other code of the crate: users reach it through `SequentialConfig::init`; whether that function passes it on to them is not worked out here/);
  });

  it("is handled where it returns it when no public call is known to reach it", () => {
    const f = analysisFields("err-return", "at least one scheduler is required", "src/seq.rs", 49, facts(build, {}), []);
    assert.match(f.solutions[0]!, /^Handle the error where `build` returns it/);
    // Note: a caller may panic with it (`unwrap_or_else(|e| panic!("{e}"))`): whether the program goes on is the callers', not said.
    assert.doesNotMatch(f.documentation, /the program goes on/);
    assert.match(f.documentation, /what happens next is up to the callers \(`\?` passes it on; `unwrap\(\)` or `expect\(\)` on it panics with its Debug form; a caller may also log it, or panic with its text\)/);
  });
});

describe("a check an entry point makes first", () => {
  const kernel = fn({ name: "scatter_add", line: 380, visibility: "pub(crate)", params: [{ pattern: "indices", type: "&Tensor" }], unchangedParams: ["indices"] });
  const check = { kind: "assert" as const, line: 386, macro: "assert", condition: "indices_shape == value_shape" };
  const first = { caller: "Tensor::scatter", callee: "TensorCheck::scatter", before: "Float::scatter", message: "Indices tensor shape should be the same as the value tensor shape." };
  const withFirst: EntryPoint = { ...entry("Tensor::scatter", ["Tensor::scatter", "Float::scatter", "scatter_add"]), checksFirst: [first] };

  it("is said in the trigger, with its message: where it rejects the same input, users meet it first", () => {
    const f = facts(kernel, { conditions: [check], entryPoints: [withFirst] });
    const prose = withOwnWords(analysisFields("assert", "scatter_add: indices shape must match value shape", "src/gather.rs", 386, f, []), f, undefined, "scatter_add: indices shape must match value shape");
    assert.match(prose.triggerScenarios, /On the way, `Tensor::scatter` calls `TensorCheck::scatter` before `Float::scatter` \(in the order its code is written\), and `TensorCheck::scatter` raises panics of its own \(“Indices tensor shape should be the same as the value tensor shape\.”\): where it rejects the same input, a call of `Tensor::scatter` stops there first, with that message, and not here\./);
    const none = facts(kernel, { conditions: [check], entryPoints: [entry("Tensor::scatter", ["Tensor::scatter", "Float::scatter", "scatter_add"])] });
    assert.doesNotMatch(withOwnWords(analysisFields("assert", "scatter_add: indices shape must match value shape", "src/gather.rs", 386, none, []), none, undefined).triggerScenarios, /On the way/);
    // A first check about other things (no word of the site's message, std's assertion prefix aside) is left to the facts.
    const other = facts(kernel, { conditions: [check], entryPoints: [{ ...withFirst, checksFirst: [{ ...first, message: "assertion failed: !params.has_getter" }] }] });
    assert.doesNotMatch(withOwnWords(analysisFields("assert", "assertion failed: fields[0].attrs.deserialize_with().is_none()", "src/gather.rs", 386, other, []), other, undefined, "assertion failed: fields[0].attrs.deserialize_with().is_none()").triggerScenarios, /On the way/);
  });

  it("says, of a first check whose message opens with the site's words, that by those words it checks the same (std's assertion prefix aside)", () => {
    const same = { ...first, message: "Tensors are not broadcastable along dimension {i}: {l} and {r}." };
    const f = facts(kernel, { conditions: [check], entryPoints: [{ ...withFirst, checksFirst: [same] }] });
    const text = (message: string, g = f) => withOwnWords(analysisFields("assert", message, "src/gather.rs", 386, g, []), g, undefined, message).triggerScenarios;
    assert.match(text("Tensors are not broadcastable along dimension {}"), /raises a panic that opens with the same words \(“Tensors are not broadcastable along dimension \{i\}: \{l\} and \{r\}\.”\): by those words it checks the same thing, so a call of `Tensor::scatter` with such input most likely stops there first, with that message, and does not get here \(a reading of the messages, not of their conditions\)\./);
    assert.match(text("Tensors are not broadcastable at all"), /raises panics of its own/);
    const asserted = facts(kernel, { conditions: [check], entryPoints: [{ ...withFirst, checksFirst: [{ ...first, message: "assertion failed: tolerance <= F::one()" }] }] });
    assert.match(text("assertion failed: tolerance >= F::zero()", asserted), /raises panics of its own/);
  });
});

describe("the call a sketch writes for a formatting trait's fmt, and for a `_` parameter", () => {
  it("formats the value, as users do: no Formatter of theirs, no `_` as an argument", () => {
    // `impl Display for Error { fn fmt(&self, _: &mut fmt::Formatter) -> fmt::Result { unimplemented!() } }`
    const display = fn({ name: "fmt", line: 31, visibility: null, receiver: "&self", implType: "Error", implTrait: "Display", params: [{ pattern: "_", type: "&mut fmt::Formatter" }] });
    const f = analysisFields("unimplemented", "not implemented", "src/doc.rs", 32, facts(display, { entryPoints: [entry("Error::fmt", ["Error::fmt"])] }), []);
    assert.match(f.tryCatchPattern ?? "", /\|\| format!\("\{\}", value\)\)/);
    const free = fn({ name: "visit", line: 3, visibility: "pub", params: [{ pattern: "_", type: "u8" }] });
    const g = analysisFields("unimplemented", "not implemented", "src/lib.rs", 4, facts(free, { entryPoints: [entry("visit", ["visit"])] }), []);
    assert.match(g.tryCatchPattern ?? "", /\|\| visit\(arg1\)\)/);
  });
});

describe("a panic an environment variable or a build's features decide", () => {
  it("says to set the variable or the feature, not to handle a run-time answer, and writes no catch_unwind", () => {
    // `impl Default for Device { fn default() -> Self { if let Ok(name) = std::env::var("APP_DEVICE") { match name.as_str() { "cpu" => { #[cfg(feature = "cpu")] return …; panic!(…) } … } } … } }`
    const def = fn({ name: "default", line: 20, visibility: null, implType: "Device", implTrait: "Default" });
    const conditions = [
      { kind: "if-let" as const, line: 21, pattern: "Ok(name)", value: "std::env::var(\"APP_DEVICE\")", holds: true },
      { kind: "match" as const, line: 22, scrutinee: "name.as_str()", pattern: "\"cpu\"", guard: null, attributes: [], earlierArms: [] },
      { kind: "if" as const, line: 24, condition: "cfg!(feature = \"cpu\")", holds: false },
    ];
    const f = analysisFields("panic", "APP_DEVICE=cpu requested, but the 'cpu' feature is not enabled.", "src/device.rs", 25, facts(def, { conditions, entryPoints: [entry("Device::default", ["Device::default"])] }), []);
    assert.match(f.solutions[0]!, /what decides it is the environment variable `APP_DEVICE` and whether the build leaves out the feature `cpu`( of `[^`]+`)?, set outside the code\. To avoid it, set `APP_DEVICE` to a value `Device::default` supports in your build, or leave it unset; or build with the feature `cpu`/);
    assert.doesNotMatch(f.solutions.join("\n"), /answered at run time/);
    assert.equal(f.tryCatchPattern, null);
    assert.equal(f.handlingStrategy, "validate-input");
    assert.ok(f.preventionTips.some((t) => t.includes("depends on the feature `cpu`")), f.preventionTips.join(" | "));
  });
});

describe("an expect's receiver by what the repository's functions of its last call's name return", () => {
  it("says Option or Result as a match by name, where the facts hold it", () => {
    const load = fn({ name: "load", line: 3, visibility: "pub", params: [{ pattern: "store", type: "&Store" }] });
    const cond = { kind: "expect" as const, line: 5, method: "expect", receiver: "store.handle_of(id)" };
    const f = analysisFields("expect", "the handle is registered", "src/lib.rs", 5, facts(load, { conditions: [cond], receiverReturns: "option", entryPoints: [entry("load", ["load"])] }), []);
    assert.match(f.documentation + f.solutions.join(" "), /holds no value \(None\) \(every function named `handle_of` in the repository returns an Option\)/);
    const g = analysisFields("expect", "the handle is registered", "src/lib.rs", 5, facts(load, { conditions: [cond], entryPoints: [entry("load", ["load"])] }), []);
    assert.match(g.solutions.join(" "), /is None or an Err \(which one, the syntax does not show\)/);
  });
});

describe("a site after an earlier return", () => {
  it("is not said to panic on every call, nor tagged unconditional", () => {
    const enter = fn({ name: "enter_runtime", line: 30, visibility: "pub(crate)" });
    const f = analysisFields("panic", "Cannot start a runtime from within a runtime.", "src/runtime.rs", 68, facts(enter, { exitBeforePath: true, entryPoints: [entry("Handle::block_on", ["Handle::block_on", "enter_runtime"])] }), []);
    assert.doesNotMatch(f.documentation + f.triggerScenarios, /every call that gets there panics|nothing conditional lies between/);
    assert.match(f.documentation, /a `return` or `\?` earlier in its body may leave the function before it/);
    assert.doesNotMatch(f.solutions.join(" "), /do not call it/);
    assert.ok(!f.tags.includes("unconditional") && f.backgroundTag !== "unconditional-panic", `${f.tags} ${f.backgroundTag}`);
  });
});

describe("a panic nothing conditions, in a function users do not call", () => {
  it("tells them to find the call of theirs that leads there, not to stop calling a function they cannot call", () => {
    const hook = fn({ name: "tensor_map_load", line: 130, visibility: "pub(crate)", receiver: "&self", implType: "GlobalInput" });
    const f = analysisFields("panic", "Not a tensor map", "src/view.rs", 139, facts(hook), []);
    assert.doesNotMatch(f.solutions.join(" "), /do not call it/);
    assert.match(f.solutions[0]!, /and users do not call `GlobalInput::tensor_map_load` themselves: run with `RUST_BACKTRACE=1` to see which call of yours leads here/);
    const open = analysisFields("panic", "Not a tensor map", "src/view.rs", 139, facts({ ...hook, visibility: "pub" }, { entryPoints: [entry("GlobalInput::tensor_map_load", ["GlobalInput::tensor_map_load"])] }), []);
    assert.match(open.solutions[0]!, /do not call it\./);
  });
});

describe("a proc macro's panic as rustc shows it", () => {
  it("quotes the message with std's words before it, as the help line prints it", () => {
    const ser = fn({ name: "serialize_body", line: 1290, visibility: null });
    const f = analysisFields("unreachable", "getter is only allowed for remote impls", "serde_derive/src/ser.rs", 1303, facts(ser, { crateKind: "proc-macro", crate: "serde_derive" }), []);
    assert.match(f.documentation, /`= help: message: internal error: entered unreachable code: getter is only allowed for remote impls`/);
  });

  it("names a derive entry point as users write it, and rustc's words for a derive's panic", () => {
    const check = fn({ name: "check_flatten", line: 500, visibility: null, params: [{ pattern: "fields", type: "&[Field]" }], unchangedParams: ["fields"] });
    const derive: EntryPoint = { ...entry("derive_deserialize", ["derive_deserialize", "expand", "check_flatten"]), procMacro: { kind: "derive", derives: "Deserialize", helpers: ["serde"] } };
    const f0 = facts(check, { crateKind: "proc-macro", crate: "serde_derive", conditions: [{ kind: "assert", line: 518, macro: "assert", condition: "!has_flatten(fields)" }], entryPoints: [derive] });
    const f = withOwnWords(analysisFields("assert", "maps do not support flatten fields", "serde_derive/src/de.rs", 518, f0, []), f0, undefined, "maps do not support flatten fields");
    assert.match(f.documentation, /that user sees a compile error `error: proc-macro derive panicked` with `= help: message: maps do not support flatten fields`/);
    assert.match(f.triggerScenarios, /Users reach it through `#\[derive\(Deserialize\)\]` \(the derive macro `derive_deserialize`, which reads the `#\[serde\(…\)\]` attributes of the item: `derive_deserialize → expand → check_flatten`/);
    assert.match(f.solutions.join("\n"), /whether some item you derive `#\[derive\(Deserialize\)\]` for \(its fields and variants, and their `#\[serde\(…\)\]` attributes\) gets there/);
    // With no entry point known, rustc's words for all three kinds.
    const none = analysisFields("assert", "maps do not support flatten fields", "serde_derive/src/de.rs", 518, { ...f0, entryPoints: [] }, []);
    assert.match(none.documentation, /`error: proc-macro derive panicked` for a derive, `error: custom attribute panicked` for an attribute, `error: proc macro panicked` for a function-like macro/);
  });
});

describe("a catch_unwind sketch with the symbol index", () => {
  it("is written only for a function the index finds users can call", () => {
    const optimize = fn({ name: "optimize", line: 70, visibility: "pub", receiver: "&mut self", implType: "BlocksOptimizer" });
    const cond = { kind: "expect" as const, line: 78, method: "expect", receiver: "slots[i].take()" };
    const hidden = analysisFields("expect", "The slot should exist", "src/blocks.rs", 78, facts(optimize, { conditions: [cond], entryPoints: [] }), []);
    assert.equal(hidden.tryCatchPattern, null);
    const listed = analysisFields("expect", "The slot should exist", "src/blocks.rs", 78, facts(optimize, { conditions: [cond], entryPoints: [entry("BlocksOptimizer::optimize", ["BlocksOptimizer::optimize"])] }), []);
    assert.match(listed.tryCatchPattern ?? "", /catch_unwind/);
  });
});

describe("what keeps a check from failing, in the solutions", () => {
  // `fn get(&self, index: usize)` with `let Some(&index) = self.indices.get(index) else { panic!(…) };`, a method users call.
  const get = fn({ name: "get", line: 229, visibility: "pub", receiver: "&self", implType: "SelectionDataset", params: [{ pattern: "index", type: "usize" }], unchangedParams: ["index"] });
  const letElse = { kind: "let-else" as const, line: 230, pattern: "Some(&index)", value: "self.indices.get(index)" };

  it("is the `let … else` pattern matching, not its failure said and then negated", () => {
    const f = analysisFields("panic", "Index out of bounds for SelectionDataset: {index} >= {}", "src/selection.rs", 231, facts(get, { conditions: [letElse], entryPoints: [entry("SelectionDataset::get", ["SelectionDataset::get"])] }), []);
    const text = f.solutions.join("\n");
    assert.match(text, /for which `self\.indices\.get\(index\)` is `Some\(…\)`/);
    assert.doesNotMatch(text, /does not match `Some\(&index\)`[^\n]*does not hold/);
  });

  it("is one of nested conditions failing, each said once", () => {
    const outer = { kind: "if" as const, line: 231, condition: "index > 0", holds: true };
    const inner = { kind: "if" as const, line: 232, condition: "index > 10", holds: true };
    const f = analysisFields("panic", "index too large: {index}", "src/selection.rs", 233, facts(get, { conditions: [outer, inner], entryPoints: [entry("SelectionDataset::get", ["SelectionDataset::get"])] }), []);
    const text = f.solutions.join("\n");
    assert.match(text, /not all of these hold: `index > 0` is true and `index > 10` is true/);
    assert.doesNotMatch(text, /is true does not hold/);
  });
});

describe("guards of a match whose arms carry the library's #[cfg]", () => {
  // `pub fn count(id: u8) -> usize { match id { #[cfg(feature = "cpu")] 0 => 1, _ => unreachable!("No backend feature enabled.") } }`
  const count = fn({ name: "count", line: 10, visibility: "pub", params: [{ pattern: "id", type: "u8" }], returnType: "usize", unchangedParams: ["id"] });
  const arm = (attributes: string[]) => ({ kind: "match" as const, line: 11, scrutinee: "id", pattern: "_", guard: null, attributes: [], earlierArms: [{ pattern: "0", guard: null, attributes }] });

  it("are not written: in the user's code the attribute would test the user's own features", () => {
    const gated = analysisFields("panic", "No backend feature enabled.", "src/count.rs", 12, facts(count, { conditions: [arm(['#[cfg(feature = "cpu")]'])], entryPoints: [entry("count", ["count"])] }), []);
    assert.equal(gated.typeGuard, null);
    assert.equal(gated.validationCode, null);
    const plain = analysisFields("panic", "No backend feature enabled.", "src/count.rs", 12, facts(count, { conditions: [arm([])], entryPoints: [entry("count", ["count"])] }), []);
    assert.match(plain.typeGuard ?? "", /0 => false,\n\s*_ => true,/);
  });

  it("are not written where a `let` the guard repeats calls a function users cannot call, and are where an unused one does", () => {
    const decoded = fn({ ...count, lets: ["let kind = decode(id);"] });
    const onKind = { kind: "if" as const, line: 12, condition: "kind > 3", holds: true };
    const hidden = analysisFields("panic", "bad kind", "src/count.rs", 13, facts(decoded, { conditions: [onKind], entryPoints: [entry("count", ["count"])], privateCalls: ["decode"] }), []);
    assert.equal(hidden.typeGuard, null);
    const onId = { kind: "if" as const, line: 12, condition: "id > 3", holds: true };
    const unused = analysisFields("panic", "bad id", "src/count.rs", 13, facts(decoded, { conditions: [onId], entryPoints: [entry("count", ["count"])], privateCalls: ["decode"] }), []);
    assert.match(unused.typeGuard ?? "", /fn would_panic\(id: u8\) -> bool/);
  });
});

describe("a returned error's makers and callers", () => {
  it("says a `From` conversion into the error type is made by `?`, not called by users", () => {
    const fmt = fn({ name: "fmt", line: 30, receiver: "&self", implType: "StoreError", implTrait: "fmt::Display", params: [{ pattern: "f", type: "&mut fmt::Formatter<'_>" }], returnType: "fmt::Result" });
    const f = analysisFields("display-impl", "Reader error: {}", "src/store.rs", 33, facts(fmt, { madeIn: [{ symbol: "StoreError::from", path: "src/store.rs", line: 52, entryPoints: ["StoreError::from"] }] }), [], "StoreError::Reader");
    assert.match(f.triggerScenarios, /It is made by `StoreError::from` \(`src\/store\.rs:52`\), a `From` conversion: `\?` calls it/);
    assert.doesNotMatch(f.solutions.join("\n"), /your call of `StoreError::from`/);
    // Note: another type's `from` that builds the error is a maker like any other.
    const other = analysisFields("display-impl", "Reader error: {}", "src/store.rs", 33, facts(fmt, { madeIn: [{ symbol: "Snapshot::from", path: "src/snap.rs", line: 61, entryPoints: ["Snapshot::from"] }] }), [], "StoreError::Reader");
    assert.match(other.solutions[0]!, /^Handle the error at your call of `Snapshot::from`/);
  });

  it("is not to be handled where a function users cannot call returns it, when no public function is found to reach it", () => {
    const fused = fn({ name: "matmul_fused", line: 390, receiver: "&self", implType: "Launch", returnType: "Result<(), FusedError>" });
    const f = analysisFields("err-return", "Rhs needs to be contiguous", "src/fused.rs", 413, facts(fused, { entryPoints: [], callers: ["Launch::run"] }), [], "FusedError::InvalidInput");
    assert.match(f.solutions[0]!, /^Users do not call `matmul_fused` \(private; called in the crate by `Launch::run`\), and the symbol index finds no public function that reaches it/);
    assert.doesNotMatch(f.solutions.join("\n"), /Handle the error where `matmul_fused` returns it/);
    // Note: whether the crate's code hands it on, logs it or panics with it is not known: no `Result` of the user's is promised.
    assert.match(f.solutions[0]!, /in the error that call returns, or in a panic or a log line of the crate's \(which one is not worked out here\)/);
  });
});

describe("an `.expect` on a value a `?` leaves", () => {
  it("does not say an Err of the call itself reaches the panic", () => {
    const handshake = fn({ name: "handshake", line: 170, visibility: "pub", receiver: "&self", implType: "Service", returnType: "Result<(), String>" });
    const expect = { kind: "expect" as const, line: 179, method: "expect", receiver: "response.recv().await?" };
    const f = analysisFields("expect", "the server closed the stream", "src/service.rs", 179, facts(handshake, { conditions: [expect], entryPoints: [entry("Service::handshake", ["Service::handshake"])] }), []);
    assert.match(f.documentation, /an Err of the call itself has already been returned by the `\?` and does not reach this panic/);
    assert.doesNotMatch(f.documentation, /is None or an Err \(which one/);
  });
});

describe("a relayed check that also reads the value's own state", () => {
  // `fn assertions(&self, targets: &Tensor)` with `if let Some(weights) = &self.weights && D > 1 { let w = weights.dims()[0]; assert!(w == t) }`, reached from `Loss::forward`.
  const assertions = fn({ name: "assertions", line: 138, receiver: "&self", implType: "Loss", params: [{ pattern: "targets", type: "&Tensor" }], lets: ["let dims = targets.dims();"], unchangedParams: ["targets"] });
  const chain = { kind: "if" as const, line: 146, condition: "let Some(weights) = &self.weights && D > 1", holds: true };
  const check = { kind: "assert" as const, line: 151, macro: "assert", condition: "w == t" };
  const forward = { ...entry("Loss::forward", ["Loss::forward", "Loss::assertions"]), carries: [["self", "self"], ["targets", "targets"]] as [string, string][] };

  it("does not call valid arguments a bug: the state it reads through a let chain is the value's", () => {
    const f = analysisFields("assert", "classes differ", "src/loss.rs", 151, facts(assertions, { conditions: [chain, check], pathLets: ["let t = dims[1];", "let w = weights.dims()[0];"], entryPoints: [forward] }), []);
    const text = f.solutions.join("\n");
    assert.match(text, /The check also reads the state of the value `Loss::forward` is called on/);
    assert.doesNotMatch(text, /If what you pass is valid by the docs of `Loss::forward`, this points to a bug/);
  });
});

describe("a debug assertion's gate", () => {
  it("is when its check runs, not when it is compiled", () => {
    const kernel = fn({ name: "argsort", line: 370, visibility: "pub", params: [{ pattern: "data", type: "&[f32]" }], unchangedParams: ["data"] });
    const check = { kind: "assert" as const, line: 376, macro: "debug_assert_eq", left: "data.len()", right: "4" };
    const f = analysisFields("debug-assert-eq", "length mismatch", "src/sort.rs", 376, facts(kernel, { conditions: [check], gates: ["debug_assertions"], entryPoints: [entry("argsort", ["argsort"])] }), []);
    assert.doesNotMatch(f.documentation, /compiled only with `debug_assertions`/);
    assert.match(f.documentation, /Its check runs only in builds with `debug_assertions` on \(debug builds, by default\): a release build skips it\./);
    assert.match(f.commonSituations, /^Not behind any `#\[cfg\]`: compiled in every build, but as a `debug_assert\*` its check runs only in builds with `debug_assertions` on/);
    assert.doesNotMatch(f.commonSituations, /present in every build/);
    const gated = analysisFields("debug-assert-eq", "length mismatch", "src/sort.rs", 376, facts(kernel, { conditions: [check], gates: ['feature = "simd"', "debug_assertions"], entryPoints: [entry("argsort", ["argsort"])] }), []);
    assert.match(gated.documentation, /, compiled only with `feature = "simd"`\. Its check runs only/);
  });
});

describe("advice that fits where the panic happens", () => {
  it("gives a proc macro's invariant no backtrace or `cargo expand` advice: rustc prints neither for it", () => {
    const expand = fn({ name: "expand", line: 5, visibility: "pub", params: [{ pattern: "input", type: "DeriveInput" }], unchangedParams: ["input"] });
    const arm = { kind: "match" as const, line: 6, scrutinee: "input.data", pattern: "_", guard: null, attributes: [], earlierArms: [{ pattern: "Data::Struct(s)", guard: null, attributes: [] }] };
    const f = analysisFields("unreachable", "internal error: entered unreachable code", "derive/src/lib.rs", 8, facts(expand, { crateKind: "proc-macro", conditions: [arm], entryPoints: [entry("expand", ["expand"])] }), []);
    assert.doesNotMatch([...f.solutions, ...f.preventionTips].join("\n"), /Run with `RUST_BACKTRACE=1`|run with `RUST_BACKTRACE=1`|read the expanded code/);
    assert.match(f.preventionTips.join("\n"), /rustc's error points at the item the macro is applied to .*: that item is what a report to the crate needs\./);
    assert.doesNotMatch(f.preventionTips.join("\n"), /what to change is that item/);
    const runtime = analysisFields("unreachable", "internal error: entered unreachable code", "src/lib.rs", 8, facts(expand, { conditions: [arm], entryPoints: [entry("expand", ["expand"])] }), []);
    assert.match(runtime.preventionTips.join("\n"), /RUST_BACKTRACE=1/);
  });

  it("says that a backtrace of a panic in an async block shows what polls it", () => {
    const start = fn({ name: "start", line: 110, visibility: null, params: [{ pattern: "jobs", type: "Vec<u8>" }], unchangedParams: ["jobs"] });
    const conditions = [{ kind: "async-block" as const, line: 116, callee: "spawn" }, { kind: "if" as const, line: 117, condition: "jobs.is_empty()", holds: true }];
    const f = analysisFields("panic", "no jobs", "src/pool.rs", 118, facts(start, { conditions, entryPoints: [] }), []);
    const traced = [...f.solutions, ...f.preventionTips].filter((x) => /RUST_BACKTRACE/.test(x));
    assert.ok(traced.length > 0);
    for (const x of traced) assert.match(x, /the backtrace shows the calls of what polls it/);
    const sync = analysisFields("panic", "no jobs", "src/pool.rs", 118, facts(start, { conditions: conditions.slice(1), entryPoints: [] }), []);
    assert.doesNotMatch([...sync.solutions, ...sync.preventionTips].join("\n"), /polls/);
  });

  it("does not tell the owner of `Drop::drop` to return an error", () => {
    const drop = fn({ name: "drop", line: 350, receiver: "&mut self", implType: "Guard", implTrait: "Drop" });
    const check = { kind: "assert" as const, line: 356, macro: "assert", condition: "self.count == 0" };
    const f = analysisFields("assert", "guard dropped with work left", "src/guard.rs", 356, facts(drop, { conditions: [check], entryPoints: [] }), []);
    assert.doesNotMatch(f.solutions.join("\n"), /return an error the caller can handle/);
    // A check of the dropped value's state, in a drop users trigger: no advice to call it (E0040).
    const state = analysisFields("assert", "guard dropped with work left", "src/guard.rs", 356, facts({ ...drop, visibility: null }, { conditions: [check], entryPoints: [entry("Guard::drop", ["Guard::drop"])] }), []);
    assert.doesNotMatch(state.solutions.join("\n"), /call it/);
    assert.match(state.solutions.join("\n"), /a state of the value being dropped: bring the value to a state for which `self\.count == 0` holds before it goes out of scope/);
  });

  it("says one arm before a match arm as that arm, and leaves a debug assertion's gate out of the build tips", () => {
    const get = fn({ name: "get", line: 10, visibility: "pub", params: [{ pattern: "x", type: "Option<u8>" }], unchangedParams: ["x"] });
    const arm = { kind: "match" as const, line: 11, scrutinee: "x", pattern: "Some(v)", guard: "v > 3", attributes: [], earlierArms: [{ pattern: "Some(0)", guard: null, attributes: [] }] };
    const f = analysisFields("panic", "too big", "src/get.rs", 12, facts(get, { conditions: [arm], entryPoints: [entry("get", ["get"])] }), []);
    assert.match(f.triggerScenarios, /matches `Some\(v\)` and `v > 3` holds and not the arm before it/);
    const check = { kind: "assert" as const, line: 11, macro: "debug_assert", condition: "x.is_some()" };
    const d = analysisFields("debug-assert", "assertion failed: x.is_some()", "src/get.rs", 11, facts(get, { conditions: [check], gates: ["debug_assertions"], entryPoints: [entry("get", ["get"])] }), []);
    assert.doesNotMatch(d.preventionTips.join("\n"), /Know which of `debug_assertions`/);
  });

  it("does not send users to call a maker that returns the error itself for a `Result`, but to the functions that reach it", () => {
    const fmt = fn({ name: "fmt", line: 30, receiver: "&self", implType: "Error", implTrait: "fmt::Display", params: [{ pattern: "f", type: "&mut fmt::Formatter<'_>" }], returnType: "fmt::Result" });
    const f = analysisFields("display-impl", "{}", "src/error.rs", 33, facts(fmt, { madeIn: [{ symbol: "Error::custom", path: "src/error.rs", line: 52, entryPoints: ["Error::custom", "Data::as_slice"], constructs: true }] }), [], "Error::Custom");
    assert.match(f.solutions[0]!, /^Handle the error at your call of `Data::as_slice`, which reaches code that builds it/);
    assert.match(f.triggerScenarios, /`Error::custom` gives the error value itself \(it returns `Self`, not a `Result`\)/);
  });
});

describe("a check of values the function computes as it goes", () => {
  it("does not call a value bound by `let mut` an assumption no parameter decides", () => {
    const index = fn({ name: "index", line: 310, visibility: "pub", receiver: "&self", implType: "Layout", params: [{ pattern: "indices", type: "&[usize]" }], unchangedParams: ["indices"], mutableLets: ["offset"] });
    const check = { kind: "assert" as const, line: 316, macro: "debug_assert", condition: "offset >= 0" };
    const f = analysisFields("debug-assert", "index: negative offset", "src/layout.rs", 316, facts(index, { conditions: [check], gates: ["debug_assertions"], entryPoints: [entry("Layout::index", ["Layout::index"])] }), []);
    assert.doesNotMatch(f.documentation, /No parameter of `Layout::index` is seen in the check/);
    assert.match(f.documentation, /It reads `offset`, which the function binds with `let mut` and may change after with values not read here/);
    assert.match(f.solutions[0]!, /^Check what you pass to `Layout::index` against its docs first/);
  });

  it("reads a parameter through `unwrap()`: a panicking method asks the world nothing", () => {
    const run = fn({ name: "copy_run", line: 569, visibility: "pub", params: [{ pattern: "strides", type: "&[isize]" }], unchangedParams: ["strides"] });
    const check = { kind: "assert" as const, line: 577, macro: "debug_assert_eq", left: "*strides.last().unwrap()", right: "1" };
    const f = analysisFields("debug-assert-eq", "assertion `left == right` failed", "src/tensor.rs", 577, facts(run, { conditions: [check], gates: ["debug_assertions"], entryPoints: [entry("copy_run", ["copy_run"])] }), []);
    assert.doesNotMatch(f.documentation, /No parameter of `copy_run` is seen/);
    assert.match(f.documentation, /a check of the parameter `strides`/);
  });
});

describe("a check of the value a method users cannot call is called on", () => {
  it("is not advice to call it only on other values", () => {
    const asCurrent = fn({ name: "as_current_thread", line: 200, visibility: "pub(crate)", receiver: "&self", implType: "Handle" });
    const arm = { kind: "match" as const, line: 201, scrutinee: "self", pattern: "_", guard: null, attributes: [], earlierArms: [{ pattern: "Handle::CurrentThread(handle)", guard: null, attributes: [] }] };
    const f = analysisFields("panic", "not a CurrentThread handle", "src/handle.rs", 203, facts(asCurrent, { conditions: [arm], entryPoints: [] }), []);
    assert.doesNotMatch(f.solutions.join("\n"), /call it only on values for which/);
    assert.match(f.solutions[0]!, /users do not call `Handle::as_current_thread`, and the symbol index finds no public function that reaches it/);
  });
});

describe("the builds of a site in a macro_rules! body", () => {
  it("are its invocations', not every build", () => {
    const f = analysisFields("panic", "Autodiff is not enabled", "src/macros.rs", 40, facts(fn({ name: "from_backend", line: 30 }), { macro: "macro_rules" }), []);
    assert.doesNotMatch(f.commonSituations, /present in every build/);
    assert.match(f.commonSituations, /^The `macro_rules!` that holds it is not behind any `#\[cfg\]`; its code is compiled where the macro is invoked, under the gates of each invocation/);
  });
});

describe("the tip on a site's gates", () => {
  it("says what sets each kind of predicate: a crate's features, --cfg flags, the target", () => {
    const f = analysisFields("panic", "io_uring is not supported", "src/io.rs", 12, facts(fn({ name: "open", line: 10, visibility: "pub" }), { crate: "tokio", gates: ['feature = "rt"', "tokio_unstable", 'target_os = "linux"'], entryPoints: [entry("open", ["open"])] }), []);
    const tip = f.preventionTips.find((t) => t.startsWith("Whether your build has this code")) ?? "";
    assert.match(tip, /the feature `rt` of `tokio`, which a crate's `Cargo\.toml` turns on .*`cargo tree -e features -i tokio` shows which/);
    assert.match(tip, /on `tokio_unstable`, set by `--cfg` \(`RUSTFLAGS="--cfg tokio_unstable"`\)/);
    assert.match(tip, /on the target you build for \(`target_os = "linux"`\)/);
    assert.doesNotMatch(tip, /`linux`|`rt`, set by/);
  });
});

describe("a returned error that an entry point with no Result reaches", () => {
  it("is not to be matched at that entry point's call: it cannot hand the error back", () => {
    const apply = fn({ name: "apply", line: 237, visibility: "pub(crate)", receiver: "self", implType: "ModuleRecord", returnType: "Result<M, RecordError>" });
    const entries = [{ ...entry("Module::try_load_record", ["Module::try_load_record", "ModuleRecord::apply"]) }, { ...entry("Module::load_record", ["Module::load_record", "Module::try_load_record", "ModuleRecord::apply"]), noResult: true as const }];
    const f = analysisFields("err-return", "Missing tensors: {:?}", "src/store.rs", 258, facts(apply, { entryPoints: entries }), [], "RecordError::Validation");
    assert.match(f.solutions[0]!, /^Handle the error at your call of `Module::try_load_record`, which reaches `apply`/);
    assert.doesNotMatch(f.solutions[0]!, /`Module::load_record`/);
    assert.match(f.solutions.join("\n"), /`Module::load_record` reaches `apply` but returns no `Result`: the error does not come back to you through it as a value/);
  });
});

describe("what a path's own function checks first, and the receiver's method on self", () => {
  it("says an entry point's own panic on a line before its call of the next function stops such input first", () => {
    const reduce = fn({ name: "max_f32_reduce", line: 580, visibility: null, params: [{ pattern: "x", type: "&[f32]" }] });
    const own = { caller: "max", callee: "max", before: "max_f32_reduce", message: "max: cannot reduce an empty tensor" };
    const g = facts(reduce, { conditions: [{ kind: "expect", line: 587, receiver: "x.iter().copied().reduce(f32::max)" }], entryPoints: [{ ...entry("max", ["max", "max_f32_reduce"]), checksFirst: [own] }] });
    const f = withOwnWords(analysisFields("expect", "max: empty", "src/reduce.rs", 587, g, []), g, undefined, "max: empty");
    assert.match(f.triggerScenarios, /On the way, `max` checks with a panic of its own on a line before its first call of `max_f32_reduce` \(“max: cannot reduce an empty tensor”\): where it rejects the same input, a call of `max` stops there first/);
  });
  it("says of a check that reads only the call's type parameters that every such call fails, not to validate arguments", () => {
    const tri = fn({ name: "tri", line: 232, visibility: "pub", generics: "<const D: usize>" });
    const f = analysisFields("assert", "tri needs at least 2 dimensions", "src/check.rs", 238, facts(tri, { conditions: [{ kind: "assert", line: 238, macro: "assert", condition: "D >= 2" }], entryPoints: [entry("tri", ["tri"])] }), []);
    assert.match(f.preventionTips.join("\n"), /The check reads `D`, which the types of your call choose: it fails on every such call/);
    assert.doesNotMatch(f.preventionTips.join("\n"), /Validate the arguments/);
    // A check that also reads a value at run time (`self.dtype`) does not fail on every call with those types.
    const cast = fn({ name: "as_slice", line: 40, visibility: "pub", receiver: "&self", implType: "Data", generics: "<E: Element>" });
    const g = analysisFields("assert", "dtype mismatch", "src/data.rs", 42, facts(cast, { conditions: [{ kind: "assert", line: 42, macro: "assert_eq", left: "E::dtype()", right: "self.dtype" }], entryPoints: [entry("Data::as_slice", ["Data::as_slice"])] }), []);
    assert.doesNotMatch(g.preventionTips.join("\n"), /fails on every such call/);
  });

  it("says a receiver on a field of self by the type its struct declares, not as None or an Err", () => {
    const poll = fn({ name: "poll_next", line: 10, visibility: "pub", receiver: "self: Pin<&mut Self>", implType: "Chunks" });
    const f = analysisFields("expect", "polled after completion", "src/chunks.rs", 12, facts(poll, { conditions: [{ kind: "expect", line: 12, receiver: "self.project().chunk.as_mut()" }], receiverReturns: "option", receiverField: "chunk", entryPoints: [entry("Chunks::poll_next", ["Chunks::poll_next"])] }), []);
    assert.match(f.triggerScenarios, /`self\.project\(\)\.chunk\.as_mut\(\)` holds no value \(None\) \(its struct declares `chunk` an Option\)/);
    assert.doesNotMatch(f.documentation, /None or an Err/);
  });

  it("names the method a receiver on self calls where its type says what it returns, not a match by name", () => {
    const pop = fn({ name: "next", line: 10, visibility: "pub", receiver: "&mut self", implType: "Queue" });
    const f = analysisFields("expect", "queue is empty", "src/queue.rs", 12, facts(pop, { conditions: [{ kind: "expect", line: 12, receiver: "self.inner.pop()" }], receiverReturns: "option", receiverMethod: "Local::pop", entryPoints: [entry("Queue::next", ["Queue::next"])] }), []);
    assert.match(f.triggerScenarios, /`self\.inner\.pop\(\)` holds no value \(None\) \(`Local::pop` returns an Option\)/);
    assert.doesNotMatch(f.triggerScenarios, /every function named/);
  });
  it("shows a condition without its comments, so that one line of it does not read as commented out", () => {
    const check = fn({ name: "remove", line: 10, visibility: "pub", params: [{ pattern: "key", type: "usize" }] });
    const f = analysisFields("assert", "invalid key", "src/queue.rs", 14, facts(check, { conditions: [{ kind: "assert", line: 14, macro: "assert", condition: "{\n    // This walks the list.\n    contains(key)\n}" }], entryPoints: [entry("remove", ["remove"])] }), []);
    assert.match(f.triggerScenarios, /`\{contains\(key\) \}` is false|`\{ contains\(key\) \}` is false|`\{contains\(key\)\}` is false/);
    assert.doesNotMatch(f.triggerScenarios, /This walks/);
  });
});

describe("a path condition in a function that may return before the site", () => {
  it("says the conditions are needed, not enough, where an earlier return or ? may leave first", () => {
    const ser = fn({ name: "serialize_variant", line: 650, visibility: null, params: [{ pattern: "variant", type: "&Variant" }] });
    const arm = { kind: "match" as const, line: 700, scrutinee: "variant.style", pattern: "Style::Unit", guard: null, attributes: [], earlierArms: [] };
    const f = analysisFields("unreachable", "internal error: entered unreachable code", "src/ser.rs", 713, facts(ser, { conditions: [arm], exitBeforePath: true }), []);
    assert.match(f.triggerScenarios, /An earlier `return` or `\?` in the function's body may leave it before this line in some of these cases: the conditions are needed, not enough\./);
    const plain = analysisFields("unreachable", "internal error: entered unreachable code", "src/ser.rs", 713, facts(ser, { conditions: [arm] }), []);
    assert.doesNotMatch(plain.triggerScenarios, /An earlier `return`/);
  });
});

describe("an expect on a std method's name that no function of the repository has", () => {
  it("says std's meaning without calling it a guess, a dependency's method of the name left open", () => {
    const conv = fn({ name: "conv_impl", line: 10, visibility: "pub", params: [{ pattern: "groups", type: "usize" }, { pattern: "k", type: "usize" }] });
    const expect = { kind: "expect" as const, line: 12, receiver: "groups.checked_mul(k)" };
    const outside = analysisFields("expect", "overflow", "src/conv.rs", 12, facts(conv, { conditions: [expect], receiverOutsideRepo: true, entryPoints: [entry("conv_impl", ["conv_impl"])] }), []);
    assert.match(outside.triggerScenarios, /no function of the repository is named `checked_mul`: std's `checked_mul` gives an Option, None when .*unless a dependency's method of that name is meant/);
    const named = analysisFields("expect", "overflow", "src/conv.rs", 12, facts(conv, { conditions: [expect], entryPoints: [entry("conv_impl", ["conv_impl"])] }), []);
    assert.match(named.triggerScenarios, /if `checked_mul` is std's, a guess from its name alone/);
  });
});

describe("a method with a fallible try_ form", () => {
  it("names that form as the user's way to get the failure as a value, and gives its maintainers no advice to add one", () => {
    const intoData = fn({ name: "into_data", line: 10, visibility: "pub", receiver: "self", implType: "Tensor", returnType: "TensorData" });
    const expect = { kind: "expect" as const, line: 12, receiver: "self.try_into_data()" };
    const f = analysisFields("expect", "Failed to read tensor data", "src/base.rs", 12, facts(intoData, { conditions: [expect], fallible: [["Tensor::into_data", "Tensor::try_into_data"]], entryPoints: [entry("Tensor::into_data", ["Tensor::into_data"])] }), []);
    const all = f.solutions.join("\n");
    assert.match(all, /`Tensor::try_into_data` is the fallible form of `Tensor::into_data` .*calling it instead gives a failure back as a value to handle; whether it returns this one rather than panicking is not worked out here\./);
    assert.doesNotMatch(all, /For the maintainers/);
    const plain = analysisFields("expect", "Failed to read tensor data", "src/base.rs", 12, facts(intoData, { conditions: [expect], entryPoints: [entry("Tensor::into_data", ["Tensor::into_data"])] }), []);
    assert.match(plain.solutions.join("\n"), /For the maintainers of `lines`: return the failure to the caller/);
  });
});

describe("a let-else or if-let on one whole variant", () => {
  it("says the value is None (or an Err), not that it does not match a pattern whose names are new bindings", () => {
    const get = fn({ name: "get", line: 20, visibility: "pub", receiver: "&self", implType: "Selection", params: [{ pattern: "index", type: "usize" }], unchangedParams: ["index"] });
    const letElse = { kind: "let-else" as const, line: 21, value: "self.indices.get(index)", pattern: "Some(&index)" };
    const f = analysisFields("panic", "index out of range", "src/lib.rs", 22, facts(get, { conditions: [letElse], entryPoints: [entry("Selection::get", ["Selection::get"])] }), []);
    assert.match(f.triggerScenarios, /`self\.indices\.get\(index\)` is None \(the `else` of a `let … else`\)/);
    assert.match(f.solutions.join("\n"), /`self\.indices\.get\(index\)` is `Some\(…\)`/);
    assert.doesNotMatch([f.triggerScenarios, ...f.solutions].join("\n"), /does not match `Some\(&index\)`/);
    const parsed = analysisFields("panic", "bad number", "src/lib.rs", 22, facts(get, { conditions: [{ kind: "if-let", line: 21, value: "text.parse::<u8>()", pattern: "Ok(n)", holds: false }], entryPoints: [entry("Selection::get", ["Selection::get"])] }), []);
    assert.match(parsed.triggerScenarios, /`text\.parse::<u8>\(\)` is an Err/);
    // Note: a pattern that can fail on its own value is said as a pattern.
    const literal = analysisFields("panic", "not zero", "src/lib.rs", 22, facts(get, { conditions: [{ kind: "let-else", line: 21, value: "self.indices.get(index)", pattern: "Some(0)" }], entryPoints: [entry("Selection::get", ["Selection::get"])] }), []);
    assert.match(literal.triggerScenarios, /does not match `Some\(0\)`/);
    const flag = analysisFields("panic", "not set", "src/lib.rs", 22, facts(get, { conditions: [{ kind: "let-else", line: 21, value: "self.flag", pattern: "Some(true)" }], entryPoints: [entry("Selection::get", ["Selection::get"])] }), []);
    assert.match(flag.triggerScenarios, /does not match `Some\(true\)`/);
  });
});

describe("the tip on a panic no condition decides", () => {
  it("says every call that gets there panics, not to check which cases or operations it supports", () => {
    const pool = fn({ name: "pool_backward", line: 30, visibility: "pub", params: [{ pattern: "x", type: "usize" }] });
    for (const kind of ["todo", "panic"] as const) {
      const f = analysisFields(kind, kind === "todo" ? "not yet implemented" : "not supported", "src/lib.rs", 31, facts(pool, { entryPoints: [entry("pool_backward", ["pool_backward"])] }), []);
      assert.ok(f.preventionTips.includes("Every call of `pool_backward` that gets to line 31 panics: do not rely on it in this version."), f.preventionTips.join("\n"));
      assert.doesNotMatch(f.preventionTips.join("\n"), /which cases it implements|which operations/);
    }
  });
});

describe("a returned error whose way up from the site is read (EntryPoint.errorPath)", () => {
  const apply = fn({ name: "apply", line: 237, visibility: "pub(crate)", receiver: "self", implType: "ModuleRecord", returnType: "Result<M, RecordError>" });
  it("comes back in the Result of an entry point whose every call passes it on, and ends as a panic where a call unwraps it", () => {
    const entries = [
      { ...entry("Module::try_load_record", ["Module::try_load_record", "ModuleRecord::apply"]), errorPath: ["return" as const] },
      { ...entry("Module::load_record", ["Module::load_record", "Module::try_load_record", "ModuleRecord::apply"]), noResult: true as const, errorPath: ["expect" as const, "return" as const] },
    ];
    const f = analysisFields("err-return", "Missing tensors: {:?}", "src/store.rs", 258, facts(apply, { entryPoints: entries }), [], "RecordError::Validation");
    const all = f.solutions.join("\n");
    assert.match(all, /^It comes back to you in the `Result` of `Module::try_load_record`, as the index reads the calls \(`Module::try_load_record` → `return ModuleRecord::apply\(…\)`\)/);
    assert.match(all, /Through `Module::load_record` it does not come back to you as a value .*the `expect\(…\)` in `Module::load_record` turns it into a panic/);
    assert.doesNotMatch(all, /not worked out here/);
    assert.doesNotMatch(f.commonSituations, /not worked out here/);
  });
  it("is another error where a call maps it and every call above passes that on, and keeps the hedge where a use above or on the way is not read", () => {
    const entries = [
      { ...entry("Client::connect", ["Client::connect", "connect_ws", "ModuleRecord::apply"]), errorPath: ["?" as const, "map_err" as const] },
      { ...entry("Client::open", ["Client::open", "open_ws", "ModuleRecord::apply"]), errorPath: [null, "map_err" as const] },
      { ...entry("Store::open", ["Store::open", "ModuleRecord::apply"]), errorPath: [null] },
    ];
    const f = analysisFields("err-return", "Missing tensors: {:?}", "src/store.rs", 258, facts(apply, { entryPoints: entries }), [], "RecordError::Validation");
    const all = f.solutions.join("\n");
    assert.match(all, /Through `Client::connect` .*`connect_ws` turns it into another error with `\.map_err\(…\)`/);
    assert.doesNotMatch(all, /Through `Client::open`/);
    assert.match(all, /Handle the error at your call of `Client::open` and `Store::open`, which reach `apply` \(whether they pass the error on as it is/);
    assert.doesNotMatch(all, /It comes back to you/);
    assert.match(f.commonSituations, /not worked out here for `Client::open` and `Store::open`/);
  });
});

describe("an example fix that would clone a value of a type parameter", () => {
  it("is not written unless the bounds say Clone (rustc E0599)", () => {
    const create = fn({ name: "create", line: 10, visibility: "pub", generics: "<F>", whereClause: "where F: FnMut() -> u32", params: [{ pattern: "n", type: "usize" }, { pattern: "new_id", type: "F" }], unchangedParams: ["n", "new_id"] });
    const check = { kind: "assert" as const, line: 12, macro: "assert", condition: "n > 0" };
    const f = analysisFields("assert", "n must be positive", "src/op.rs", 12, facts(create, { conditions: [check], entryPoints: [entry("create", ["create"])] }), []);
    assert.equal(f.exampleFix, null);
    const cloned = analysisFields("assert", "n must be positive", "src/op.rs", 12, facts({ ...create, whereClause: "where F: FnMut() -> u32 + Clone" }, { conditions: [check], entryPoints: [entry("create", ["create"])] }), []);
    assert.match(cloned.exampleFix ?? "", /if !would_panic\(n, new_id\.clone\(\)\)/);
  });
});

describe("readings a review found wrong", () => {
  it("traces a let chain's later part back through an earlier one", () => {
    const f1 = fn({ name: "f", line: 1, visibility: "pub", params: [{ pattern: "x", type: "Option<Vec<usize>>" }], unchangedParams: ["x"] });
    const chain = { kind: "if" as const, line: 2, condition: "let Some(a) = x && let Some(b) = a.first()", holds: true };
    const check = { kind: "assert" as const, line: 2, macro: "assert", condition: "*b > 0" };
    const f = analysisFields("assert", "b positive", "src/lib.rs", 2, facts(f1, { conditions: [chain, check], entryPoints: [entry("f", ["f"])] }), []);
    assert.doesNotMatch(f.documentation, /No parameter/);
  });

  it("keeps a debug assertion's own #[cfg(debug_assertions)] a condition of compiling it", () => {
    const check = fn({ name: "check", line: 2, visibility: "pub", params: [{ pattern: "x", type: "usize" }], unchangedParams: ["x"] });
    const cond = { kind: "assert" as const, line: 2, macro: "debug_assert", condition: "x > 1" };
    const f = analysisFields("debug-assert", "x too small", "src/lib.rs", 2, facts(check, { conditions: [cond], gates: ["debug_assertions"], debugGateWritten: true, entryPoints: [entry("check", ["check"])] }), []);
    assert.match(f.commonSituations, /^Only in builds where `debug_assertions` holds\./);
    assert.doesNotMatch(f.commonSituations, /compiled in every build/);
  });

  it("does not call a maker of another type that returns Self a constructor of the error", () => {
    const fmt = fn({ name: "fmt", line: 30, receiver: "&self", implType: "Error", implTrait: "fmt::Display", params: [{ pattern: "f", type: "&mut fmt::Formatter<'_>" }], returnType: "fmt::Result" });
    const f = analysisFields("display-impl", "channel closed", "src/error.rs", 33, facts(fmt, { madeIn: [{ symbol: "Sender::closed", path: "src/chan.rs", line: 5, entryPoints: ["Sender::closed"], constructs: true }] }), [], "Error::Closed");
    assert.doesNotMatch(f.triggerScenarios, /gives the error value itself/);
    assert.match(f.solutions[0]!, /^Handle the error at your call of `Sender::closed`/);
  });
});
