import semanticFile from '../../src/data/harm-semantic.json' with { type: 'json' };
import { semanticRequestScreen } from '../../src/app/request-screen';
import { screenRequest } from '../../src/domain/guardrails';
import { harmSemanticFileSchema } from '../../src/domain/harm-semantic';
import { createThreadedSentenceEncoder } from '../../src/embeddings/sentence-encoder';
import { intakeScores, loadModelScreen } from '../support/harm-model-screen';
import { describeScore, percent, LAYERS, layeredVerdicts, loadHarmScreenSet, score, SPLIT_LABELS, SPLITS } from '../support/harm-screen-set';
import { pct } from './percentile';

const ROUNDS = 20;
/** Requests timed through the whole intake screen (one at a time, as intake runs it): every STRIDE-th of the set. */
const STRIDE = 4;
const SCREEN_ROUNDS = 2;

function timings(texts: string[], rounds: number, run: (t: string) => unknown): { all: number[]; best: number[] } {
  const all: number[] = [];
  // Each request's fastest round: its own cost, without the pauses of a busy machine (GC, other processes).
  const best = texts.map(() => Infinity);
  for (let r = 0; r < rounds; r++) {
    texts.forEach((t, i) => {
      const t0 = performance.now();
      run(t);
      const ms = performance.now() - t0;
      all.push(ms);
      best[i] = Math.min(best[i]!, ms);
    });
  }
  return { all, best };
}

async function asyncTimings(texts: string[], rounds: number, run: (t: string) => Promise<unknown>): Promise<{ all: number[]; best: number[] }> {
  const all: number[] = [];
  const best = texts.map(() => Infinity);
  for (let r = 0; r < rounds; r++) {
    for (const [i, t] of texts.entries()) {
      const t0 = performance.now();
      await run(t);
      const ms = performance.now() - t0;
      all.push(ms);
      best[i] = Math.min(best[i]!, ms);
    }
  }
  return { all, best };
}

const line = (what: string, n: number, rounds: number, { all, best }: { all: number[]; best: number[] }) =>
  `${what} over ${all.length} screens: p50 ${pct(all, 50).toFixed(3)} ms, p99 ${pct(all, 99).toFixed(3)} ms; ` +
  `each of ${n} requests' best of ${rounds}: p50 ${pct(best, 50).toFixed(3)} ms, p99 ${pct(best, 99).toFixed(3)} ms`;

/**
 * The intake harm screen on its labelled set, per layer (the rules alone,
 * the semantic layer alone, both combined as intake runs them): recall and
 * false refusals on the whole original set and on each split (blind2,
 * written blind and never trained on, is the honest figure); then the
 * sentence encoder's load time and the time per request (p50, p99) of the
 * rules alone and of the whole screen. In-process, about a minute on two
 * cores (embedding every example): no service needed.
 */
export async function harmScreenBench(): Promise<string[]> {
  const set = loadHarmScreenSet();
  const model = harmSemanticFileSchema.parse(semanticFile);
  const texts = [...Object.values(set.harmful).flat().map((h) => h.text), ...Object.values(set.benign).flat()];
  const t0 = performance.now();
  // The service's encoder, in its own thread (as intake runs it).
  const encoder = await createThreadedSentenceEncoder();
  const loadMs = performance.now() - t0;
  const verdicts = await layeredVerdicts(texts, encoder, model);
  const out: string[] = [];
  for (const layer of LAYERS) {
    const v = verdicts[layer];
    out.push(
      describeScore(`${layer}: tune + held out`, score([...set.harmful.tune, ...set.harmful.heldOut], [...set.benign.tune, ...set.benign.heldOut], v)),
      ...SPLITS.map((split) => describeScore(`${layer}: ${SPLIT_LABELS[split]}`, score(set.harmful[split], set.benign[split], v))),
    );
  }
  // The model's own screen (the intake call's `safety`), recorded on model-written answers by scripts/screen-trial.ts.
  for (const [split, rec] of Object.entries(loadModelScreen().splits)) {
    if (!rec) continue;
    const s = intakeScores(set, split as (typeof SPLITS)[number], rec);
    const rate = (r: { recall: number; falseRefusals: number }) => `recall ${percent(r.recall)}, false refusals ${percent(r.falseRefusals)}`;
    out.push(
      `${split}, the model's own screen alone (${rec.prompt}, written ${rec.recorded} by ${rec.by}): ${rate(s.model)}`,
      `${split}, intake with HARM_SCREEN_FLAG=refuse (the rules, then the model on what they allow): ${rate(s.refuse)} (${s.refuse.byRules} lawful requests refused by the rules, ${s.refuse.byModel} by the model)`,
      ...(s.confirm
        ? [`${split}, intake with HARM_SCREEN_FLAG=confirm (the model confirms the rules' refusals): ${rate(s.confirm)}${s.confirm.unflaggedAtRecording ? ` (${s.confirm.unflaggedAtRecording} requests the rules refuse today were not flagged when recorded: their plain verdict counts)` : ''}`]
        : []),
    );
  }
  for (const t of texts) screenRequest(t); // warm the JIT before timing
  out.push(line('rules alone, time per request', texts.length, ROUNDS, timings(texts, ROUNDS, screenRequest)));
  const screen = semanticRequestScreen({ encoder: async () => encoder, model, warn: (m) => out.push(`warning: ${m}`) });
  const sample = texts.filter((_, i) => i % STRIDE === 0);
  out.push(
    `sentence encoder: loaded in ${loadMs.toFixed(0)} ms in its thread (model, then the calibration texts embedded)`,
    line('whole screen (rules + encoder + semantic layer), time per request', sample.length, SCREEN_ROUNDS, await asyncTimings(sample, SCREEN_ROUNDS, (t) => screen.screen(t))),
  );
  return out;
}
