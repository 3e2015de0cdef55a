/**
 * Small facts about Rust snippets taken verbatim from the source (conditions, patterns), read
 * with the project's lexer: which names an expression reads, which a pattern binds, whether an
 * expression needs parentheses, what a match pattern's head path is. Pure.
 */
import { KEYWORDS, LITERAL_KEYWORDS, optionOrResult, PATH_KEYWORDS, typeHead } from "../rust/index.js";
import { tokenize, type Token } from "../tokens.js";

/** Every token of `src` (comments skipped); stops at the first character the lexer cannot read. */
export function lex(src: string): Token[] {
  return tokenize(src, "stop");
}

/** Words that name no value and that no pattern binds: the keywords (`self` aside where said) and `_`. */
function notAName(word: string): boolean {
  return KEYWORDS.has(word) || word === "_";
}

/**
 * The lowercase names an expression reads as values: not a field or method (`.x`), not a path
 * segment (`a::x`, `x::a`), not a macro (`x!`) or function called by name (`x(`), not a keyword,
 * not a type of a turbofish or a cast. `self` counts as a name.
 */
export function readNames(expr: string): string[] {
  const toks = lex(expr);
  const out = new Set<string>();
  // Note: the types of a turbofish (`x.into_scalar::<bool>()`) and of a cast (`n as usize`) are no values.
  let generic = 0;
  toks.forEach((t, i) => {
    if (t.text === "<" && toks[i - 1]?.text === "::") generic = 1;
    else if (generic > 0 && (t.text === "<" || t.text === ">" || t.text === ">>")) generic += t.text === "<" ? 1 : -t.text.length;
    if (generic > 0) return;
    if (generic < 0) generic = 0;
    if (t.kind !== "ident" || (notAName(t.text) && t.text !== "self")) return;
    if (!/^[a-z_]/.test(t.text) || t.text === "_") return;
    const prev = toks[i - 1]?.text;
    if (prev === "as") return;
    const next = toks[i + 1]?.text;
    if (prev === "." || prev === "::" || next === "::" || next === "!" || next === "(") return;
    // Note: `name: value` inside a struct literal names a field, not a variable.
    if (next === ":" && toks[i - 1] !== undefined && (prev === "{" || prev === ",")) return;
    out.add(t.text);
  });
  return [...out];
}

/** True when `name` is written as a constant's, a static's or a const generic's name (SCREAMING_SNAKE_CASE, as rustc's naming lints expect). */
export function isConstantName(name: string): boolean {
  return /^[A-Z][A-Z0-9_]*$/.test(name);
}

/** The constants, statics and const generics an expression reads by a bare name (`MAX_LEN`, `D`; not `u8::MAX`, `Self::N` or a call): SCREAMING_CASE identifiers. */
export function constantNames(expr: string): string[] {
  const toks = lex(expr);
  const out = new Set<string>();
  toks.forEach((t, i) => {
    if (t.kind !== "ident" || !isConstantName(t.text)) return;
    const prev = toks[i - 1]?.text;
    const next = toks[i + 1]?.text;
    if (prev === "." || prev === "::" || next === "::" || next === "!" || next === "(" || next === "{") return;
    out.add(t.text);
  });
  return [...out];
}

/** The capitalised names an expression or type mentions as the first segment of a path (`Self`, `B`, `T`). */
export function typeNames(src: string): string[] {
  const toks = lex(src);
  const out = new Set<string>();
  toks.forEach((t, i) => {
    if ((t.kind === "ident" && /^[A-Z]/.test(t.text) && toks[i - 1]?.text !== "::" && toks[i - 1]?.text !== ".") || t.kind === "lifetime") out.add(t.text);
  });
  return [...out];
}

/**
 * The names a pattern binds: lowercase identifiers that are not path segments, constructors
 * (`x(`, `x {`), or field names (`field: pat`), nor `ref`/`mut`/`_`.
 */
export function boundNames(pattern: string): string[] {
  const toks = lex(pattern);
  const out = new Set<string>();
  toks.forEach((t, i) => {
    if (t.kind !== "ident" || notAName(t.text) || !/^[a-z_]/.test(t.text)) return;
    const prev = toks[i - 1]?.text;
    const next = toks[i + 1]?.text;
    if (prev === "::" || prev === "." || next === "::" || next === "(" || next === "{" || next === "!" || next === ":") return;
    out.add(t.text);
  });
  return [...out];
}

/** The type parameters and lifetimes declared by generics as written (`<'a, B: Backend, const N: usize>`). */
export function genericNames(generics: string | null): string[] {
  if (generics === null) return [];
  const toks = lex(generics);
  const out: string[] = [];
  let depth = 0;
  toks.forEach((t, i) => {
    if (t.text === "<") depth++;
    else if (t.text === ">") depth--;
    const prev = toks[i - 1]?.text;
    if (depth === 1 && (prev === "<" || prev === "," || prev === "const") && (t.kind === "ident" || t.kind === "lifetime") && t.text !== "const") out.push(t.text);
  });
  return out;
}

const TIGHT = new Set([".", "::", "&", "*", "!", "?"]);

/**
 * True when `expr` can stand as an operand without parentheses: a path, call, field, index,
 * literal or macro call with at most leading `&`, `*`, `!`; nothing binary at its top level.
 */
export function isAtom(expr: string): boolean {
  const toks = lex(expr);
  if (toks.length === 0) return false;
  let depth = 0;
  let leading = true;
  for (const t of toks) {
    if (t.kind === "open") depth++;
    else if (t.kind === "close") depth--;
    else if (depth === 0) {
      if (t.kind === "punct" && !TIGHT.has(t.text)) return false;
      if (t.kind === "punct" && (t.text === "&" || t.text === "*" || t.text === "!") && !leading) return false;
      if (t.kind === "ident" && notAName(t.text) && !PATH_KEYWORDS.has(t.text) && !LITERAL_KEYWORDS.has(t.text)) return false;
    }
    leading = t.kind === "punct" && depth === 0 && (t.text === "&" || t.text === "*" || t.text === "!");
  }
  return true;
}

/** `expr` as an operand: parenthesised unless it is an atom. */
export function operand(expr: string): string {
  return isAtom(expr) ? expr.trim() : `(${expr.trim()})`;
}

/**
 * The head paths of a match pattern (one per `|` alternative): `A::B` for `A::B(x)`, `A::B { .. }`
 * or `A::B`, a literal's text; null when an alternative matches more than its head says (a
 * binding, `_`, a range, a slice, a tuple, a reference): then arms may overlap.
 */
export function headPaths(pattern: string): string[] | null {
  const toks = lex(pattern);
  const heads: string[] = [];
  let start = 0;
  let depth = 0;
  const alternatives: Token[][] = [];
  toks.forEach((t, i) => {
    if (t.kind === "open") depth++;
    else if (t.kind === "close") depth--;
    else if (depth === 0 && t.text === "|") {
      alternatives.push(toks.slice(start, i));
      start = i + 1;
    }
  });
  alternatives.push(toks.slice(start));
  for (const alt of alternatives) {
    const first = alt[0];
    if (first === undefined) return null;
    if (alt.length === 1 && (first.kind === "number" || first.kind === "string" || first.kind === "char")) {
      heads.push(first.text);
      continue;
    }
    let i = 0;
    const path: string[] = [];
    while (alt[i]?.kind === "ident" || alt[i]?.text === "::") path.push(alt[i++]!.text);
    const last = path.at(-1);
    if (path.length === 0 || last === "::" || last === undefined || !/^[A-Z]/.test(last) || (alt[i] !== undefined && alt[i]!.kind !== "open")) return null;
    heads.push(path.join(""));
  }
  return heads;
}

/** A Rust string literal holding `value`. */
export function rustString(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t")}"`;
}

/**
 * Methods of std that consume, mutate, block, do I/O or panic: a guard that calls one would change
 * or lose what it checks (`rx.recv()` takes a message, `.pop()` an element) or panic itself.
 */
const EFFECT_METHODS: ReadonlySet<string> = new Set([
  "recv", "try_recv", "recv_timeout", "send", "try_send", "unwrap", "expect", "unwrap_err", "expect_err", "unwrap_unchecked",
  "pop", "pop_front", "pop_back", "push", "push_back", "push_front", "push_str", "insert", "remove", "swap_remove", "clear", "drain",
  "take", "replace", "set", "get_or_insert", "get_or_insert_with", "entry", "extend", "append", "truncate", "retain", "split_off",
  "sort", "sort_by", "sort_by_key", "sort_unstable", "dedup", "reverse", "fill", "swap", "next", "next_back", "nth", "by_ref",
  "lock", "try_lock", "write", "read", "try_read", "borrow_mut", "get_mut", "as_mut", "iter_mut", "values_mut", "last_mut", "first_mut",
  "store", "fetch_add", "fetch_sub", "fetch_or", "fetch_and", "compare_exchange", "join", "wait", "notify_one", "notify_all", "spawn",
  "read_to_string", "read_to_end", "read_line", "read_exact", "write_all", "flush", "open", "create", "seek", "poll", "block_on", "sleep",
]);

/** Iterator steps: effects only on an iterator that outlives the expression. */
const ITERATOR_STEPS: ReadonlySet<string> = new Set(["next", "next_back", "nth"]);

/** Methods of `EFFECT_METHODS` whose only effect is to panic: they answer from the value alone, the world has no say. */
const PANICKING_ONLY: ReadonlySet<string> = new Set(["unwrap", "expect", "unwrap_err", "expect_err", "unwrap_unchecked"]);

/**
 * True when evaluating `src` may change state or panic: it calls a method of `EFFECT_METHODS`,
 * invokes a macro other than `matches!`, assigns (`=`, `+=`, …), borrows mutably or returns
 * early with `?`. A guard is written only from sources for which this is false.
 * `panics`: false to leave out the methods whose only effect is to panic (`unwrap()`) and `?`, for
 * asking whether the world answers the value rather than whether evaluating it is safe.
 */
export function mayHaveEffects(src: string, panics = true): boolean {
  // Note: `#[cfg(feature = "x")]` on a repeated match arm is no assignment.
  const toks = lex(src.replace(/#\s*\[[^\]]*\]/g, ""));
  return toks.some((t, i) => {
    const next = toks[i + 1]?.text;
    // Note: stepping an iterator made in the expression itself (`s.split(' ').next()`) changes nothing outside it.
    if (t.kind === "ident" && next === "(" && toks[i - 1]?.text === "." && EFFECT_METHODS.has(t.text) && !(ITERATOR_STEPS.has(t.text) && toks[i - 2]?.text === ")") && (panics || !PANICKING_ONLY.has(t.text))) return true;
    if (t.kind === "ident" && next === "!" && toks[i + 2]?.kind === "open" && t.text !== "matches") return true;
    if (t.kind === "ident" && t.text === "mut" && toks[i - 1]?.text === "&") return true;
    // Note: `?` leaves early with the value's own error: it changes nothing, and the world has no say in it.
    return t.kind === "punct" && ((panics && t.text === "?") || /^(?:[-+*\/%^&|]|<<|>>)?=$/.test(t.text));
  });
}

/**
 * True when `src` passes `self` (or a part of it) to a function that is not one of its own
 * methods (`context::try_set_current(&self.inner)`): what such a call answers depends on the
 * function, not only on the value the method is called on.
 */
export function passesSelf(src: string): boolean {
  const toks = lex(src);
  for (let i = 0; i + 1 < toks.length; i++) {
    if (toks[i]!.kind !== "ident" || toks[i + 1]!.text !== "(" || toks[i - 1]?.text === ".") continue;
    let depth = 0;
    for (let j = i + 1; j < toks.length; j++) {
      const t = toks[j]!.text;
      if (t === "(") depth++;
      else if (t === ")" && --depth === 0) break;
      else if (t === "self" && toks[j - 1]?.text !== ".") return true;
    }
  }
  return false;
}

/** The one name a parameter's pattern binds (`x`, `mut x`, `_x`), or null for another pattern (`_`, a tuple, a struct). */
export function singleName(pattern: string): string | null {
  return /^(?:mut\s+)?[a-z_]\w*$/.test(pattern) && pattern !== "_" ? pattern.replace(/^mut\s+/, "") : null;
}

/** True for a type a value of which is copied, not moved, by a call: a reference, or one of the primitive numbers, `bool` or `char`. */
export function isCopyType(type: string): boolean {
  return /^(?:&.*|u8|u16|u32|u64|u128|usize|i8|i16|i32|i64|i128|isize|f32|f64|bool|char)$/s.test(type.trim());
}

/**
 * What of the build and the process's environment a condition reads: the environment variables
 * (`std::env::var("X")`, `env::var_os("X")`, `option_env!("X")`) and the features of `cfg!(feature
 * = "x")`, each with whether the path needs it on (`holds`: the condition's value on the way to the
 * site, true when not said).
 */
export function settingsRead(source: string, holds = true): { envs: string[]; features: [name: string, on: boolean][] } {
  const envs = [...source.matchAll(/\b(?:env\s*::\s*var(?:_os)?\s*\(|option_env\s*!\s*\(|env\s*!\s*\()\s*"([^"\\]+)"/g)].map((m) => m[1]!);
  // Note: only a condition that is the `cfg!` alone (or its negation) says which way the path needs the feature.
  const alone = /^\s*(!\s*)?cfg\s*!\s*\(\s*feature\s*=\s*"([^"\\]+)"\s*\)\s*$/.exec(source);
  const features: [string, boolean][] = alone === null ? [] : [[alone[2]!, alone[1] === undefined ? holds : !holds]];
  return { envs: [...new Set(envs)], features };
}

/** Methods of std whose value is an `Option`. */
const OPTION_METHODS: ReadonlySet<string> = new Set([
  "get", "get_mut", "first", "last", "next", "next_back", "nth", "peek", "pop", "pop_front", "pop_back", "find", "find_map", "position",
  "rposition", "max", "min", "max_by", "min_by", "max_by_key", "min_by_key", "checked_add", "checked_sub", "checked_mul", "checked_div",
  "checked_rem", "checked_pow", "checked_neg", "checked_shl", "checked_shr", "to_str", "parent", "file_name", "file_stem",
  "extension", "strip_prefix", "strip_suffix", "split_once", "rsplit_once", "ok", "err", "downcast_ref",
  "downcast_mut", "last_key_value", "first_key_value", "upgrade", "get_key_value", "reduce", "from_digit", "to_digit", "take",
  "split_first", "split_last", "split_first_mut", "split_last_mut", "first_mut", "last_mut", "nth_back", "rfind", "from_u32",
  "checked_next_power_of_two", "checked_abs", "checked_ilog2", "checked_ilog10",
]);

/** Methods and functions of std whose value is a `Result`. */
const RESULT_METHODS: ReadonlySet<string> = new Set([
  "parse", "try_into", "try_from", "from_str", "from_utf8", "lock", "try_lock", "read", "write", "recv", "try_recv", "recv_timeout",
  "send", "try_send", "join", "open", "create", "read_to_string", "read_to_end", "read_dir", "metadata", "canonicalize", "write_all",
  "flush", "spawn", "output", "status", "wait", "bind", "connect", "accept", "var", "current_dir", "ok_or",
  "ok_or_else", "map_err", "try_borrow", "try_borrow_mut", "binary_search", "binary_search_by", "binary_search_by_key", "duration_since", "elapsed", "from_str_radix", "downcast",
  "create_dir", "create_dir_all", "remove_file", "remove_dir", "remove_dir_all", "rename", "read_exact", "write_fmt", "sync_all", "sync_data", "set_len",
  "try_clone", "local_addr", "peer_addr", "set_nonblocking", "recv_from", "send_to", "to_socket_addrs", "set_permissions",
]);

/** Combinators of std's `Option` and `Result` whose value is of the kind of the value they are called on. */
const KEEP_KIND: ReadonlySet<string> = new Set(["and_then", "or_else", "or", "and", "map", "filter", "inspect", "xor", "zip", "flatten", "as_ref", "as_mut", "as_deref", "as_deref_mut", "copied", "cloned"]);

/**
 * Whether the receiver of an `.expect`/`.unwrap` is an `Option` or a `Result`, as far as its last
 * call (a method of std) shows; null when the syntax does not tell (a field, a local, a method of
 * the repository's own).
 * Note: a method of the same name on a type of the repository's own may return something else:
 * the answer holds for std's.
 */
export function receiverKind(receiver: string): "option" | "result" | null {
  // Note: `write!` and `writeln!` give what the writer's `write_fmt` gives: std's is a Result.
  if (/^\s*(?:write|writeln)\s*!\s*\(/.test(receiver)) return "result";
  const name = lastCall(receiver);
  if (name === undefined) return null;
  if (OPTION_METHODS.has(name)) return "option";
  if (RESULT_METHODS.has(name)) return "result";
  // Note: std's combinators of `Option` and `Result` give the kind of the value they are called on (`Rc::get_mut(…).and_then(|c| Arc::get_mut(…))`: an Option).
  if (KEEP_KIND.has(name)) {
    const before = /^([\s\S]*?)\s*\.\s*[a-z_]\w*\s*(?:::\s*<[^()]*>\s*)?\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\s*$/.exec(receiver.trim())?.[1];
    return before === undefined || before === "" ? null : receiverKind(before);
  }
  // Note: std's `try_fold` and `try_for_each` give what their closure gives (`|acc, &x| acc.checked_mul(x)`: an Option).
  if (name === "try_fold" || name === "try_for_each") {
    const body = /\|[^|]*\|\s*([\s\S]*?)\s*\)\s*$/.exec(receiver.trim())?.[1];
    return body === undefined ? null : receiverKind(body);
  }
  return null;
}

/** Methods of std's `Option` and `Result` whose value is of the same kind as their receiver (`x.as_ref()` is an Option when `x` is one; `x.take()` when `x` is an Option). */
const SAME_KIND: ReadonlySet<string> = new Set(["as_ref", "as_mut", "as_deref", "as_deref_mut", "clone", "copied", "cloned", "take"]);

/** `let name = …;` or `let mut name: T = …;`: the type (group 1, when written) and the value (group 2, `;` left out). */
function letOf(name: string): RegExp {
  return new RegExp(`^let\\s+(?:mut\\s+)?${name}\\s*(?::\\s*([^=]+?))?\\s*=\\s*([\\s\\S]*?);?\\s*$`);
}

/** The value the last of `lets` binds to the plain name `name` (`self.value.take()` of `let value = self.value.take();`); undefined when none binds it. */
export function letValue(name: string, lets: readonly string[]): string | undefined {
  if (!/^[a-z_]\w*$/.test(name)) return undefined;
  const re = letOf(name);
  return lets.map((l) => re.exec(l.trim())?.[2]).findLast((v) => v !== undefined);
}

/**
 * Whether `receiver` is an `Option` or a `Result` by what its function declares: a parameter's
 * type (`x: Option<T>`), a `let`'s type or value (`let x: Result<…> =`, `let x = Some(…)`), or a
 * test of it in the function's conditions (`x.is_some()`, `x.is_err()`); read through the methods
 * that keep the kind (`x.as_ref()`); null when none of them tells.
 */
export function declaredKind(receiver: string, params: readonly { readonly pattern: string; readonly type: string }[], lets: readonly string[], tested: readonly string[]): "option" | "result" | null {
  let base = receiver.trim();
  for (;;) {
    const m = /^(.*?)\s*\.\s*([a-z_]\w*)\s*\(\s*\)$/s.exec(base);
    if (m === null || !SAME_KIND.has(m[2]!)) break;
    base = m[1]!;
  }
  const kindOf = (type: string) => {
    const head = typeHead(type);
    return head === null ? null : optionOrResult(head);
  };
  if (/^[a-z_]\w*$/.test(base)) {
    const param = params.find((p) => p.pattern.replace(/^mut\s+/, "") === base);
    if (param !== undefined) return kindOf(param.type);
    for (const l of lets) {
      const m = letOf(base).exec(l.trim());
      if (m === null) continue;
      if (m[1] !== undefined) return kindOf(m[1]);
      if (/^(?:Some\s*\(|None\b)/.test(m[2]!)) return "option";
      if (/^(?:Ok|Err)\s*\(/.test(m[2]!)) return "result";
    }
  }
  const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const test = new RegExp(`(?:^|[^\\w.])${escaped}\\s*\\.\\s*is_(some|none|ok|err)\\s*\\(`);
  for (const t of tested) {
    const m = test.exec(t);
    if (m !== null) return m[1] === "some" || m[1] === "none" ? "option" : "result";
  }
  return null;
}

/**
 * When std's methods give None or Err, by method: what a user meets when an `.expect` on them panics.
 * Note: `get` is not among them: std's `get`s are None for different reasons (an index or key not
 * there, a `OnceLock` not set yet), and the syntax does not show whose it is.
 */
const STD_FAILURES: ReadonlyMap<string, string> = new Map([
  ["first", "the slice is empty"],
  ["last", "the slice is empty"],
  ["next", "the iterator has no more items"],
  ["pop", "the collection is empty"],
  ["find", "no item matches"],
  ["position", "no item matches"],
  ["try_fold", "its closure gives one for an item (the fold stops there)"],
  ["max", "the iterator is empty"],
  ["min", "the iterator is empty"],
  ["checked_add", "the addition overflows"],
  ["checked_sub", "the subtraction overflows"],
  ["checked_mul", "the multiplication overflows"],
  ["checked_div", "the divisor is zero (or the division overflows)"],
  ["parent", "the path has no parent (a root or an empty path)"],
  ["file_name", "the path ends in `..` or is empty"],
  ["to_str", "the text is not valid Unicode"],
  ["strip_prefix", "the text does not start with the prefix"],
  ["strip_suffix", "the text does not end with the suffix"],
  ["parse", "the text does not parse as the target type"],
  ["downcast", "the value is not of the requested type"],
  ["try_into", "the value does not fit the target type"],
  ["try_from", "the value does not fit the target type"],
  ["from_utf8", "the bytes are not valid UTF-8"],
  ["lock", "the mutex is poisoned: another thread panicked while holding it"],
  ["recv", "every sender is dropped (the channel is disconnected)"],
  ["send", "the receiver is dropped"],
  ["join", "the joined thread panicked"],
  ["open", "the file cannot be opened (it does not exist, or permissions forbid it)"],
  ["read_to_string", "reading fails (an I/O error, or text that is not UTF-8)"],
  ["var", "the environment variable is not set, or not Unicode"],
]);

/** Why std's method at the end of `receiver` gives None or Err, in words; null when it is none of those `STD_FAILURES` knows. */
export function stdFailure(receiver: string): string | null {
  const name = lastCall(receiver);
  return name === undefined ? null : (STD_FAILURES.get(name) ?? null);
}

/** The name of the method or function whose call ends `expr` (`parse` of `s.parse::<u8>()`, `var` of `env::var("X")`). */
export function lastCall(expr: string): string | undefined {
  // Note: `.await` gives what the call's future outputs: the call is still the one to read.
  const e = expr.trim().replace(/\s*\.\s*await\s*$/, "");
  return /\.\s*([a-z_]\w*)\s*(?:::\s*<[^()]*>\s*)?\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\s*$/.exec(e)?.[1] ?? /(?:^|::)\s*([a-z_]\w*)\s*\([^]*\)\s*$/.exec(e)?.[1];
}

/** The name an `Err(x)` pattern binds (`Err(e)`, `Err(ref e)`, `Error::Err(e)` aside: std's `Err` only); null for any other pattern. */
export function errBinding(pattern: string): string | null {
  const name = /^Err\s*\(\s*(?:ref\s+)?([a-z_]\w*)\s*\)$/.exec(pattern.trim())?.[1];
  return name === undefined || name === "_" ? null : name;
}

/** The one name a closure's parameters bind (`|e|`, `|e: String|`, `move |e|`); null for none, several or a pattern. */
export function closureParam(params: string): string | null {
  const name = /^(?:move\s*)?\|\s*([a-z_]\w*)\s*(?::[^|]*)?\|$/.exec(params.trim())?.[1];
  return name === undefined || name === "_" ? null : name;
}

/**
 * The names a format macro's text reads: its named holes (`{msg}`, `{err:?}`) and the arguments
 * after its format string that are a plain name (`msg`, `&msg`, `msg.to_string()`), from the
 * macro's name (`panic!(…` at the start of `call`) to its closing bracket; empty when `call` does
 * not start with one.
 */
export function formattedNames(call: string): string[] {
  const toks = lex(call);
  const open = toks.findIndex((t) => t.kind === "open");
  if (open < 0 || toks[open - 1]?.text !== "!") return [];
  const args: Token[][] = [[]];
  let depth = 0;
  for (let i = open + 1; i < toks.length; i++) {
    const t = toks[i]!;
    if (t.kind === "open") depth++;
    else if (t.kind === "close" && --depth < 0) break;
    if (depth === 0 && t.text === ",") args.push([]);
    else args.at(-1)!.push(t);
  }
  const out = new Set<string>();
  const format = args[0]!.length === 1 && args[0]![0]!.kind === "string" ? args[0]![0]!.text : null;
  if (format === null) return [];
  for (const m of format.matchAll(/(?<!\{)\{([a-z_]\w*)(?::[^{}]*)?\}/g)) out.add(m[1]!);
  for (const arg of args.slice(1)) {
    const text = arg.map((t) => t.text).join("");
    const name = /^&?([a-z_]\w*)(?:\.to_string\(\))?$/.exec(text)?.[1];
    if (name !== undefined && !KEYWORDS.has(name)) out.add(name);
  }
  return [...out];
}

/**
 * The value of the last `let name = …;` of `src` (the statement read to its `;` at its own depth,
 * so a `match` or a block as the value is read whole); undefined when no `let` binds `name`.
 */
export function lastLetValue(src: string, name: string): string | undefined {
  const toks = lex(src);
  let found: string | undefined;
  for (let i = 0; i < toks.length; i++) {
    if (toks[i]!.text !== "let" || ["if", "while", "&&", "||"].includes(toks[i - 1]?.text ?? "")) continue;
    const at = toks[i + 1]?.text === "mut" ? i + 2 : i + 1;
    if (toks[at]?.text !== name) continue;
    let depth = 0;
    let eq = -1;
    for (let j = at + 1; j < toks.length; j++) {
      const t = toks[j]!;
      if (t.kind === "open") depth++;
      else if (t.kind === "close" && --depth < 0) break;
      else if (depth === 0 && t.text === "=" && eq < 0) eq = j;
      else if (depth === 0 && t.text === ";") {
        if (eq > 0 && eq + 1 < j) found = src.slice(toks[eq + 1]!.start, toks[j - 1]!.end);
        break;
      }
    }
  }
  return found;
}

/**
 * The functions an expression's value comes from, outermost first: the name of its last call
 * (`.await` and `?` after it read past), and where that call's one argument is itself a call
 * (`executor.block_on(open_channels(endpoint))`), that call's too.
 */
export function valueCalls(expr: string): string[] {
  const bare = expr.trim().replace(/(?:\s*\.\s*await\b|\s*\?)+$/, "");
  const name = lastCall(bare);
  if (name === undefined) return [];
  const args = /\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\s*$/.exec(bare)?.[1]?.trim() ?? "";
  const inner = args !== "" && !/,(?![^()]*\))/.test(args) && /\)\s*(?:\.\s*await)?$/.test(args) ? valueCalls(args.replace(/^&\s*(?:mut\s+)?/, "")) : [];
  return [name, ...inner.filter((n) => n !== name)];
}

/** The functions `source` calls by a plain or a `Type::` path (`f(…)`, `Type::f(…)`, `f::<T>(…)`), as keys `f` and `Type::f`, in order; method calls (`.f(…)`) and longer paths are not among them. */
export function pathCalls(source: string): string[] {
  return [...source.matchAll(/(?<![.\w:])((?:[A-Z]\w*\s*::\s*)?[a-z_]\w*)\s*(?:::\s*<[^()]*>\s*)?\(/g)].map((m) => m[1]!.replace(/\s+/g, ""));
}

/**
 * `text` cut at each `separator` outside brackets (`(`, `[`, `{`, and `<` `>` where `angles`:
 * a type's arguments; `->` is no bracket), the parts as written, untrimmed.
 */
export function splitTopLevel(text: string, separator: string, angles: boolean): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "(" || c === "[" || c === "{" || (angles && c === "<")) depth++;
    else if (c === ")" || c === "]" || c === "}" || (angles && c === ">" && text[i - 1] !== "-")) depth--;
    else if (depth === 0 && text.startsWith(separator, i)) {
      out.push(text.slice(start, i));
      start = i + separator.length;
      i += separator.length - 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/**
 * `Some`, `Ok` or `Err` when `pattern` is that variant around a pattern that binds or ignores
 * whatever it holds (`Some(x)`, `Some(&index)`, `Ok((a, mut b))`, `Err(_)`): the pattern then fails
 * only on the other variant. Null for any other pattern (`Some(0)`, `Some(Kind::A)`, `Some(x) | None`).
 */
export function wholeVariant(pattern: string): "Some" | "Ok" | "Err" | null {
  const m = /^\s*(?:(?:std|core)\s*::\s*(?:option|result)\s*::\s*(?:Option|Result)\s*::\s*)?(Some|Ok|Err)\s*\(([\s\S]*)\)\s*$/.exec(pattern);
  if (m === null) return null;
  // Note: names (a lower-case identifier, `_`), `&`, `mut`, `ref`, tuples and `..`: nothing that can fail to match.
  // Note: `true` and `false` are literals, which a value can fail to match (`Some(true)`).
  if (/\b(?:true|false)\b/.test(m[2]!)) return null;
  const inner = m[2]!.replace(/\b(?:ref|mut)\b/g, " ");
  return /^[\s&(),.]*(?:(?:_|[a-z_][a-z0-9_]*)[\s&(),.]*)*$/.test(inner) && !/\.\.\.|\.\.=/.test(inner) && /^[^()]*(?:\([^()]*\)[^()]*)*$/.test(inner) ? (m[1] as "Some" | "Ok" | "Err") : null;
}
