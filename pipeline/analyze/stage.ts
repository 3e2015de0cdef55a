/**
 * The analyze stage as run.ts calls it: static fields (pure), then the optional language model
 * (network and cache: the only effects), then the times carried over from the previous version.
 */
import { LLM_DEFAULTS, refineWithLlm } from "../llm.js";
import type { AnalysisCounts, Envelope, LlmConfig } from "../schema-types.generated.js";
import type { Site } from "../types.js";
import type { WorkspaceLayout } from "../workspace/modules.js";
import { analyzeWithCarry, keepTimes } from "./index.js";
import type { SymbolsInput } from "./reach.js";

/** Bumped whenever the analysis can write other fields for the same sites (it is part of the pipeline version). */
export const ANALYZER_VERSION = 39;

/** What run.ts hands the analyze stage. */
export interface AnalyzeStageInput {
  readonly envelopes: readonly Envelope[];
  readonly sites: readonly Site[];
  /** The dataset version being built (ISO 8601). */
  readonly now: string;
  /** The previous version's envelopes by id. */
  readonly previous?: ReadonlyMap<string, Envelope>;
  /**
   * True when the previous version was analysed by this analyzer with these settings: records
   * whose analysis inputs did not change keep their fields (never with a language model on).
   */
  readonly carry?: boolean;
  /** `config.analysis.llm`; absent: static only. */
  readonly llm?: LlmConfig;
  /** The resolved `config.cacheDir`. */
  readonly cacheDir: string;
  readonly log?: (line: string) => void;
  /** The workspace's layout (workspace/). */
  readonly layout?: WorkspaceLayout;
  /** The workspace's symbol index and tests (symbols/): entry points, docs and reproductions; absent: none. */
  readonly symbols?: SymbolsInput;
}

/** Whether analyses can be carried over from a version these settings wrote: never with a language model on (it rewrites their prose). */
export function carriesAnalysis(llm: LlmConfig | undefined): boolean {
  return !{ ...LLM_DEFAULTS, ...llm }.enabled;
}

/** The analysed envelopes (input order) and the manifest's `analysis` counts. Never throws for a failed model request. */
export async function analyzeStage(input: AnalyzeStageInput): Promise<{ envelopes: Envelope[]; counts: AnalysisCounts }> {
  const settings = { ...LLM_DEFAULTS, ...input.llm };
  const carryFrom = input.carry && carriesAnalysis(input.llm) ? input.previous : undefined;
  const analysed = analyzeWithCarry({ envelopes: input.envelopes, sites: input.sites, ...(carryFrom ? { carryFrom } : {}), ...(input.layout ? { layout: input.layout } : {}), ...(input.symbols ? { symbols: input.symbols } : {}) });
  const refined = await refineWithLlm(analysed.envelopes, { settings, cacheDir: input.cacheDir, ...(input.log ? { log: input.log } : {}) });
  return { envelopes: keepTimes(refined.envelopes, input.previous, input.now), counts: { ...refined.counts, ...(carryFrom ? { staticCarried: analysed.carried } : {}) } };
}
