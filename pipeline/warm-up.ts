/**
 * A small file extracted a few times before a long extraction, its result dropped: it takes the
 * branches of the lexer and the tree reader that real files take only now and then (a non-ASCII
 * identifier, a byte literal, a test attribute closing, an inner attribute, a `macro_rules!` rule,
 * format arguments, callers, conditions), while V8 is still collecting type feedback.
 *
 * Note: V8 optimises a hot function with the feedback its runs gave so far. A branch first taken
 * afterwards throws the optimised code away, and the function runs unoptimised until it is
 * compiled again on the second core. On burn, without this, the lexer (`layoutOf`) was compiled
 * six times per run, 30–80 ms each, and spent about 115 ms in all; primed, it is compiled once and
 * spends about 75 ms, and the whole run is about 70 ms shorter. The file is extracted
 * `WARM_UP_ROUNDS` times because a function only gets its feedback vector once it has run a while
 * (V8's lazy feedback allocation): the first round mostly pays for that.
 */
import type { ExtractOptions, ParserSource } from "./extract.js";
import { extractFile } from "./extract.js";

/** How many times the primer is extracted (measured on burn: 4 and 6 alike, 3 or fewer less). */
export const WARM_UP_ROUNDS = 4;

/** From this many files to extract on, the threads are primed first (it takes about 10 ms). */
export const WARM_UP_FILES = 256;

/** Extracts `PRIMER` `WARM_UP_ROUNDS` times as library code; the results are dropped. */
export function warmUp(parser: ParserSource, options: ExtractOptions): void {
  for (let k = 0; k < WARM_UP_ROUNDS; k++) extractFile({ path: "src/primer.rs", blob: "", text: PRIMER }, parser, options);
}

/** Rust touching what the extraction reads: every kind of site, in and out of code, in every kind of item. */
export const PRIMER = `#![allow(unused)]
//! Inner doc. panic!("not code")
/* a /* nested */ block comment: todo!() */
use core::fmt::{self, Display};

#[cfg(feature = "std")]
pub(crate) unsafe extern "C" fn raw<'a>(x: &'a str, n: usize) -> u8 {
    let s = r#"raw "panic!" string"#; let b = b'x'; let c = 'y'; let q = '\\n'; let bs = b"bytes"; let cs = c"c"; let br = br"x";
    let f = 1.5e3 + 0x1f as f64 + 1_000u32 as f64; let r#type = 1; let ünï = 2;
    if n > 3 {
        panic!("n must be at most 3, got {n} ({}:{:?})", x.len(), x);
    } else if x.is_empty() {
        unreachable!("empty {}", "input");
    } else {
        todo!()
    }
    let Some(v) = x.chars().next() else { unimplemented!("no first char") };
    match n {
        0 => assert!(x.len() > 1, "too short: {}", x.len()),
        1 | 2 => assert_eq!(x.len(), n, "length {} != {n}", x.len()),
        _ => debug_assert_ne!(n, 7),
    }
    for i in 0..n { while i > 2 { loop { debug_assert!(i < 10, concat!("i ", stringify!(small))); } } }
    assert!(c != 'x' && b != b'\\n' && n <= 1_000usize && (0..=2).contains(&n) && r#type << 1 >= 2, "odd {} {:>8.3} {:#x} {}", c, f, n, Vec::<&'static str>::new().len());
    let g = |k: u8| k.checked_add(1).expect("overflow adding one");
    x.parse::<u8>().expect(&format!("not a number: {x}"))
}

pub fn caller(x: &str) -> u8 { /* block */ unsafe { raw(x, 1) } }

impl<T: Display> Wrapper<T> where T: Clone {
    pub const fn new(value: T) -> Self { Self { value } }
    fn get(&self, i: usize) -> &T {
        assert!(i < 1, "index {i} out of bounds");
        self.items.get(i).expect("item")
    }
    fn call_get(&self) { self.get(0); debug_assert_eq!(self.len(), 1); }
}

pub trait Check {
    fn check(&self) { assert_ne!(self.id(), 0, "id must not be zero") }
    fn id(&self) -> u32;
}

mod inner {
    #[inline]
    pub fn f(r: Result<u8, String>) -> String { r.expect_err("should have failed") }
}

macro_rules! check {
    ($x:expr) => { assert!($x, "check failed: {}", stringify!($x)) };
    [$($t:tt)*] => {{ panic!($($t)*) }};
}

quote! { panic!("inside a token tree") }
const K: u8 = if cfg!(test) { 1 } else { 2 };
static NAMES: [&str; 2] = ["a", "b"];
extern "C" { fn ext(); }
#[cfg_attr(test, derive(Debug))]
struct S;
enum E { A, B }

#[cfg(test)]
mod tests {
    #[test]
    fn t() { assert_eq!(1, 1, "one"); panic!("in a test"); }
}

#[test]
fn top_level_test() { assert!(true); }
`;
