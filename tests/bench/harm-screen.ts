import { screenRequest } from '../../src/domain/guardrails';
import { describeScore, loadHarmScreenSet, score, SPLIT_LABELS, SPLITS } from '../support/harm-screen-set';
import { pct } from './percentile';

const ROUNDS = 20;

/**
 * The intake harm screen on its labelled set: recall and false refusals on
 * the whole original set and on each split (blind2, written blind and never
 * trained on, is the honest figure), then the time per request (p50, p99) over every example screened
 * `ROUNDS` times, and over each request's fastest round. In-process and
 * quick (about a second): no service needed.
 */
export function harmScreenBench(): string[] {
  const set = loadHarmScreenSet();
  const whole = score([...set.harmful.tune, ...set.harmful.heldOut], [...set.benign.tune, ...set.benign.heldOut]);
  const texts = [...Object.values(set.harmful).flat().map((h) => h.text), ...Object.values(set.benign).flat()];
  for (const t of texts) screenRequest(t); // warm the JIT before timing
  const times: number[] = [];
  // Each request's fastest round: its own cost, without the pauses of a busy machine (GC, other processes).
  const best = texts.map(() => Infinity);
  for (let r = 0; r < ROUNDS; r++) {
    texts.forEach((t, i) => {
      const t0 = performance.now();
      screenRequest(t);
      const ms = performance.now() - t0;
      times.push(ms);
      best[i] = Math.min(best[i]!, ms);
    });
  }
  return [
    describeScore('harm screen, tune + held out', whole),
    ...SPLITS.map((split) => describeScore(`harm screen, ${SPLIT_LABELS[split]}`, score(set.harmful[split], set.benign[split]))),
    `harm screen time per request over ${times.length} screens: p50 ${pct(times, 50).toFixed(3)} ms, p99 ${pct(times, 99).toFixed(3)} ms; ` +
      `each request's best of ${ROUNDS}: p50 ${pct(best, 50).toFixed(3)} ms, p99 ${pct(best, 99).toFixed(3)} ms (target well under 1 ms)`,
  ];
}
