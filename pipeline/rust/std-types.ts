/**
 * What std's types say to the readers: which type heads are an `Option` or a `Result`, and the
 * formatting traits users call through a format string. Imports nothing (the token pass reads it).
 */

/** `option` for a type whose path's last segment is `Option`, `result` for one ending in `Result` (`Result`, `io::Result`, `fmt::Result`, a crate's `Result` alias); null for others. */
export function optionOrResult(head: string): "option" | "result" | null {
  return head === "Option" ? "option" : head.endsWith("Result") ? "result" : null;
}

/** The last segment of the path a type starts with, references and `mut` read through (`&mut io::Result<u8>` → `Result`); null when it starts with none. */
export function typeHead(type: string): string | null {
  return /^\s*(?:&\s*(?:'\w+\s+)?(?:mut\s+)?)*((?:[A-Za-z_]\w*\s*::\s*)*[A-Za-z_]\w*)/.exec(type)?.[1]?.split("::").at(-1)?.trim() ?? null;
}

/** The `std::fmt` traits whose `fmt` users call through a format string, with the placeholder of each. */
export const FORMAT_TRAITS: ReadonlyMap<string, string> = new Map([["Display", "{}"], ["Debug", "{:?}"], ["LowerHex", "{:x}"], ["UpperHex", "{:X}"], ["Octal", "{:o}"], ["Binary", "{:b}"], ["LowerExp", "{:e}"], ["UpperExp", "{:E}"], ["Pointer", "{:p}"]]);
