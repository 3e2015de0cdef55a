/** `panic!(fmt, …)`: the user sees the formatted message; `panic!()` prints `explicit panic`. */
import { formatted, frameWords, type Frame, type Rule } from "./rule.js";

const FRAME: Frame = { prefix: "", suffix: [], bare: { message: "explicit panic", runtime: [{ lit: "explicit panic" }] } };

export const panic: Rule = {
  id: "panic",
  syntax: "macro",
  name: "panic",
  check: null,
  debugOnly: false,
  words: frameWords(FRAME),
  describe: (args) => formatted(args, FRAME),
};
