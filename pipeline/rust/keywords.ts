/**
 * Rust's keywords, as the Reference lists them, and the subsets the readers of Rust text need,
 * each named for what it is used for. Data only: this module imports nothing, so the lexer
 * (tokens.ts) can take its lists without an import cycle.
 */

/** The strict keywords of editions 2018 and later, in the Reference's order. */
export const STRICT_KEYWORDS: readonly string[] = [
  "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
  "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
];

/**
 * The keywords reserved for future use in editions 2018 and 2021.
 * Note: `gen` is reserved from edition 2024 on only; code of earlier editions may name a function so.
 */
export const RESERVED_KEYWORDS: readonly string[] = ["abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try"];

/** Every strict and reserved keyword: no identifier is spelled so (`r#…` aside). */
export const KEYWORDS: ReadonlySet<string> = new Set([...STRICT_KEYWORDS, ...RESERVED_KEYWORDS]);

/** The keywords that are a path's segment (`self::x`, `Self::new`, `crate::a`, `super::b`) and so may stand where a name does. */
export const PATH_KEYWORDS: ReadonlySet<string> = new Set(["self", "Self", "crate", "super"]);

/** The keywords that are literals. */
export const LITERAL_KEYWORDS: ReadonlySet<string> = new Set(["true", "false"]);

/** Keywords after which an expression (or a pattern) starts, as after a binary operator. */
export const EXPRESSION_LEADERS: ReadonlySet<string> = new Set(["if", "let", "match", "in", "return", "else", "move", "mut", "ref", "while", "for", "break", "unsafe", "async", "box", "dyn", "impl"]);

/**
 * Words after which `!` is the not operator, never a macro call's bang (`if !x`, `return !y`):
 * the strict keywords, `yield` and `box`. The file-layout pass (native/src/layout.c, its
 * `KEYWORDS`) holds this very list.
 */
export const NOT_MACRO_NAMES: readonly string[] = [...STRICT_KEYWORDS, "yield", "box"];

/** Words that may stand before an item's keyword (`pub`, `unsafe`, `default`, …); layout.c's `MODIFIERS`. */
export const ITEM_MODIFIERS: readonly string[] = ["pub", "const", "unsafe", "async", "extern", "default", "safe"];

/** Items whose body is a list of items; layout.c's `CONTAINERS`. */
export const ITEM_CONTAINERS: readonly string[] = ["impl", "trait", "mod"];

/** Rust's primitive types, named in expressions as casts' targets and paths (`x as usize`, `u8::MAX`). */
export const PRIMITIVE_TYPES: ReadonlySet<string> = new Set(["bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f16", "f32", "f64", "f128"]);

/** Tokens after which a `|` or `||` opens a closure's parameters (an operand is expected there), not an `or`. */
export const CLOSURE_OPENERS: ReadonlySet<string> = new Set(["(", "[", "{", ",", "=", ";", "=>", "move", "return", "async", "}"]);
