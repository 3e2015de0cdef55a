/**
 * The one table of what the pipeline knows about Rust, for extraction and analysis alike:
 * - test code (test-code.ts): the test attributes, the `cfg` predicates and `cfg_attr` forms that
 *   make code test-only, Cargo's test, bench, example and build-script paths;
 * - keywords (keywords.ts): one list, with the subsets the readers need named there;
 * - the paths std's macros are called through (`STD_PATHS`, below);
 * - the panic kinds: one rule per kind in `pipeline/rules/` (`RULES`, and by the name they are
 *   called with, `MACRO_RULES` and `METHOD_RULES`).
 * Note: the lexer (tokens.ts) imports keywords.ts itself, which imports nothing: this module
 *   imports the lexer.
 */
export * from "./keywords.js";
export { SAME_VALUE_METHODS, STD_MACROS, STD_METHODS } from "./std-methods.js";
export * from "./test-code.js";
export { MACRO_RULES, METHOD_RULES, RULES, type Rule } from "../rules/index.js";

/** The paths a macro may be called through and still be std's (`std::panic!`, `core::panic!`, `$crate::panic!`). */
export const STD_PATHS: ReadonlySet<string> = new Set(["std", "core", "alloc", "$crate", "::std", "::core"]);
export { simplestCfg } from "./cfg-simplest.js";
export { FORMAT_TRAITS, optionOrResult, typeHead } from "./std-types.js";
export { cfgTruth, type FeatureTable, type Truth } from "./cfg-truth.js";
