/**
 * Messages held in a `let` or `const` of the same file: `let msg = "…"; x.expect(msg)`,
 * `const MSG: &str = "…"; panic!("{}", MSG)` or `panic!("{MSG}")`. A panic whose own arguments
 * carry no text reads the literal through its name, at the panic's own place. Pure.
 *
 * Scope, as rustc resolves a name that is not a parameter: the nearest `let` of the name before
 * the site in a block that still holds it (in the function around it), else the file's
 * `const`/`static` items of that name, when they all bind the same literal.
 */
import { type Item, itemAt, type Layout } from "../layout.js";
import { decodeStringLiteral } from "../message.js";
import { codeAt, isAsciiWord, isStrLiteral, lexToken, skipTrivia, type Token } from "../tokens.js";

/** A literal a name is bound to where a site reads it. */
export interface BoundLiteral {
  readonly value: string;
  /** Offset of the `let`, `const` or `static` keyword. */
  readonly at: number;
}

/** What follows a name a `let`, `const` or `static` binds to a string literal: a type, `=`, the literal's start. */
const TO_LITERAL = /\s*(?::[^=;]*)?=\s*(?:r#*)?"/y;

/** The keywords a binding starts with, as rustfmt spaces them. */
const BINDERS = ["let ", "let mut ", "const ", "static ", "static mut "];

/** True when `name` is made of `\w` characters only. */
function isAsciiName(name: string): boolean {
  for (let k = 0; k < name.length; k++) if (!isAsciiWord(name.charCodeAt(k))) return false;
  return name.length > 0;
}

/** The bindings of one file's text, read when first asked for. */
export class FileBindings {
  private readonly candidates = new Map<string, number[]>();
  /** The binders of the text by the name after them (`binders`), read when first asked for. */
  private byName: Map<string, [number, number][]> | undefined;
  private readonly itemTokens = new Map<Item, Token[]>();

  constructor(
    private readonly text: string,
    private readonly layout: Layout,
  ) {}

  /**
   * True when some `let`, `const` or `static` of the text may bind `name` to a string literal.
   * Note: the binders (`let `, `const `, `static `, each with `mut ` or not) are found once per
   *   file with `indexOf` (`binders`), each with the name after it, then a name's are checked
   *   in place when first asked for; the tokens decide (`literalAt`).
   */
  mayBind(name: string): boolean {
    let offsets = this.candidates.get(name);
    if (offsets === undefined) {
      offsets = [];
      const text = this.text;
      for (const [i, end] of this.binderNames(name)) {
        TO_LITERAL.lastIndex = end;
        if (TO_LITERAL.test(text)) offsets.push(i);
      }
      offsets.sort((a, b) => a - b);
      this.candidates.set(name, offsets);
    }
    return offsets.length > 0;
  }

  /** Each binder (`BINDERS`) followed by `name` as a whole word: the binder's offset and the name's end. */
  private binderNames(name: string): readonly (readonly [number, number])[] {
    // Note: a name made of other characters than `\w` is searched for alone (the index splits the text at them).
    if (!isAsciiName(name)) return this.searched(name);
    this.byName ??= this.binders();
    return this.byName.get(name) ?? [];
  }

  /** The binders of the text with the `\w` word after each (after `mut ` too, which is a word as well), by that word. */
  private binders(): Map<string, [number, number][]> {
    const text = this.text;
    const found = new Map<string, [number, number][]>();
    const note = (word: number, at: number) => {
      let end = word;
      while (isAsciiWord(codeAt(text, end))) end++;
      if (end === word) return end;
      const name = text.slice(word, end);
      const list = found.get(name);
      if (list === undefined) found.set(name, [[at, end]]);
      else list.push([at, end]);
      return end;
    };
    for (const binder of ["let ", "const ", "static "]) {
      for (let i = text.indexOf(binder); i >= 0; i = text.indexOf(binder, i + 1)) {
        if (isAsciiWord(codeAt(text, i - 1))) continue;
        const word = i + binder.length;
        const end = note(word, i);
        if (binder !== "const " && end === word + 3 && text.startsWith("mut ", word)) note(word + 4, i);
      }
    }
    return found;
  }

  /** What `binderNames` gives for a name the index cannot hold, by searching the text for each binder and the name. */
  private searched(name: string): [number, number][] {
    const out: [number, number][] = [];
    for (const binder of BINDERS) {
      const needle = binder + name;
      for (let i = this.text.indexOf(needle); i >= 0; i = this.text.indexOf(needle, i + 1)) {
        const end = i + needle.length;
        if (!isAsciiWord(codeAt(this.text, i - 1)) && !isAsciiWord(codeAt(this.text, end))) out.push([i, end]);
      }
    }
    return out;
  }

  /**
   * The literal `name` holds at offset `at` (a site of the function whose parameters are
   * `params`), or null: a `let` in scope decides (a `let` of it with any other value hides the
   * file's constants); a parameter of that name hides the constants too.
   */
  literalAt(name: string, at: number, params: readonly (string | null)[]): BoundLiteral | null {
    if (!this.mayBind(name)) return null;
    const item = itemAt(this.layout.items, at);
    if (item !== null) {
      const local = this.letAt(item, name, at);
      if (local !== undefined) return local;
    }
    if (params.includes(name)) return null;
    let found: BoundLiteral | null = null;
    for (const offset of this.candidates.get(name)!) {
      const value = this.isToken(offset) ? constantAt(this.text, offset, name) : undefined;
      if (value === undefined) continue;
      if (value === null || (found !== null && found.value !== value)) return null;
      found ??= { value, at: offset };
    }
    return found;
  }

  /**
   * The `let` of `name` in scope at `at` in `item`: its literal, null when its value is not one,
   * undefined when no `let` of the name is in scope.
   */
  private letAt(item: Item, name: string, at: number): BoundLiteral | null | undefined {
    const tokens = this.tokensOf(item);
    /** The `let`s seen in the blocks still open: the name's binding and the block depth it belongs to. */
    const bound: { readonly binding: BoundLiteral | null; readonly depth: number }[] = [];
    let depth = 0;
    for (let k = 0; k < tokens.length && tokens[k]!.start < at; k++) {
      const t = tokens[k]!;
      if (t.kind === "open") depth++;
      else if (t.kind === "close") {
        depth--;
        while (bound.length > 0 && bound.at(-1)!.depth > depth) bound.pop();
      } else if (t.text === "let") {
        const b = letBinding(tokens, k, name);
        if (b !== undefined) bound.push({ binding: b, depth });
      }
    }
    return bound.length === 0 ? undefined : bound.at(-1)!.binding;
  }

  /** True when a token of the code starts at `offset` (not a comment's or a string's text). */
  private isToken(offset: number): boolean {
    const item = itemAt(this.layout.items, offset);
    const tokens = item === null ? tokensBetween(this.text, 0, this.layout.preludeEnd) : this.tokensOf(item);
    let lo = 0;
    let hi = tokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tokens[mid]!.start < offset) lo = mid + 1;
      else hi = mid;
    }
    return tokens[lo]?.start === offset;
  }

  private tokensOf(item: Item): Token[] {
    let tokens = this.itemTokens.get(item);
    if (tokens === undefined) {
      tokens = tokensBetween(this.text, item.start, item.end);
      this.itemTokens.set(item, tokens);
    }
    return tokens;
  }
}

/**
 * What the `let` at token `k` binds `name` to: its literal (`let name = "…";`,
 * `let name: &str = "…";`), null when it binds the name to anything else, undefined when it
 * does not bind the name alone.
 */
function letBinding(tokens: readonly Token[], k: number, name: string): BoundLiteral | null | undefined {
  let j = k + 1;
  if (tokens[j]?.text === "mut") j++;
  if (tokens[j]?.kind !== "ident" || tokens[j]!.text !== name) return undefined;
  j++;
  if (tokens[j]?.text === ":") {
    while (j < tokens.length && tokens[j]!.text !== "=" && tokens[j]!.text !== ";") j++;
  }
  if (tokens[j]?.text !== "=") return null;
  const value = isStrLiteral(tokens[j + 1]) && tokens[j + 2]?.text === ";" ? decodeStringLiteral(tokens[j + 1]!.text) : null;
  return value === null ? null : { value, at: tokens[k]!.start };
}

/**
 * The literal of the `const` or `static` item `name: &str = "…";` whose keyword is at `offset`:
 * its value, null when it binds the name to something else, undefined when no such item starts
 * there (the scan's match was in a comment or a `let`).
 */
function constantAt(text: string, offset: number, name: string): string | null | undefined {
  const tokens = tokensBetween(text, offset, text.length, 16);
  const keyword = tokens[0]?.text;
  if (keyword !== "const" && keyword !== "static") return undefined;
  let j = tokens[1]?.text === "mut" ? 2 : 1;
  if (tokens[j]?.text !== name || tokens[j + 1]?.text !== ":") return undefined;
  j += 2;
  while (j < tokens.length && tokens[j]!.text !== "=") j++;
  if (tokens[j]?.text !== "=" || !isStrLiteral(tokens[j + 1]) || tokens[j + 2]?.text !== ";") return null;
  return decodeStringLiteral(tokens[j + 1]!.text);
}

/** The tokens from offset `from` to `to` (at most `limit`), comments and white space skipped; a stray quote ends them. */
export function tokensBetween(text: string, from: number, to: number, limit = Infinity): Token[] {
  const tokens: Token[] = [];
  for (let i = skipTrivia(text, from); i < to && tokens.length < limit; i = skipTrivia(text, i)) {
    const t = lexToken(text, i);
    if (t === null) break;
    tokens.push(t);
    i = t.end;
  }
  return tokens;
}
