/**
 * The counts a run of the burn-like fixture tree gives, as fixtures/burnlike/expected.json says
 * them (written from reading the tree): the one place tests take them from.
 */
import { readFileSync } from "node:fs";
import type { ManifestCounts } from "../../pipeline/schema-types.generated.js";
import { fixture } from "./git.js";

/** The manifest counts expected.json states (it states some of them). */
export type ExpectedCounts = Pick<ManifestCounts, "filesRead" | "sites" | "records"> & Partial<ManifestCounts>;

/** fixtures/burnlike/expected.json's `counts`. */
export const burnlikeCounts: ExpectedCounts = (JSON.parse(readFileSync(fixture("burnlike", "expected.json"), "utf8")) as { counts: ExpectedCounts }).counts;
