/** Every panic-kind rule, by the name it is called with. */
import { assertEq, assertNe, debugAssertEq, debugAssertNe } from "./assert-cmp.js";
import { assert, debugAssert } from "./assert.js";
import { expect, expectErr } from "./expect.js";
import { panic } from "./panic.js";
import type { Rule } from "./rule.js";
import { todo, unimplemented, unreachable } from "./unreachable.js";

export type { Rule } from "./rule.js";

export const RULES: readonly Rule[] = [panic, unreachable, todo, unimplemented, assert, assertEq, assertNe, debugAssert, debugAssertEq, debugAssertNe, expect, expectErr];

/** Everything std prints around the sites' own text, longest first (`not yet implemented: ` before `not yet implemented`). */
export const STD_WORDS: readonly string[] = [...new Set(RULES.flatMap((r) => r.words ?? []))].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));

export const MACRO_RULES: ReadonlyMap<string, Rule> = new Map(RULES.filter((r) => r.syntax === "macro").map((r) => [r.name, r]));
export const METHOD_RULES: ReadonlyMap<string, Rule> = new Map(RULES.filter((r) => r.syntax === "method").map((r) => [r.name, r]));
