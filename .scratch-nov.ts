import { simulate } from './src/llm/simulated/simulated-provider';
import { PERSONAS } from './src/domain/personas';
import { createLocalEmbedder, embedSync } from './src/embeddings/local-embedder';
import { calibratedSimilarity, novelty } from './src/domain/metrics';
import { debateMode } from './src/llm/simulated/generators';
const sim = calibratedSimilarity(createLocalEmbedder().calibration);
const j = (purpose: string, key: string, hints: Record<string, unknown>) => JSON.parse(simulate({ key, purpose, hints }));
const P = PERSONAS.slice(0, 4);
const codes = P.map((p) => p.code);
const R = 8;
const nov: Record<string, number[][]> = {};
const SP = [
  { title: 'Pricing and monetisation model', goal: 'Decide how to charge for the product so that revenue arrives before the cash runs out.' },
  { title: 'Target customers and first channel', goal: 'Decide which customers to serve first and which channel will reach them at an acceptable cost per customer.' },
  { title: 'Overall direction: rewrite your application in Rust or stick with Python', goal: 'Decide which path to take: rewrite your application in Rust or stick with Python.' },
];
for (let i = 0; i < 40; i++) for (const [k, base] of SP.entries()) {
  const id = `sp${k + 1}`;
  const seed = `seed${i}`; const sp = { id, ...base, context: '', complexity: 6 };
  const positions = new Map<string, string>(); const history: { vector: number[]; round: number }[] = [];
  let q: string | null = null; const per: number[] = [];
  for (let round = 1; round <= R; round++) {
    const speakers = round === 1 ? P : P.filter((_, x) => (x + round) % 4 !== 0);
    const turns = speakers.map((p) => ({ persona: p.code, ...j(round === 1 ? 'opening_statement' : 'contribution', `${seed}:${id}/r${round}/${p.code}#1`, { persona: { code: p.code, name: p.name, riskTolerance: p.riskTolerance, optimism: p.optimism, concerns: p.typicalConcerns }, subProblem: sp, round, maxRounds: R, phase: round === 1 ? 'opening' : round <= 4 ? 'early' : 'middle', previous: positions.get(p.code) ?? null, panel: codes, others: [...positions].filter(([c]) => c !== p.code).map(([persona, position]) => ({ persona, position })), question: q }) }));
    const vecs = turns.map((t) => embedSync(t.text, 256));
    const ns = vecs.map((v) => novelty(v, history, round, 3, sim));
    per.push(ns.reduce((a, b) => a + b, 0) / ns.length);
    for (const v of vecs) history.push({ vector: v, round });
    for (const t of turns) positions.set(t.persona, t.position);
    const f = j('facilitator_round', `${seed}:${id}/r${round}/facilitator#1`, { subProblem: sp, round, maxRounds: R, panel: codes, contributions: turns });
    q = f.nextQuestion;
    if (process.env.SHOW && i === 0 && k === 0) for (const t of turns) console.log(round, t.persona, t.text);
  }
  (nov[debateMode(seed, id)] ??= []).push(per);
}
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
for (const m of Object.keys(nov)) console.log(m.padEnd(10), nov[m]!.length, Array.from({ length: R }, (_, r) => avg(nov[m]!.map((c) => c[r]!)).toFixed(2)).join(' '));
