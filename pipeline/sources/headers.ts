/**
 * What the headers of items say, read with the lexer: a function's name and parameters, the type
 * an `impl` block is for. Pure.
 */
import type { Item } from "../layout.js";
import { lexToken, readDelimited, skipTrivia, splitArgs, type Token } from "../tokens.js";

/** A function's name and parameters, as its item's header writes them. */
export interface Signature {
  readonly name: string;
  /** True when it takes `self` in any form. */
  readonly method: boolean;
  /** Its other parameters' names, in order; null for a pattern that is not a plain name. */
  readonly params: readonly (string | null)[];
  /** For each of them, whether a string literal can be passed for it (`takesText`). */
  readonly texts: readonly boolean[];
}

/**
 * The parameter types a string literal can be passed for and that print it as it is, as written
 * (tokens joined by one space): `&str` with any lifetime, `String` (a literal `.to_string()`'d),
 * `Cow<str>`, `impl Into<String>`, `impl AsRef<str>`, `impl ToString`, `impl Display` and
 * `&dyn Display` (with or without their paths), and a type parameter of the function.
 */
const TEXT_TYPES = /^(?:& (?:'\w+ )?str|String|(?:std :: )?(?:borrow :: )?Cow < (?:'\w+ , )?str >|impl (?:Into < String >|AsRef < str >|ToString|(?:(?:std|core|alloc) :: )?(?:fmt :: )?Display)|& (?:'\w+ )?dyn (?:(?:std|core|alloc) :: )?(?:fmt :: )?Display)$/;

/** Whether a parameter of type `type` (its tokens) takes a string literal, `generics` being the function's type parameters. */
function takesText(type: readonly Token[], generics: ReadonlySet<string>): boolean {
  const written = type.map((t) => t.text).join(" ");
  return TEXT_TYPES.test(written) || (type.length === 1 && generics.has(written));
}

/**
 * The signature of the `fn` item `item` (attributes, visibility and qualifiers before `fn`
 * skipped), or null when its header cannot be read.
 */
export function signatureOf(text: string, item: Item): Signature | null {
  let i = item.start;
  let name: string | null = null;
  for (;;) {
    i = skipTrivia(text, i);
    if (i >= item.end) return null;
    const t = lexToken(text, i);
    if (t === null) return null;
    if (t.text === "#" || t.kind === "open") {
      // An attribute, or `pub(crate)`: skipped whole.
      let open = t.kind === "open" ? t.start : skipTrivia(text, t.end);
      if (text[open] === "!") open = skipTrivia(text, open + 1);
      const group = readDelimited(text, open);
      if (group === null) return null;
      i = group.end;
      continue;
    }
    i = t.end;
    if (t.text !== "fn") continue;
    const id = lexToken(text, skipTrivia(text, i));
    if (id?.kind !== "ident") return null;
    name = id.text;
    i = id.end;
    break;
  }
  i = skipTrivia(text, i);
  const generics = new Set<string>();
  if (text[i] === "<") {
    const from = i;
    i = afterGenerics(text, i);
    if (i >= 0) for (const name of typeParams(text.slice(from, i))) generics.add(name);
  }
  i = skipTrivia(text, i);
  const group = i < 0 ? null : readDelimited(text, i);
  if (group === null || text[i] !== "(") return null;
  let method = false;
  const params: (string | null)[] = [];
  const texts: boolean[] = [];
  for (const param of splitArgs(group.tokens)) {
    const colon = param.findIndex((t) => t.text === ":");
    const pattern = colon < 0 ? param : param.slice(0, colon);
    if (pattern.some((t) => t.text === "self")) {
      method = true;
      continue;
    }
    const bare = pattern[0]?.text === "mut" ? pattern.slice(1) : pattern;
    params.push(bare.length === 1 && bare[0]!.kind === "ident" ? bare[0]!.text : null);
    texts.push(colon >= 0 && takesText(param.slice(colon + 1), generics));
  }
  return { name, method, params, texts };
}

/** The names of the type parameters in generics `<…>` as written (not lifetimes, not `const` ones). */
function typeParams(generics: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let start = false;
  for (let i = skipTrivia(generics, 0); i < generics.length; i = skipTrivia(generics, i)) {
    const t = lexToken(generics, i);
    if (t === null) break;
    i = t.end;
    if (depth === 1 && start && t.kind === "ident" && t.text !== "const") names.push(t.text);
    if (t.text === "<" || t.kind === "open") depth++;
    else if (t.text === ">" || t.kind === "close") depth--;
    else if (t.text === ">>") depth -= 2;
    start = depth === 1 && (t.text === "<" || t.text === ",");
  }
  return names;
}

/** The offset after the generics `<…>` opening at `i`, or -1 when they never close. */
function afterGenerics(text: string, i: number): number {
  let depth = 0;
  for (let j = i; j < text.length; ) {
    const t = lexToken(text, j);
    if (t === null) return -1;
    if (t.text === "<") depth++;
    else if (t.text === ">" || t.text === ">>") depth -= t.text.length;
    j = skipTrivia(text, t.end);
    if (depth <= 0) return j;
  }
  return -1;
}

/**
 * The type an `impl` item is for, by its last path segment (`impl<B> Foo for Bar<B>` → `Bar`,
 * `impl TensorCheck` → `TensorCheck`), or a `trait` item's name; null for other items and when
 * the header cannot be read.
 */
export function ownerOf(text: string, item: Item): string | null {
  const end = item.body?.preludeEnd ?? item.end;
  const tokens: Token[] = [];
  for (let i = skipTrivia(text, item.start); i < end; i = skipTrivia(text, i)) {
    const t = lexToken(text, i);
    if (t === null || t.text === "{" || t.text === "where") break;
    if (t.text === "#") {
      const group = readDelimited(text, skipTrivia(text, t.end));
      if (group === null) return null;
      i = group.end;
      continue;
    }
    tokens.push(t);
    i = t.end;
  }
  const trait = tokens.findIndex((t) => t.text === "trait");
  if (trait >= 0) return tokens[trait + 1]?.kind === "ident" ? tokens[trait + 1]!.text : null;
  let k = tokens.findIndex((t) => t.text === "impl");
  if (k < 0) return null;
  const forAt = tokens.findIndex((t) => t.text === "for");
  k = forAt >= 0 ? forAt + 1 : skipGenerics(tokens, k + 1);
  let name: string | null = null;
  for (; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.kind === "ident" && t.text !== "dyn") name = t.text;
    else if (t.text !== "::" && t.text !== "&" && t.text !== "mut") break;
  }
  return name;
}

/** The index after the generics `<…>` starting at token `k` (k itself when none start there). */
function skipGenerics(tokens: readonly Token[], k: number): number {
  if (tokens[k]?.text !== "<") return k;
  let depth = 0;
  for (; k < tokens.length; k++) {
    const text = tokens[k]!.text;
    if (text === "<") depth++;
    else if (text === ">" || text === ">>") depth -= text.length;
    if (depth <= 0) return k + 1;
  }
  return k;
}
