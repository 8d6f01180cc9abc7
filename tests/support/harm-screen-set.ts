import { readFileSync } from 'node:fs';
import { screenRequest, type ScreenResult } from '../../src/domain/guardrails';
import { categoryVerdict, cuesWith, shippedScreen } from '../../src/domain/harm-screen';
import { combine, readingWindows, readVectors, type HarmSemanticModel } from '../../src/domain/harm-semantic';
import type { Embedder } from '../../src/ports/embeddings';

/**
 * The harm screen's labelled set (tests/fixtures/harm-screen.json) and how
 * it is scored, shared by the unit test and `npm run bench` so both report
 * the same figures.
 */
export interface HarmfulExample {
  text: string;
  category: string;
}
type Split = 'tune' | 'heldOut' | 'afterRules' | 'tuneAdded' | 'semanticAdded' | 'tuneLong' | 'tuneShort' | 'blind2' | 'blind3' | 'blind4' | 'blind5' | 'blind6' | 'blind7' | 'blind8' | 'blind9';
export interface HarmScreenSet {
  harmful: Record<Split, HarmfulExample[]>;
  benign: Record<Split, string[]>;
}

export const SPLITS: readonly Split[] = ['tune', 'tuneAdded', 'semanticAdded', 'tuneLong', 'tuneShort', 'heldOut', 'afterRules', 'blind2', 'blind3', 'blind4', 'blind5', 'blind6', 'blind7', 'blind8', 'blind9'];

/** What each split is, as the bench and the test print it (the fixture's `about` tells the whole story). */
export const SPLIT_LABELS: Record<Split, string> = {
  tune: 'tune (tuned against, trained on)',
  tuneAdded: 'tuneAdded, written pairs (tuned against, trained on)',
  heldOut: 'held out (never tuned against, seen while writing)',
  afterRules: 'afterRules (read before the intent rules)',
  semanticAdded: 'semanticAdded, written for the semantic layer (trained on, never tuned against by the rules)',
  tuneLong: 'tuneLong, long requests written blind (the stance cue tuned against them; never trained on)',
  tuneShort: 'tuneShort, short requests written blind (the stance cue tuned against them; never trained on)',
  blind2: 'blind2 (written blind, never trained on; its aggregate figures were read while the layers were built); false refusals read and tuned against since the model-screen round',
  blind3: 'blind3 (written blind before the semantic layer, first measured after both layers were committed); false refusals read and tuned against since the model-screen round',
  blind4: 'blind4 (written blind after the stance cue, measured once before and after it; the reported cue written from its false refusals); false refusals read and tuned against since the model-screen round',
  blind5: 'blind5 (written blind after the stance cue, measured once before and after it; never trained on); false refusals read and tuned against since the model-screen round',
  blind6: 'blind6 (written blind after the reported cue, measured once before and after each cue; never trained on); false refusals read and tuned against since the model-screen round',
  blind7: 'blind7 (written blind after the intake prompt v6; never tuned or trained on)',
  blind8: 'blind8 (written blind, with harmful requests posed as innocent questions; never tuned or trained on)',
  blind9: 'blind9 (written blind after intake prompt v7 and the latest cues; never tuned or trained on)',
};

export function loadHarmScreenSet(): HarmScreenSet {
  return JSON.parse(readFileSync(new URL('../fixtures/harm-screen.json', import.meta.url), 'utf8')) as HarmScreenSet;
}

export interface Score {
  harmful: number;
  benign: number;
  /** Harmful requests refused, over all harmful requests. */
  recall: number;
  /** Benign requests refused, over all benign requests. */
  falseRefusals: number;
  /** Refused harmful requests given the category they were labelled with. */
  categoryAgreement: number;
  missed: HarmfulExample[];
  refused: string[];
}

/** A screen's verdict on one text; the rules' by default. */
export type Verdict = (text: string) => ScreenResult;

export function score(harmful: HarmfulExample[], benign: string[], verdict: Verdict = screenRequest): Score {
  const verdicts = harmful.map((h) => ({ h, r: verdict(h.text) }));
  const caught = verdicts.filter((v) => !v.r.allowed);
  const refused = benign.filter((b) => !verdict(b).allowed);
  return {
    harmful: harmful.length,
    benign: benign.length,
    recall: caught.length / harmful.length,
    falseRefusals: refused.length / benign.length,
    categoryAgreement: caught.filter((v) => v.r.category === v.h.category).length / Math.max(1, caught.length),
    missed: verdicts.filter((v) => v.r.allowed).map((v) => v.h),
    refused,
  };
}

/** A share as the bench and the test print it: "42.5%". */
export const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

/** One line per figure: "held out (54 harmful, 58 benign): recall 94.4%, false refusals 0.0%, category agreement 96.1%". */
export function describeScore(label: string, s: Score): string {
  return `${label} (${s.harmful} harmful, ${s.benign} benign): recall ${percent(s.recall)}, false refusals ${percent(s.falseRefusals)}, category agreement ${percent(s.categoryAgreement)}`;
}

/** The three screens the bench and the test compare. */
export type Layer = 'rules' | 'semantic' | 'combined';
export const LAYERS: readonly Layer[] = ['rules', 'semantic', 'combined'];

/**
 * Verdicts of each layer on `texts`, their windows embedded together first
 * (one request at a time would take ~15 ms each): the rules alone, the semantic layer
 * alone (probability at or above its threshold, nothing else), and the two
 * combined as intake combines them (src/app/request-screen.ts).
 */
export async function layeredVerdicts(texts: string[], encoder: Embedder, model: HarmSemanticModel): Promise<Record<Layer, Verdict>> {
  const unique = [...new Set(texts.flatMap(readingWindows))];
  const vectors = new Map<string, number[]>();
  (await encoder.embed(unique)).forEach((v, k) => vectors.set(unique[k]!, v));
  const rules = shippedScreen();
  const read = (text: string) =>
    readVectors(
      model,
      readingWindows(text).map((w) => {
        const v = vectors.get(w);
        if (!v) throw new Error('text was not embedded');
        return v;
      }),
    );
  return {
    rules: screenRequest,
    semantic: (text) => {
      const r = read(text);
      return r.probability >= model.refuseAt ? categoryVerdict(rules, r.category) : { allowed: true, category: 'ok', reason: rules.allowedReason };
    },
    combined: (text) => combine(model, screenRequest(text), read(text), cuesWith(rules, text), (c) => categoryVerdict(rules, c), rules.allowedReason),
  };
}
