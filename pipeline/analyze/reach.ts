/**
 * The symbol index joined to the records: for each record, the function its site sits in, the
 * public functions that reach it (entry points), the doc comments of both, and the tests that
 * trigger it (reproductions). Pure: the index and the envelopes in, per-record answers out.
 *
 * A `#[should_panic]` test is linked to a record only where the code says which panic it expects:
 * the one record whose pattern accepts its expected text (symbols/tests.ts) and whose site the
 * test reaches through the index, or of several it reaches, the one its text matches whole when no
 * other does; when it reaches none, the record its text matches whole when no other does. A test
 * without an expected text, or whose text several records accept alike, names no record: which of
 * them fails first is not in the syntax. Doc tests are the `should_panic` examples of the docs of
 * the record's function and entry points.
 */
import { permalink } from "../build.js";
import { isDistinctive } from "../message.js";
import { conditionSource, ERROR_HANDLERS } from "./frame.js";
import { boundNames, closureParam, errBinding, formattedNames, lastCall, lastLetValue, pathCalls, receiverKind, valueCalls } from "./rust.js";
import { typeHead } from "../rust/index.js";
import type { CheckFirst, Condition, DocQuote, EntryPoint as EntryPointFact, Envelope, Forwarded, Maker, PanickedWith, Reproduction, SiteFacts } from "../schema-types.generated.js";
import { type PanicTest, recordsExpecting } from "../symbols/tests.js";
import type { ProcMacro } from "../symbols/file.js";
import type { SymbolIndex, SymbolNode } from "../symbols/index.js";

/** What the index says of one record. */
export interface RecordReach {
  readonly entryPoints: EntryPointFact[];
  readonly docs: DocQuote[];
  /** The functions whose calls of the record's function the index resolves (`SymbolIndex.resolvedCallers`). */
  readonly callers: string[];
  readonly reproductions: Reproduction[];
  /** The body of the best `#[should_panic]` test that calls the record's function or an entry point by name: the "before" of an example fix. */
  readonly example: { readonly name: string; readonly path: string; readonly line: number; readonly body: string } | null;
  /** What the functions named like the last call of an `.expect`'s receiver return (`RecordFacts.receiverReturns`); absent when they do not agree. */
  readonly receiverReturns?: "option" | "result";
  /** The method a receiver on `self` calls, `Type::name` (`RecordFacts.receiverMethod`). */
  readonly receiverMethod?: string;
  /** The field of `self` a receiver reads, declared an `Option` or a `Result` (`RecordFacts.receiverField`). */
  readonly receiverField?: string;
  /** True when no function of the workspace has the name of the receiver's last call (`RecordFacts.receiverOutsideRepo`). */
  readonly receiverOutsideRepo?: true;
  /** The `value.field` reads of the site's conditions of fields users cannot read (`RecordFacts.privateFields`). */
  readonly privateFields?: readonly string[];
  /** The fallible forms of the public methods that reach the site (`RecordFacts.fallible`). */
  readonly fallible?: readonly (readonly [string, string])[];
  /** The functions that build the record's error variant (`RecordFacts.madeIn`); absent when none or not a variant's `Display` text. */
  readonly madeIn?: Maker[];
  /** The functions its conditions call that users cannot (`RecordFacts.privateCalls`); absent when none. */
  readonly privateCalls?: string[];
  /** For a panic that formats an error value, where that value comes from (`RecordFacts.forwards`); absent when not found. */
  readonly forwards?: Forwarded;
  /** For a returned error, the panics that format it (`RecordFacts.panickedWith`); absent when none. */
  readonly panickedWith?: PanickedWith[];
}

/** The index and the repository's tests, as the analyze stage gets them. */
export interface SymbolsInput {
  readonly index: SymbolIndex;
  readonly tests: readonly PanicTest[];
  /** `owner/name` and the commit, for permalinks. */
  readonly repo: string;
  readonly sha: string;
}

/** Most functions a record names as building its variant (`RecordFacts.madeIn`), and most entry points of each. */
const MAX_MAKERS = 5;
const MAX_MAKER_ENTRIES = 3;
/** Most errors a panic lists as those it may format (`Forwarded.errors`), and most panics a returned error lists. */
const MAX_FORWARDED = 8;
const MAX_PANICKED_WITH = 5;
/** Most functions of a call's name taken, by name alone, as giving the error a panic formats. */
const MAX_NAMESAKE_SOURCES = 2;
/** The kinds of returned-error site that return their text from their own function (`Err(…)`, `ok_or`, `map_err`). */
const RETURNED_TEXTS: ReadonlySet<string> = new Set(["err-return", "ok-or", "map-err"]);
/** A receiver that is one call on `self` or on a field of it (`self.pop()`, `self.inner.pop::<T>(x)`): the field (group 1, absent for `self`'s own) and the method (group 2). */
/** A field of `self` (through `self.project()`, pin-project's), then std's methods that keep an `Option`'s or a `Result`'s kind: `self.chunk.as_mut()`. */
const SELF_FIELD = /^self\s*\.\s*(?:project\s*\(\s*\)\s*\.\s*)?([a-z_]\w*)(?:\s*\.\s*(?:as_ref|as_mut|as_deref|as_deref_mut|as_pin_mut|take|clone|copied|cloned)\s*\(\s*\))*$/;
const SELF_CALL = /^self\s*\.\s*(?:([a-z_]\w*)\s*\.\s*)?([a-z_]\w*)\s*(?:::\s*<[^()]*>\s*)?\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)$/;
/** The kinds of record whose text is a type's `Display`, not a site that returns it. */
const DISPLAY_TEXTS: ReadonlySet<string> = new Set(["display-impl", "error-attribute"]);

/** Most reproductions a record lists. */
const MAX_REPRODUCTIONS = 10;
/** Most checks an entry point makes first, listed (`EntryPoint.checksFirst`). */
const MAX_CHECKS_FIRST = 3;
/** The kinds of site that check: a condition with a message of its own (`EntryPoint.checksFirst`). */
const CHECKS: ReadonlySet<string> = new Set(["panic", "assert", "assert-eq", "assert-ne", "declared-call", "wrapper-call"]);
// Note: a `debug_assert*` checks nothing in release builds, where users meet most panics: it stops no input first.

const HOW_RANK: Record<Reproduction["how"], number> = { "should-panic-reached": 0, "should-panic-text": 1, "doc-test": 2 };

/**
 * For each envelope (by index), what the index says of it. `factsOf(i)` gives the facts of its
 * first site (the function or `macro_rules!` macro it sits in).
 */
export function reachOf(input: SymbolsInput, envelopes: readonly Envelope[], factsOf: (i: number) => SiteFacts, conditionsAt: (i: number, k: number) => readonly Condition[] | undefined = (i, k) => (k === 0 ? factsOf(i).conditions : undefined)): RecordReach[] {
  const { index } = input;
  const targets = envelopes.map((e, i) => targetOf(index, e.record.filePath, e.record.lineNumber, factsOf(i)));
  const linked = envelopes.map((): { test: PanicTest; how: Reproduction["how"]; via?: string[] }[] => []);
  const at = new Map<string, number>();
  envelopes.forEach((e, i) => at.set(e.record.id, i));
  const byTarget = new Map<number, number[]>();
  targets.forEach((t, i) => {
    if (t === null) return;
    const list = byTarget.get(t.id);
    if (list) list.push(i);
    else byTarget.set(t.id, [i]);
  });
  const version = { version: "", envelopes };
  const expecting = new Map<string, ReturnType<typeof recordsExpecting>>();
  for (const test of input.tests) {
    const node = index.functionAt(test.path, test.line);
    const reached = node === null ? null : index.reachedFrom(node);
    if (test.expected === "") continue;
    // Note: each expected text is matched once.
    const matches = expecting.get(test.expected) ?? expecting.set(test.expected, recordsExpecting(test.expected, version)).get(test.expected)!;
    const reaching = reached === null ? [] : matches.flatMap((m) => {
      const i = at.get(m.id)!;
      return targets[i] !== null && reached.confidence(targets[i]!.id) !== undefined ? [{ i, via: reached.via(targets[i]!.id), how: m.how }] : [];
    });
    const chosen = onlyOne(reaching);
    if (chosen !== null) linked[chosen.i]!.push({ test, how: "should-panic-reached", via: chosen.via });
    else if (reaching.length === 0) {
      const text = onlyOne(matches);
      if (text !== null && text.how === "whole") linked[at.get(text.id)!]!.push({ test, how: "should-panic-text" });
    }
  }
  // The functions (not macros) that check with panics of their own (a check, a message of their own: not `unreachable!`, `todo!` or an `expect`), each with its first such record's message.
  const raising = new Map<number, string[]>();
  // The same checks by function with the line of each (a record's first site), for the checks a function of a path makes itself before its call of the next.
  const ownChecks = new Map<number, { readonly message: string; readonly line: number }[]>();
  targets.forEach((t, i) => {
    const e = envelopes[i]!;
    if (t === null || t.fn === null || t.test || !CHECKS.has(e.occurrences[0]!.kind) || e.record.errorMessage === "explicit panic" || !isDistinctive([{ lit: e.record.errorMessage.replace(/\{[^{}]*\}/g, "") }])) return;
    const list = raising.get(t.id) ?? raising.set(t.id, []).get(t.id)!;
    if (!list.includes(e.record.errorMessage)) list.push(e.record.errorMessage);
    // Note: only a check that every run of its function meets (no path condition but its own assertion): one in a branch or an arm may not be on the way to the call.
    if (factsOf(i).conditions.every((c) => c.kind === "assert")) (ownChecks.get(t.id) ?? ownChecks.set(t.id, []).get(t.id)!).push({ message: e.record.errorMessage, line: e.occurrences[0]!.lineNumber });
  });
  /** Of a checking function's messages, the one that shares most words with `message` (the first of those alike). */
  const nearestMessage = (messages: readonly string[], message: string): string => {
    const mine = wordsOf(message);
    let best = messages[0]!;
    let score = -1;
    for (const m of messages) {
      const shared = [...wordsOf(m)].filter((w) => mine.has(w)).length;
      if (shared > score) (best = m), (score = shared);
    }
    return best;
  };
  /** What an entry point calls before the next function of its path, of the functions that check with panics of their own (the site's function aside): at most `MAX_CHECKS_FIRST`. */
  const checksFirst = (chain: readonly number[], target: number, own: string): CheckFirst[] => {
    const out: CheckFirst[] = [];
    if (chain.length < 2) return out;
    // Note: a function of the path that checks with a panic of its own on a line before its first call of the next function (`max` asserting a non-empty tensor before it reduces): `callee` is the function itself.
    for (let k = 0; k + 1 < chain.length && out.length < MAX_CHECKS_FIRST; k++) {
      const caller = index.nodes[chain[k]!]!;
      const next = index.nodes[chain[k + 1]!]!;
      const line = index.firstCallLine(caller, next);
      const before = line === null ? [] : (ownChecks.get(caller.id) ?? []).filter((c) => c.line < line && c.message !== own);
      if (before.length > 0) out.push({ caller: caller.symbol, callee: caller.symbol, before: next.symbol, message: nearestMessage([...new Set(before.map((c) => c.message))], own) });
    }
    for (const id of index.calledBefore(chain[0]!, chain[1]!)) {
      if (out.length >= MAX_CHECKS_FIRST) break;
      const messages = raising.get(id);
      if (messages === undefined || id === target || chain.includes(id)) continue;
      out.push({ caller: index.nodes[chain[0]!]!.symbol, callee: index.nodes[id]!.symbol, before: index.nodes[chain[1]!]!.symbol, message: nearestMessage(messages, own) });
      if (out.length >= MAX_CHECKS_FIRST) break;
    }
    return out;
  };
  // What the functions of each name return, where all of that name say the same by their return type.
  let returnsByName: Map<string, "option" | "result" | null> | null = null;
  const returnsOf = (name: string): "option" | "result" | null => {
    if (returnsByName === null) {
      returnsByName = new Map();
      for (const n of index.nodes) {
        if (n.fn === null || n.test) continue;
        const known = returnsByName.get(n.fn.name);
        const here = n.fn.returns === "option" || n.fn.returns === "result" ? n.fn.returns : null;
        returnsByName.set(n.fn.name, known === undefined ? here : known === here ? known : null);
      }
    }
    return returnsByName.get(name) ?? null;
  };
  /** True when a function or method of the workspace, test code aside, has the name. */
  const definesName = (name: string): boolean => {
    returnsOf(name);
    return returnsByName!.has(name);
  };
  /** `RecordReach.receiverReturns` (and `receiverMethod`) of a site's facts, in the function `target`. */
  const receiverReturns = (facts: SiteFacts, target: SymbolNode | null): { kind: "option" | "result"; method?: string; field?: string } | null => {
    const last = facts.conditions.at(-1);
    if (last?.kind !== "expect" || last.receiver === undefined) return null;
    // Note: a field of `self` its struct declares an `Option` or a `Result`, read through std's methods that keep the kind.
    const onField = SELF_FIELD.exec(last.receiver.trim());
    const fieldKind = onField === null || target === null ? null : index.fieldKind(target, onField[1]!);
    if (fieldKind !== null) return { kind: fieldKind, field: onField![1]! };
    // Note: a call on `self` or on a field of `self` is a method of the impl's type or of the field's type its struct says.
    const onSelf = SELF_CALL.exec(last.receiver.trim());
    if (onSelf !== null && target !== null) {
      const found = index.methodReturns(target, onSelf[1] ?? null, onSelf[2]!);
      if (found !== null) return { kind: found.kind, method: `${found.type}::${onSelf[2]}` };
    }
    const name = lastCall(last.receiver);
    if (name === undefined) return null;
    const repo = returnsOf(name);
    const std = receiverKind(last.receiver);
    return repo !== null && (std === null || std === repo) ? { kind: repo } : null;
  };
  const entryCache = new Map<number, ReturnType<SymbolIndex["entryPoints"]>>();
  const entriesOf = (node: SymbolNode) => entryCache.get(node.id) ?? entryCache.set(node.id, index.entryPoints(node)).get(node.id)!;
  const callerCache = new Map<number, readonly string[]>();
  /**
   * `RecordReach.madeIn` of an envelope: for a variant's `Display` text, the functions that build the variant.
   * Note: each with the entry points that may hand it back: one returning nothing or `Self` (`Receiver::drop`) keeps no error to give.
   */
  const madeIn = (e: Envelope): Maker[] => {
    const variant = e.record.errorClass;
    if (!DISPLAY_TEXTS.has(e.occurrences[0]!.kind) || variant == null) return [];
    // Note: a record's sites may be several types' texts (the same words in `oneshot::error::RecvError` and `watch::error::RecvError`): each site's type by its own file.
    const nodes = new Map<number, SymbolNode>();
    for (const path of new Set(e.occurrences.map((o) => o.filePath))) for (const n of index.makersOf(variant, path)) nodes.set(n.id, n);
    return [...nodes.values()].slice(0, MAX_MAKERS).map((n) => ({ symbol: n.symbol, path: n.path, line: n.line, entryPoints: entriesOf(n).filter((x) => x.node === n || !(x.node.fn?.returns === "none" || x.node.fn?.returns === "self")).slice(0, MAX_MAKER_ENTRIES).map((x) => x.symbol), ...(n.fn?.returns === "self" ? { constructs: true as const } : {}) }));
  };
  // Whether every function of each key (`name` of a free function, `Type::name` of a method) outside test code is out of users' reach.
  let hiddenByKey: Map<string, boolean> | null = null;
  const hidden = (key: string): boolean => {
    if (hiddenByKey === null) {
      hiddenByKey = new Map();
      for (const n of index.nodes) {
        if (n.fn === null || n.test) continue;
        const k = n.fn.owner === null ? n.fn.name : `${n.fn.owner}::${n.fn.name}`;
        hiddenByKey.set(k, (hiddenByKey.get(k) ?? true) && !n.public);
      }
    }
    return hiddenByKey.get(key) ?? false;
  };
  /** `RecordReach.privateCalls` of a site's facts: the calls of its conditions, by a plain or a `Type::` path, to functions users cannot call. */
  const privateCalls = (facts: SiteFacts): string[] => {
    const found = new Set<string>();
    // Note: and the `let`s a guard repeats (`let (id, _) = Device::decode_type_id(type_id);`).
    for (const source of [...facts.conditions.map(conditionSource), ...(facts.function?.lets ?? []), ...(facts.pathLets ?? [])]) {
      for (const key of pathCalls(source)) if (hidden(key)) found.add(key);
    }
    return [...found].sort();
  };
  /**
   * `RecordReach.privateFields` of a site's facts in the function `target`: the `value.field` reads of
   * its conditions and `let`s whose value is a parameter (or `self`) of a named type that has that
   * field not plain `pub` (`SymbolIndex.hiddenField`).
   */
  const privateFields = (facts: SiteFacts, target: SymbolNode | null): string[] => {
    const fn = facts.function;
    if (fn === undefined || target === null) return [];
    const types = new Map<string, string>();
    for (const p of fn.params) {
      const head = typeHead(p.type);
      if (head !== null) for (const name of boundNames(p.pattern)) types.set(name, head);
    }
    if (fn.receiver !== null && fn.implType !== null) {
      const head = typeHead(fn.implType);
      if (head !== null) types.set("self", head);
    }
    const found = new Set<string>();
    for (const source of [...facts.conditions.map(conditionSource), ...fn.lets, ...(facts.pathLets ?? [])]) {
      for (const m of source.matchAll(/\b([a-z_]\w*)\s*\.\s*([a-z_]\w*)\b(?!\s*(?:[(!]|::))/g)) {
        const type = types.get(m[1]!);
        if (type !== undefined && index.hiddenField(target.path, type, m[2]!)) found.add(`${m[1]}.${m[2]}`);
      }
    }
    return [...found].sort();
  };
  // The returned-error records of each function (by every site of theirs), of texts the function returns itself.
  // Note: an error returned by a closure inside the function goes to the closure's caller, not out of the function.
  let textsByFunction: Map<number, [record: number, site: number][]> | null = null;
  const ownTexts = (): Map<number, [record: number, site: number][]> => {
    if (textsByFunction !== null) return textsByFunction;
    textsByFunction = new Map();
    envelopes.forEach((e, j) => {
      if (!RETURNED_TEXTS.has(e.occurrences[0]!.kind)) return;
      for (const [k, o] of e.occurrences.entries()) {
        // Note: a site whose conditions were not read (not the first of its text in its file) is taken as in the function's own body.
        const conditions = conditionsAt(j, k);
        if (conditions !== undefined && conditions.some((c) => c.kind === "closure" || c.kind === "async-block")) continue;
        const node = index.functionAt(o.filePath, o.lineNumber);
        if (node === null || node.test) continue;
        const list = textsByFunction!.get(node.id) ?? textsByFunction!.set(node.id, []).get(node.id)!;
        if (!list.some(([r]) => r === j)) list.push([j, k]);
      }
    });
    return textsByFunction;
  };
  // Note: the functions outside tests that return a `Result` with texts of their own, by name, made once.
  let sourcesByName: Map<string, SymbolNode[]> | null = null;
  const byName = (name: string): { node: SymbolNode; confidence: "name" }[] => {
    if (sourcesByName === null) {
      sourcesByName = new Map();
      for (const id of ownTexts().keys()) {
        const n = index.nodes[id]!;
        if (n.fn !== null && n.fn.returns === "result") (sourcesByName.get(n.fn.name) ?? sourcesByName.set(n.fn.name, []).get(n.fn.name)!).push(n);
      }
      for (const list of sourcesByName.values()) list.sort((a, b) => a.id - b.id);
    }
    const found = sourcesByName.get(name) ?? [];
    return found.length <= MAX_NAMESAKE_SOURCES ? found.map((node) => ({ node, confidence: "name" as const })) : [];
  };
  // The panics that format an error value, and the returned errors each may be.
  const forwardsOf = new Map<number, Forwarded>();
  const panickedWith = new Map<number, PanickedWith[]>();
  envelopes.forEach((e, i) => {
    const target = targets[i];
    if (target === null || target!.fn === null || target!.test || e.occurrences[0]!.kind !== "panic") return;
    const value = forwardedValue(e, factsOf(i));
    if (value === null) return;
    const fn = factsOf(i).function;
    const param = fn?.params.find((p) => /\bFn(?:Once|Mut)?\s*\(/.test(p.type) && new RegExp(`(?<![.\\w])${p.pattern}\\s*\\(`).test(value.call));
    let functions: Forwarded["functions"];
    /** Each error's record and the site of it that the function returns. */
    let errors: [record: number, site: number][];
    if (param !== undefined) {
      // The errors the closures passed to this function return: a returned error whose outermost closure is an argument of a call of the function's name, from a function whose calls of that name the index links to this one.
      functions = [{ symbol: target!.symbol, path: target!.path, line: target!.line, confidence: "self" }];
      const name = target!.fn!.name;
      errors = envelopes.flatMap((r, j) => {
        const from = targets[j];
        if (from === null || !RETURNED_TEXTS.has(r.occurrences[0]!.kind)) return [];
        const closure = factsOf(j).conditions.find((c) => c.kind === "closure");
        if (closure === undefined || /(?:^|::|\.)\s*(\w+)$/.exec(closure.callee ?? "")?.[1] !== name) return [];
        return index.calleesNamed(from!, name).some((c) => c.node.id === target!.id) ? [[j, 0] as [number, number]] : [];
      });
    } else {
      // Note: where the index links no call of the name (a method on a value whose type the syntax does not show, of a name many types have), the functions of the name that return a `Result` with texts of their own, when they are few: a match by name.
      const sources = (name: string) => {
        const linkedCallees = index.calleesNamed(target!, name);
        return (linkedCallees.length > 0 ? linkedCallees : byName(name)).filter((c) => ownTexts().has(c.node.id));
      };
      const callees = valueCalls(value.call).map(sources).find((found) => found.length > 0) ?? [];
      if (callees.length === 0) return;
      functions = callees.map((c) => ({ symbol: c.node.symbol, path: c.node.path, line: c.node.line, confidence: c.confidence }));
      errors = callees.flatMap((c) => ownTexts().get(c.node.id) ?? []);
    }
    if (errors.length === 0) return;
    const siteOf = ([j, k]: [number, number]) => envelopes[j]!.occurrences[k]!;
    const listed = errors.filter(([j], n) => errors.findIndex(([other]) => other === j) === n).sort((a, b) => (siteOf(a).filePath < siteOf(b).filePath ? -1 : siteOf(a).filePath > siteOf(b).filePath ? 1 : siteOf(a).lineNumber - siteOf(b).lineNumber)).slice(0, MAX_FORWARDED);
    forwardsOf.set(i, { binding: value.binding, call: param !== undefined ? param.pattern : value.call, through: param !== undefined ? "parameter" : "call", functions, errors: listed.map((x) => ({ id: envelopes[x[0]]!.record.id, message: envelopes[x[0]]!.record.errorMessage, path: siteOf(x).filePath, line: siteOf(x).lineNumber })) });
    for (const [j] of listed) {
      const list = panickedWith.get(j) ?? panickedWith.set(j, []).get(j)!;
      if (list.length < MAX_PANICKED_WITH) list.push({ id: e.record.id, symbol: target!.symbol, path: e.record.filePath, line: e.record.lineNumber, every: param !== undefined });
    }
  });
  /** `RecordReach.fallible`: the fallible forms of the public methods that reach the site (the site's own first), each once. */
  const fallibleFacts = (entries: readonly { readonly node: SymbolNode }[], target: SymbolNode): { fallible?: [string, string][] } => {
    const out: [string, string][] = [];
    const reaching = new Set([target.id, ...entries.map((x) => x.node.id)]);
    for (const n of [target, ...entries.map((x) => x.node)]) {
      if (!n.public || out.some(([of]) => of === n.symbol)) continue;
      const other = index.fallibleOf(n);
      // Note: a `try_` form that reaches the site itself (`RwLock::try_read` into the same `unreachable!()`) is no way around it.
      if (other !== null && !reaching.has(other.id)) out.push([n.symbol, other.symbol]);
    }
    return out.length === 0 ? {} : { fallible: out.slice(0, 3) };
  };
  return envelopes.map((e, i) => {
    const target = targets[i]!;
    const returns = receiverReturns(factsOf(i), target);
    const lastOf = factsOf(i).conditions.at(-1);
    const called = lastOf?.kind === "expect" && lastOf.receiver !== undefined ? lastCall(lastOf.receiver) : undefined;
    // Note: a name no function of the workspace has is std's method or a dependency's.
    const outside = called !== undefined && !definesName(called);
    const makers = madeIn(e);
    const hiddenCalls = privateCalls(factsOf(i));
    const hiddenFields = privateFields(factsOf(i), target);
    const forwards = forwardsOf.get(i);
    const panics = panickedWith.get(i);
    const kind = { ...(returns === null ? {} : { receiverReturns: returns.kind, ...(returns.method === undefined ? {} : { receiverMethod: returns.method }), ...(returns.field === undefined ? {} : { receiverField: returns.field }) }), ...(outside ? { receiverOutsideRepo: true as const } : {}), ...(makers.length === 0 ? {} : { madeIn: makers }), ...(hiddenCalls.length === 0 ? {} : { privateCalls: hiddenCalls }), ...(hiddenFields.length === 0 ? {} : { privateFields: hiddenFields }), ...(forwards === undefined ? {} : { forwards }), ...(panics === undefined ? {} : { panickedWith: panics }) };
    // Note: an error variant's doc comment says what the error means, in the crate's words (tokio's `TryRecvError::Lagged`).
    const variant = DISPLAY_TEXTS.has(e.occurrences[0]!.kind) && e.record.errorClass?.includes("::") === true ? index.variantDoc(e.record.filePath, e.record.errorClass) : null;
    const variantDocs: DocQuote[] = variant === null || variant.summary === "" ? [] : [{ symbol: e.record.errorClass!, of: "variant", summary: variant.summary, panics: null, ...(variant.details === undefined ? {} : { details: variant.details }) }];
    if (target === null) return { entryPoints: [], docs: variantDocs, callers: [], reproductions: reproductionsOf(input, linked[i]!, []), example: null, ...kind };
    const entries = entriesOf(target);
    const documented: SymbolNode[] = [target, ...entries.map((x) => x.node).filter((n) => n.id !== target.id)];
    const docs = documented.flatMap((n): DocQuote[] => (n.doc === null ? [] : [{ symbol: n.symbol, of: n === target ? "function" : "entry-point", summary: n.doc.summary, panics: n.doc.panics, ...(n.doc.errors === undefined ? {} : { errors: n.doc.errors }), ...(n.doc.details === undefined ? {} : { details: n.doc.details }) }]));
    // Note: the type of the site's method says what values of it are for: the contract a check of `self` keeps.
    const owner = index.ownerDoc(target);
    if (owner !== null && owner.doc.summary !== "") docs.push({ symbol: owner.name, of: "type", summary: owner.doc.summary, panics: null, ...(owner.doc.details === undefined ? {} : { details: owner.doc.details }) });
    docs.push(...variantDocs);
    const docTests = documented.filter((n) => n.doc?.example !== undefined);
    const reproductions = reproductionsOf(input, linked[i]!, docTests);
    // Note: a test's body is a user's "before" only where it calls what users can call (a public function of the path) and names nothing private to the crate (`crate::`, `super::`, `self::` paths of a unit test).
    const names = new Set(documented.filter((n) => n.public).map((n) => n.fn?.name ?? ""));
    const returned = RETURNED_TEXTS.has(e.occurrences[0]!.kind);
    const best = linked[i]!.filter((l) => l.test.fn.body !== undefined && !/\b(?:crate|super|self)\s*::/.test(l.test.fn.body) && [...names].some((name) => name !== "" && new RegExp(`\\b${name}\\s*(?:::\\s*<[^>]*>\\s*)?\\(`).test(l.test.fn.body!))).sort(byLink)[0];
    return {
      entryPoints: entries.map((x) => {
        const first = checksFirst(x.chain, target.id, e.record.errorMessage);
        const gives = x.node.fn?.returns;
        // Note: for a returned error, how each function of the path uses the next one's `Result`.
        const uses = returned ? x.chain.slice(0, -1).map((id, k) => index.resultUse(index.nodes[id]!, index.nodes[x.chain[k + 1]!]!)) : [];
        return { symbol: x.symbol, path: x.path, line: x.line, via: [...x.via], confidence: x.confidence, ...(x.through.length === 0 ? {} : { through: [...x.through] }), ...(first.length === 0 ? {} : { checksFirst: first }), ...(x.carries.length === 0 ? {} : { carries: x.carries.map(([a, b]) => [a, b] as [string, string]) }), ...(gives === "self" || gives === "none" ? { noResult: true as const } : {}), ...(uses.some((u) => u !== null) ? { errorPath: uses } : {}), ...procMacroOf(x.node.fn?.procMacro) };
      }),
      docs,
      ...fallibleFacts(entries, target),
      callers: [...(callerCache.get(target.id) ?? callerCache.set(target.id, index.resolvedCallers(target)).get(target.id)!)],
      reproductions,
      example: best === undefined ? null : { name: best.test.name, path: best.test.path, line: best.test.line, body: best.test.fn.body! },
      ...kind,
    };
  });
}

/**
 * The error value a panic's text formats and the code that gives it: the last condition on the
 * way that binds a name the panic formats (`Err(msg)` of an `if let`, `let … else`, `while let`
 * or `match` arm; `|e|` of an error handler's closure, `unwrap_or_else(|e| panic!("{e}"))`), with
 * its value (a plain name read through the `let` that binds it in the record's excerpt); null when
 * none.
 */
function forwardedValue(e: Envelope, facts: SiteFacts): { binding: string; call: string } | null {
  const r = e.record;
  const lines = r.sourceCode.split("\n");
  const at = r.lineNumber - r.sourceCodeStart;
  if (at < 0 || at >= lines.length) return null;
  const names = formattedNames(lines.slice(at).join("\n").replace(/^[^]*?(?=\b[a-z_]\w*\s*!\s*[([{])/, ""));
  if (names.length === 0) return null;
  for (const c of [...facts.conditions].reverse()) {
    let binding: string | null = null;
    let call: string | undefined;
    if ((c.kind === "if-let" || c.kind === "let-else" || c.kind === "while-let") && c.pattern !== undefined) [binding, call] = [errBinding(c.pattern), c.value];
    else if (c.kind === "match" && c.pattern !== undefined) [binding, call] = [errBinding(c.pattern), c.scrutinee];
    else if (c.kind === "closure" && ERROR_HANDLERS.test(c.callee ?? "")) [binding, call] = [closureParam(c.params ?? ""), c.callee?.replace(ERROR_HANDLERS, "")];
    else continue;
    if (binding === null || !names.includes(binding) || call === undefined) continue;
    const plain = /^[a-z_]\w*$/.test(call.trim()) ? lastLetValue(lines.slice(0, at).join("\n"), call.trim()) : undefined;
    return { binding, call: (plain ?? call).trim() };
  }
  return null;
}

/** The one candidate, or of several the one matched whole when no other is; null when none or several stand alike. */
function onlyOne<T extends { readonly how: string }>(candidates: readonly T[]): T | null {
  if (candidates.length <= 1) return candidates[0] ?? null;
  const whole = candidates.filter((c) => c.how === "whole");
  return whole.length === 1 ? whole[0]! : null;
}

/** The function (or `macro_rules!` macro) a site at `path:line` sits in, by the index; null when none. */
function targetOf(index: SymbolIndex, path: string, line: number, facts: SiteFacts): SymbolNode | null {
  const macro = facts.macro === "macro_rules" ? facts.items.findLast((item) => item.kind === "macro-rules") : undefined;
  if (macro !== undefined) return index.macroIn(path, macro.name);
  return index.functionAt(path, line);
}

/** The words of a message (its holes left out), lowercased. */
function wordsOf(message: string): Set<string> {
  return new Set(message.replace(/\{[^{}]*\}/g, " ").toLowerCase().match(/[a-z][a-z0-9_]{2,}/g) ?? []);
}

function byLink(a: { test: PanicTest; how: Reproduction["how"]; via?: string[] }, b: { test: PanicTest; how: Reproduction["how"]; via?: string[] }): number {
  return HOW_RANK[a.how] - HOW_RANK[b.how] || (a.via?.length ?? 0) - (b.via?.length ?? 0) || (a.test.path < b.test.path ? -1 : a.test.path > b.test.path ? 1 : a.test.line - b.test.line);
}

function reproductionsOf(input: SymbolsInput, links: readonly { test: PanicTest; how: Reproduction["how"]; via?: string[] }[], docTests: readonly SymbolNode[]): Reproduction[] {
  const seen = new Set<string>();
  const out: Reproduction[] = [];
  for (const l of [...links].sort(byLink)) {
    const key = `${l.test.path}:${l.test.line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path: l.test.path, line: l.test.line, name: l.test.name, permalink: permalink(input.repo, input.sha, l.test.path, l.test.line), expected: l.test.expected === "" ? null : l.test.expected, how: l.how, ...(l.via === undefined ? {} : { via: l.via }) });
  }
  for (const n of docTests) out.push({ path: n.path, line: n.line, name: n.symbol, permalink: permalink(input.repo, input.sha, n.path, n.line), expected: null, how: "doc-test" });
  return out.slice(0, MAX_REPRODUCTIONS);
}

/** `EntryPoint.procMacro` of a function's `FunctionSymbol.procMacro`, as a spread (nothing for a function that is no proc macro). */
function procMacroOf(p: ProcMacro | undefined): { procMacro?: NonNullable<EntryPointFact["procMacro"]> } {
  if (p === undefined) return {};
  const [kind, derives, ...helpers] = p;
  return { procMacro: { kind, ...(derives === undefined ? {} : { derives }), ...(helpers.length === 0 ? {} : { helpers }) } };
}
