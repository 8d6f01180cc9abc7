import { readFileSync, writeFileSync } from 'node:fs';
import { SENTENCE_ENCODER_NAME, createSentenceEncoder } from '../src/embeddings/sentence-encoder';
import { cuesWith, shippedScreen } from '../src/domain/harm-screen';
import { harmSemanticFileSchema, type HarmSemanticModel } from '../src/domain/harm-semantic';

/**
 * Learns the harm screen's semantic layer (src/data/harm-semantic.json)
 * from the labelled set's training splits:
 *
 *   node --import tsx scripts/harm-semantic.ts
 *
 * 1. Every training request is embedded with the sentence encoder the
 *    service runs (the same vectors it will see), once as written and once
 *    with a few of the fixture's harmless `contexts` sentences before or
 *    after it, as a real request carries its context; strings of context
 *    sentences alone are added as harmless. Without them the layer had
 *    only seen one-line questions, and read any long request with numbers
 *    and constraints as harmful.
 * 2. An L2-regularised logistic regression (harmful vs hard negative) is
 *    fitted by Newton's method; the regularisation, the refusal threshold
 *    and the threshold that overrules a rule are all chosen on out-of-fold
 *    scores of a 5-fold cross-validation on the training splits alone.
 * 3. Each category's centroid names the category of a semantic refusal.
 *
 * heldOut, afterRules and blind2 are never read here: they stay evaluation
 * figures (the bench and tests/unit/harm-screen.test.ts report them).
 * Deterministic: the same fixture and encoder give the same file.
 */

/** The splits learnt from (see the fixture's `about`). */
const TRAIN_SPLITS = ['tune', 'tuneAdded', 'semanticAdded'] as const;
const LAMBDAS = [0.01, 0.03, 0.1, 0.3, 1];
const FOLDS = 5;
/**
 * Share of the training hard negatives (out of fold, after cue excuses) the
 * layer may refuse on its own. Low, because on fresh wording the rules
 * already refuse some lawful requests, and a refusal ends a session while a
 * miss still meets the model's own screen.
 */
const FALSE_REFUSAL_BUDGET = 0.01;
/** Share of the training harmful requests (out of fold) a rule's refusal may be overruled on. */
const OVERRULE_RECALL_COST = 0.02;
/**
 * Cues anywhere in a request that excuse a semantic refusal: the plainly
 * lawful or defensive ones ("legally", "how to spot fake reviews", "pay
 * equity"). Not the positional `prevention` and `negation`, which the rules
 * read against the act's place, nor the broad `victim` ("… about us"),
 * `own_side` and `about_others`, which in a whole request excuse too much
 * ("make the journalist who wrote about us afraid"). `stance` (reporting,
 * refusing, putting right) is written for the whole request already.
 */
const EXCUSED_BY = ['legality', 'defence', 'fair_treatment', 'stance'];
const NEVER_OVERRULED = ['self_harm'];
/** Context sentences added to each training request's copy: between these, at random. */
const CONTEXT_SENTENCES = [1, 5] as const;
/** Harmless examples made of context sentences alone. */
const CONTEXT_ONLY = 200;
/** The fixture's older name for a category. */
const RENAMED: Record<string, string> = { privacy_intrusion: 'intrusion' };

interface Example {
  split: string;
  text: string;
  harmful: boolean;
  category: string;
  /** The written example this one was made from (its own index if written): a copy stays in its original's fold. */
  origin: number;
}

interface Fixture {
  contexts: string[];
  harmful: Record<string, { text: string; category: string }[]>;
  benign: Record<string, string[]>;
}

const fixture = (): Fixture => JSON.parse(readFileSync(new URL('../tests/fixtures/harm-screen.json', import.meta.url), 'utf8')) as Fixture;

function writtenExamples(set: Fixture): Omit<Example, 'origin'>[] {
  return TRAIN_SPLITS.flatMap((split) => [
    ...set.harmful[split]!.map((h) => ({ split, text: h.text, harmful: true, category: RENAMED[h.category] ?? h.category })),
    ...set.benign[split]!.map((text) => ({ split, text, harmful: false, category: 'ok' })),
  ]);
}

/** The written examples, each followed by its copy with context around it, then context alone (deterministic). */
function trainingExamples(set: Fixture, random: () => number): Example[] {
  const written = writtenExamples(set).map((e, origin) => ({ ...e, origin }));
  const pick = (min: number, max: number) => {
    const n = min + Math.floor(random() * (max - min + 1));
    return Array.from({ length: n }, () => set.contexts[Math.floor(random() * set.contexts.length)]!).join(' ');
  };
  const withContext = written.map((e) => {
    const context = pick(...CONTEXT_SENTENCES);
    return { ...e, split: `${e.split}+context`, text: random() < 0.5 ? `${e.text}\n${context}` : `${context}\n${e.text}` };
  });
  const contextOnly = Array.from({ length: CONTEXT_ONLY }, (_, i) => ({
    split: 'contexts',
    text: pick(2, 6),
    harmful: false,
    category: 'ok',
    origin: written.length + i,
  }));
  return [...written, ...withContext, ...contextOnly];
}

// ─────────────── logistic regression (Newton's method, L2 on the weights) ───────────────

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** Solves A x = b for symmetric positive definite A (Cholesky); A is overwritten. */
function solveSpd(A: Float64Array[], b: Float64Array): Float64Array {
  const n = b.length;
  for (let j = 0; j < n; j++) {
    const rj = A[j]!;
    let d = rj[j]!;
    for (let k = 0; k < j; k++) d -= rj[k]! * rj[k]!;
    rj[j] = Math.sqrt(d);
    for (let i = j + 1; i < n; i++) {
      const ri = A[i]!;
      let s = ri[j]!;
      for (let k = 0; k < j; k++) s -= ri[k]! * rj[k]!;
      ri[j] = s / rj[j]!;
    }
  }
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= A[i]![k]! * y[k]!;
    y[i] = s / A[i]![i]!;
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < n; k++) s -= A[k]![i]! * x[k]!;
    x[i] = s / A[i]![i]!;
  }
  return x;
}

/** Weights then bias (last), minimising log loss + λ/2 |w|² (the bias is not penalised). */
function fitLogistic(X: Float64Array[], y: boolean[], lambda: number): Float64Array {
  const d = X[0]!.length + 1;
  const row = (x: Float64Array) => Float64Array.from([...x, 1]);
  const rows = X.map(row);
  const w = new Float64Array(d);
  for (let iter = 0; iter < 50; iter++) {
    const g = new Float64Array(d);
    const H = Array.from({ length: d }, () => new Float64Array(d));
    rows.forEach((x, n) => {
      const p = sigmoid(x.reduce((s, xi, i) => s + xi * w[i]!, 0));
      const r = p - (y[n] ? 1 : 0);
      const c = p * (1 - p);
      for (let i = 0; i < d; i++) {
        g[i]! += r * x[i]!;
        const ci = c * x[i]!;
        const Hi = H[i]!;
        for (let j = 0; j <= i; j++) Hi[j]! += ci * x[j]!;
      }
    });
    for (let i = 0; i < d - 1; i++) {
      g[i]! += lambda * w[i]!;
      H[i]![i]! += lambda;
    }
    const step = solveSpd(H, g); // only the lower triangle is read
    let largest = 0;
    for (let i = 0; i < d; i++) {
      w[i]! -= step[i]!;
      largest = Math.max(largest, Math.abs(step[i]!));
    }
    if (largest < 1e-8) break;
  }
  return w;
}

const probability = (w: Float64Array, x: Float64Array) => sigmoid(x.reduce((s, xi, i) => s + xi * w[i]!, w[x.length]!));

// ─────────────── choosing the settings out of fold ───────────────

/** A seeded generator (mulberry32), so the copies and folds are the same on every run. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Each example's fold: a fixed shuffle of the written examples, a copy in its original's fold. */
function folds(origins: number[], random: () => number): number[] {
  const n = Math.max(...origins) + 1;
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const foldOf = new Array<number>(n);
  order.forEach((origin, k) => (foldOf[origin] = k % FOLDS));
  return origins.map((o) => foldOf[o]!);
}

function outOfFold(X: Float64Array[], y: boolean[], lambda: number, fold: number[]): number[] {
  const scores = new Array<number>(X.length).fill(0);
  for (let f = 0; f < FOLDS; f++) {
    const train = X.flatMap((_, i) => (fold[i] === f ? [] : [i]));
    const w = fitLogistic(
      train.map((i) => X[i]!),
      train.map((i) => y[i]!),
      lambda,
    );
    X.forEach((x, i) => fold[i] === f && (scores[i] = probability(w, x)));
  }
  return scores;
}

/** The lowest threshold at which at most `budget` of the negatives score at or above it. */
function thresholdFor(negatives: number[], budget: number): number {
  const sorted = [...negatives].sort((a, b) => b - a);
  const allowed = Math.floor(budget * sorted.length);
  // Just above the first negative that would exceed the budget.
  return sorted[allowed]! + 1e-6;
}

const share = (xs: boolean[]) => xs.filter(Boolean).length / Math.max(1, xs.length);
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

async function main(): Promise<void> {
  const set = fixture();
  const examples = trainingExamples(set, seeded(20261125));
  const written = examples.map((e, i) => e.origin === i && e.split !== 'contexts');
  const screen = shippedScreen();
  const excused = examples.map((e) => [...cuesWith(screen, e.text)].some((c) => EXCUSED_BY.includes(c)));
  const t0 = performance.now();
  const encoder = await createSentenceEncoder();
  if (encoder.name !== SENTENCE_ENCODER_NAME) throw new Error(`unexpected encoder ${encoder.name}`);
  const vectors = await encoder.embed(examples.map((e) => e.text));
  console.log(`embedded ${examples.length} requests (${written.filter(Boolean).length} as written) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const X = vectors.map((v) => Float64Array.from(v));
  const y = examples.map((e) => e.harmful);
  const fold = folds(
    examples.map((e) => e.origin),
    seeded(7),
  );

  let best: { lambda: number; recall: number; scores: number[]; refuseAt: number } | undefined;
  for (const lambda of LAMBDAS) {
    const scores = outOfFold(X, y, lambda, fold);
    // Within budget on the written hard negatives and on the copies with context alike. A
    // cue-excused request is never refused by this layer, so it does not count against the budget.
    const negatives = (asWritten: boolean) => scores.filter((_, i) => !y[i] && !excused[i] && written[i] === asWritten);
    const refuseAt = Math.max(thresholdFor(negatives(true), FALSE_REFUSAL_BUDGET), thresholdFor(negatives(false), FALSE_REFUSAL_BUDGET));
    const refused = scores.map((s, i) => s >= refuseAt && !excused[i]);
    const of = (harmful: boolean, asWritten: boolean) => share(refused.filter((_, i) => y[i] === harmful && written[i] === asWritten));
    const recall = of(true, true);
    console.log(
      `λ ${lambda}: out of fold, as written: recall ${pct(recall)}, false refusals ${pct(of(false, true))}; ` +
        `with context: ${pct(of(true, false))}, ${pct(of(false, false))} (refuse at ${refuseAt.toFixed(3)})`,
    );
    if (!best || recall > best.recall) best = { lambda, recall, scores, refuseAt };
  }
  const { lambda, scores, refuseAt } = best!;
  const harmfulScores = scores.filter((_, i) => y[i] && written[i]).sort((a, b) => a - b);
  const overruleBelow = harmfulScores[Math.floor(OVERRULE_RECALL_COST * harmfulScores.length)]!;
  const overruled = share(scores.filter((_, i) => !y[i] && written[i]).map((s) => s < overruleBelow));
  console.log(`chosen λ ${lambda}; a rule is overruled below ${overruleBelow.toFixed(4)} (out of fold: ${pct(OVERRULE_RECALL_COST)} of harmful requests, ${pct(overruled)} of hard negatives)`);

  const w = fitLogistic(X, y, lambda);
  const categories = [...new Set(examples.filter((e) => e.harmful).map((e) => e.category))].sort();
  const centroids = Object.fromEntries(
    categories.map((c) => {
      const members = X.filter((_, i) => written[i] && examples[i]!.category === c);
      const mean = Array.from(members[0]!, (_, k) => members.reduce((s, x) => s + x[k]!, 0) / members.length);
      const norm = Math.hypot(...mean);
      return [c, mean.map((x) => round(x / norm, 5))];
    }),
  );
  const trainedOn = Object.fromEntries(
    TRAIN_SPLITS.map((split) => {
      const of = examples.filter((e, i) => written[i] && e.split === split);
      return [split, { harmful: of.filter((e) => e.harmful).length, benign: of.filter((e) => !e.harmful).length }];
    }),
  );
  const model: HarmSemanticModel = {
    about:
      'Generated by scripts/harm-semantic.ts: the harm screen\'s semantic layer, a logistic regression over the sentence encoder\'s vector of a request (src/domain/harm-semantic.ts). Learnt from the fixture splits in `trainedOn` only, each request also with harmless context sentences (the fixture\'s `contexts`) around it; the settings in `chosen` come from a 5-fold cross-validation on them. Do not edit by hand: regenerate.',
    encoder: SENTENCE_ENCODER_NAME,
    trainedOn,
    chosen: {
      contextSentences: set.contexts.length,
      copiesWithContext: written.filter(Boolean).length,
      contextOnly: CONTEXT_ONLY,
      lambdas: LAMBDAS,
      lambda,
      folds: FOLDS,
      falseRefusalBudget: FALSE_REFUSAL_BUDGET,
      outOfFoldRecall: round(best!.recall, 4),
      overruleRecallCost: OVERRULE_RECALL_COST,
      outOfFoldNegativesOverruled: round(overruled, 4),
    },
    refuseAt: round(refuseAt, 6),
    overruleBelow: round(overruleBelow, 6),
    neverOverruled: NEVER_OVERRULED,
    excusedBy: EXCUSED_BY,
    bias: round(w[w.length - 1]!, 6),
    weights: [...w.subarray(0, w.length - 1)].map((x) => round(x, 6)),
    centroids,
  };
  harmSemanticFileSchema.parse(model);
  writeFileSync(new URL('../src/data/harm-semantic.json', import.meta.url), `${JSON.stringify(model)}\n`);
  console.log(`wrote src/data/harm-semantic.json (${categories.length} categories, ${model.weights.length} weights)`);
}

await main();
