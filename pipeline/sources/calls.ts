/**
 * Calls whose argument is a message: the cheap scan that every file gets at extraction (which
 * calls does it make with a literal or `format!` argument, by name), and the exact reading of
 * such calls in the few files the cross-file sources need (their arguments, where they stand,
 * what encloses them). Pure: text in, plain data out.
 *
 * Note: the scan runs over every file of the tree, so it works from the text's quotes and
 *   comment starts, found with `indexOf` (native string search), in order: a string or a comment
 *   is skipped whole the moment it starts, so a quote, a `//` or a `/*` inside one is never taken
 *   for code. A `format!` argument is found from its format string's quote. Only its answer, a
 *   few names per file, is kept (the extraction cache holds it); the exact reading (`callAt`,
 *   `enclosingCall`) reads one call's parentheses with the lexer, at a name the layout pass has
 *   found in code, once a source wants that name.
 */
import { KEYWORDS, METHOD_RULES } from "../rust/index.js";
import { codeAt, isAsciiWord, isSpace, readDelimited, splitArgs, type Token } from "../tokens.js";

/**
 * The keys of the calls in `text` that take a string literal, `&`-literal or `format!(…)`
 * argument (or one wrapped in `String::from(…)`), distinct and sorted: `name` for a function
 * called by its name alone, `Path::name` (its last two segments) for one called through a path,
 * `.name` for a method. Macro calls (`name!(…)`), definitions (`fn name(`), keywords before a
 * parenthesis (`if (`) and the panic kinds' methods (`.expect(…)`, a panic site) are not calls. A superset is harmless (the exact reading checks each),
 * so the argument's position is found from the text alone.
 */
export function messageCalls(text: string): string[] {
  const keys = new Set<string>();
  const n = text.length;
  /** Spans of the string literals passed so far, in order: a walk back to a call's `(` jumps over them. */
  const strings: number[] = [];
  const lists: ListMemo = { comma: -1, opener: -1 };
  // Note: `i` is where code resumes after the last string or comment passed; the next quote,
  //   `//` and `/*` at or after it are kept and searched again only once passed.
  let quote = -2;
  let slash = -2;
  let block = -2;
  for (let i = 0; i < n; ) {
    if (quote !== -1 && quote < i) quote = text.indexOf('"', i);
    if (quote < 0) break;
    if (slash !== -1 && slash < i) slash = text.indexOf("//", i);
    if (block !== -1 && block < i) block = text.indexOf("/*", i);
    if (slash >= 0 && slash < quote && (block < 0 || slash < block)) {
      const end = text.indexOf("\n", slash);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (block >= 0 && block < quote) {
      i = blockCommentEnd(text, block);
      continue;
    }
    // A char literal `'"'` or `'\"'` holds a quote that starts no string.
    if (codeAt(text, quote + 1) === 39 && (codeAt(text, quote - 1) === 39 || (codeAt(text, quote - 1) === 92 && codeAt(text, quote - 2) === 39))) {
      i = quote + 2;
      continue;
    }
    const start = literalStart(text, quote);
    const end = stringEnd(text, start, quote);
    if (end < 0) break;
    strings.push(start, end);
    i = end;
    // Note: most literals are no call's argument, or a macro's (`panic!("…")`): told here from the
    //   characters before them, before any callee is read.
    let j = start - 1;
    while (j >= 0 && isBlank(text.charCodeAt(j))) j--;
    if (text.charCodeAt(j) === 38 /* & */) while (--j >= 0 && isBlank(text.charCodeAt(j)));
    const c = text.charCodeAt(j);
    if (c === 40 /* ( */) {
      let b = j - 1;
      while (b >= 0 && isBlank(text.charCodeAt(b))) b--;
      const d = text.charCodeAt(b);
      if (d === 33 /* ! */ ? !text.startsWith("format", b - 6) && !text.startsWith("format", b - 7) : (!isAsciiWord(d) && d !== 62) || panicMethodEndsAt(text, b)) continue;
    } else if (c !== 44 /* , */) continue;
    const key = calleeOfArgument(text, start, strings, lists);
    if (key !== null) keys.add(key);
  }
  return [...keys].sort();
}

/**
 * Offset just past the string literal starting at `start` whose opening quote is at `quote`, or
 * -1 when it never ends: `lexString`'s answer, found with `indexOf` (a quote ends a non-raw
 * string unless an odd number of backslashes stands before it).
 */
function stringEnd(text: string, start: number, quote: number): number {
  const r = text.charCodeAt(start) === 114 /* r */ ? start : text.charCodeAt(start + 1) === 114 ? start + 1 : -1;
  if (r >= 0 && r < quote) {
    const close = `"${"#".repeat(quote - r - 1)}`;
    const end = text.indexOf(close, quote + 1);
    return end < 0 ? -1 : end + close.length;
  }
  for (let j = quote + 1; ; ) {
    const q = text.indexOf('"', j);
    if (q < 0) return -1;
    let b = q - 1;
    while (text.charCodeAt(b) === 92) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** The methods that are panic kinds (`.expect`, `.expect_err`): a call of one is a panic site, never a wrapper's call. */
const PANIC_METHODS = [...METHOD_RULES.keys()];

/** True when the name of a panic kind's method (`PANIC_METHODS`) ends at offset `j`, after a `.`. */
function panicMethodEndsAt(text: string, j: number): boolean {
  for (const name of PANIC_METHODS) {
    const start = j - name.length + 1;
    if (text.startsWith(name, start) && !isAsciiWord(codeAt(text, start - 1)) && codeAt(text, before(text, start)) === 46 /* . */) return true;
  }
  return false;
}

/** White space as rustfmt writes it (a rare other one only costs the exact reading of `calleeOfArgument`). */
function isBlank(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}

/** Offset just past the block comment opening at `at` (they nest), or the text's end. */
function blockCommentEnd(text: string, at: number): number {
  let depth = 1;
  let i = at + 2;
  while (i < text.length && depth > 0) {
    const c = text.charCodeAt(i);
    if (c === 47 && codeAt(text, i + 1) === 42) (depth++, (i += 2));
    else if (c === 42 && codeAt(text, i + 1) === 47) (depth--, (i += 2));
    else i++;
  }
  return i;
}

/** Where the string literal whose opening quote is at `quote` starts: its `r#…#`, `b` or `c` prefix included. */
function literalStart(text: string, quote: number): number {
  let start = quote;
  while (codeAt(text, start - 1) === 35 /* # */) start--;
  if (codeAt(text, start - 1) === 114 /* r */) start--;
  else start = quote;
  const c = codeAt(text, start - 1);
  if (c === 98 /* b */ || c === 99 /* c */) start--;
  // A prefix that ends an identifier (`xr"…"` is no Rust) is no prefix.
  return start !== quote && isAsciiWord(codeAt(text, start - 1)) ? quote : start;
}

/** The offset of the last character before `i` that is not white space, or -1. */
function before(text: string, i: number): number {
  let j = i - 1;
  while (j >= 0 && isSpace(text.charCodeAt(j))) j--;
  return j;
}

/**
 * The key of the call whose argument starts at `at` (after `&` and white space), or null when
 * it is no call's argument. `strings` are the spans of the literals before, jumped over when
 * walking back from a `,` to the call's `(`.
 */
function calleeOfArgument(text: string, at: number, strings: readonly number[], lists: ListMemo): string | null {
  let j = before(text, at);
  if (codeAt(text, j) === 38 /* & */) j = before(text, j);
  let open = -1;
  if (codeAt(text, j) === 40 /* ( */) open = j;
  else if (codeAt(text, j) === 44 /* , */) open = openerBefore(text, j, strings, lists);
  if (open < 0) return null;
  const bang = before(text, open);
  if (codeAt(text, bang) === 33 /* ! */) {
    // Note: a macro's arguments are no call's, but `format!("…", …)` stands for the message: the call it is an argument of is the one wanted.
    const format = before(text, bang) - 5;
    return format >= 0 && text.startsWith("format", format) && !isAsciiWord(codeAt(text, format - 1)) ? calleeOfArgument(text, format, strings, lists) : null;
  }
  // A callee ends with its name, or the `>` of a turbofish: `("a", 1)` is a tuple.
  if (!isAsciiWord(codeAt(text, bang)) && codeAt(text, bang) !== 62) return null;
  const callee = calleeBefore(text, open);
  // Note: `String::from("…")` makes the literal a `String`; the call it is an argument of is the one wanted.
  if (callee?.key === "String::from") return calleeOfArgument(text, callee.start, strings, lists);
  return callee?.key ?? null;
}

/**
 * The last `,` whose list opener a walk back found, and that opener: the next argument of the
 * same list reaches that `,` and stops there, so a long list is walked once, not once per item.
 */
interface ListMemo {
  comma: number;
  opener: number;
}

/** How far back from a `,` the `(` of its call is looked for. */
const MAX_ARGUMENTS_SPAN = 4096;

/**
 * The offset of the `(` that opens the argument list holding the `,` at `comma`, or -1 (a `[`,
 * `{`, none near). `strings`: the spans of the string literals before it, jumped over; null: a
 * quote met is taken for a string's end, and the walk jumps to its opening quote.
 */
function openerBefore(text: string, comma: number, strings: readonly number[] | null, lists: ListMemo = { comma: -1, opener: -1 }): number {
  const opener = walkToOpener(text, comma, strings, lists);
  lists.comma = comma;
  lists.opener = opener;
  return opener;
}

function walkToOpener(text: string, comma: number, strings: readonly number[] | null, lists: ListMemo): number {
  let depth = 0;
  let s = strings === null ? -2 : strings.length - 2;
  for (let k = comma - 1; k >= 0 && comma - k < MAX_ARGUMENTS_SPAN; k--) {
    if (k === lists.comma && depth === 0) return lists.opener;
    while (s >= 0 && strings![s]! > k) s -= 2;
    if (s >= 0 && k < strings![s + 1]!) {
      k = strings![s]!;
      continue;
    }
    const c = text.charCodeAt(k);
    if (strings === null && c === 34 /* " */) {
      k = openingQuote(text, k);
      if (k < 0) return -1;
      continue;
    }
    if (c === 41 || c === 93 || c === 125) depth++;
    else if (c === 40 || c === 91 || c === 123) {
      if (depth === 0) return c === 40 ? k : -1;
      depth--;
    }
  }
  return -1;
}

/** The opening quote of the string whose closing quote is at `close` (the nearest unescaped one before), or -1. */
function openingQuote(text: string, close: number): number {
  for (let k = text.lastIndexOf('"', close - 1); k >= 0; k = text.lastIndexOf('"', k - 1)) {
    let b = k - 1;
    while (text.charCodeAt(b) === 92) b--;
    if ((k - 1 - b) % 2 === 0) return k;
  }
  return -1;
}

/** The callee of the call whose `(` is at `open`: its key, where its last segment and its path start, or null. */
function calleeBefore(text: string, open: number): { key: string; at: number; start: number } | null {
  let j = before(text, open);
  // A turbofish: `name::<T>(…)`.
  if (codeAt(text, j) === 62 /* > */) {
    let depth = 0;
    for (; j >= 0; j--) {
      const c = text.charCodeAt(j);
      if (c === 62) depth++;
      else if (c === 60 && --depth === 0) break;
    }
    j = before(text, j);
    if (codeAt(text, j) !== 58 || codeAt(text, j - 1) !== 58) return null;
    j = before(text, j - 1);
  }
  const name = wordBefore(text, j);
  if (name === null || KEYWORDS.has(name.word)) return null;
  const k = before(text, name.start);
  const at = name.start;
  if (codeAt(text, k) === 46 /* . */ && codeAt(text, k - 1) !== 46) return { key: `.${name.word}`, at, start: at };
  if (codeAt(text, k) === 58 && codeAt(text, k - 1) === 58) {
    const path = wordBefore(text, before(text, k - 1));
    if (path !== null) return { key: `${path.word}::${name.word}`, at, start: outermostPathStart(text, path.start) };
    return { key: name.word, at, start: at };
  }
  const word = wordBefore(text, k);
  if (word !== null && (word.word === "fn" || word.word === "struct" || word.word === "enum")) return null;
  return { key: name.word, at, start: at };
}

/** The identifier (ASCII) ending at offset `j`, or null. */
function wordBefore(text: string, j: number): { word: string; start: number } | null {
  let s = j;
  while (s >= 0 && isAsciiWord(text.charCodeAt(s))) s--;
  if (s === j) return null;
  const first = text.charCodeAt(s + 1);
  if (first >= 48 && first <= 57) return null;
  return { word: text.slice(s + 1, j + 1), start: s + 1 };
}

/** Where the path whose segment starts at `start` begins (`crate::check::TensorError` from `TensorError`). */
function outermostPathStart(text: string, start: number): number {
  for (;;) {
    const k = before(text, start);
    if (codeAt(text, k) !== 58 || codeAt(text, k - 1) !== 58) return start;
    const word = wordBefore(text, before(text, k - 1));
    if (word === null) return k - 1;
    start = word.start;
  }
}

// ---------------------------------------------------------------------------------------------
// The exact reading
// ---------------------------------------------------------------------------------------------

/** A call as the lexer reads it from its callee's name. */
export interface Call {
  /** `name`, `Path::name` (last two segments) or `.name`. */
  readonly key: string;
  /** The callee's last segment. */
  readonly name: string;
  /** Offset where the call's expression starts (its path's first segment; a method's name). */
  readonly start: number;
  /** The arguments between its parentheses, split at top-level commas (a method's receiver not among them). */
  readonly args: readonly (readonly Token[])[];
}

/**
 * The call whose callee's last segment `name` starts at offset `at` (code, as the layout says),
 * or null when `(` does not follow it (a turbofish `::<…>` between allowed) or it is a macro, a
 * definition or a keyword.
 */
export function callAt(text: string, at: number, name: string): Call | null {
  let i = after(text, at + name.length);
  if (codeAt(text, i) === 58 && codeAt(text, i + 1) === 58) {
    i = after(text, i + 2);
    if (codeAt(text, i) !== 60 /* < */) return null;
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 60) depth++;
      else if (c === 62 && text.charCodeAt(i - 1) !== 45 /* -> */ && --depth === 0) break;
    }
    i = after(text, i + 1);
  }
  if (codeAt(text, i) !== 40 /* ( */) return null;
  const callee = calleeBefore(text, i);
  const group = callee === null || callee.at !== at ? null : readDelimited(text, i);
  return group === null ? null : { key: callee!.key, name, start: callee!.start, args: splitArgs(group.tokens) };
}

/**
 * The call one of whose arguments is the expression starting at offset `start` (after `&`), and
 * which argument it is; null when the expression is no call's argument. Found by walking back
 * to the `(` (over strings) and checked by reading the call forward.
 */
export function enclosingCall(text: string, start: number): { readonly call: Call; readonly argument: number } | null {
  let j = before(text, start);
  if (codeAt(text, j) === 38 /* & */) j = before(text, j);
  const open = codeAt(text, j) === 40 ? j : codeAt(text, j) === 44 ? openerBefore(text, j, null) : -1;
  const callee = open < 0 ? null : calleeBefore(text, open);
  const call = callee === null ? null : callAt(text, callee.at, text.slice(callee.at, wordEnd(text, callee.at)));
  if (call === null) return null;
  const argument = call.args.findIndex((arg) => (arg[0]?.text === "&" ? arg[1] : arg[0])?.start === start);
  return argument < 0 ? null : { call, argument };
}

/** The offset of the first character at or after `i` that is not white space. */
function after(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The offset just past the identifier (ASCII) starting at `i`. */
function wordEnd(text: string, i: number): number {
  while (isAsciiWord(codeAt(text, i))) i++;
  return i;
}
