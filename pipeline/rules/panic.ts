/** `panic!(fmt, …)`: the user sees the formatted message; `panic!()` prints `explicit panic`. */
import { formatted, type Rule } from "./rule.js";

export const panic: Rule = {
  id: "panic",
  syntax: "macro",
  name: "panic",
  check: null,
  debugOnly: false,
  describe: (args) => formatted(args, ""),
};
