import { simulate } from './src/llm/simulated/simulated-provider';
import { PERSONAS } from './src/domain/personas';
import { createLocalEmbedder, embedSync, tokens } from './src/embeddings/local-embedder';
import { calibratedSimilarity } from './src/domain/metrics';
const sim = calibratedSimilarity(createLocalEmbedder().calibration);
const j = (purpose: string, key: string, hints: Record<string, unknown>) => JSON.parse(simulate({ key, purpose, hints }));
const P = PERSONAS.slice(0, 4); const codes = P.map((p) => p.code);
const sp = { id: 'sp1', title: 'Pricing and monetisation model', goal: 'Decide how to charge for the product so that revenue arrives before the cash runs out.', context: '', complexity: 6 };
const seed = process.env.SEED ?? 'seed0';
const positions = new Map<string, string>(); const hist: { text: string; v: number[]; round: number; who: string }[] = []; let q: string | null = null;
for (let round = 1; round <= 4; round++) {
  const turns = P.map((p) => ({ persona: p.code, ...j(round === 1 ? 'opening_statement' : 'contribution', `${seed}:sp1/r${round}/${p.code}#1`, { persona: { code: p.code, name: p.name, riskTolerance: p.riskTolerance, optimism: p.optimism, concerns: p.typicalConcerns }, subProblem: sp, round, maxRounds: 7, phase: 'early', previous: positions.get(p.code) ?? null, panel: codes, others: [...positions].filter(([c]) => c !== p.code).map(([persona, position]) => ({ persona, position })), question: q }) }));
  for (const t of turns) {
    const v = embedSync(t.text, 256);
    let best = { s: 0, h: undefined as any };
    for (const h of hist) { const s = sim(v, h.v) * 0.5 ** ((round - h.round) / 3); if (s > best.s) best = { s, h }; }
    if (round >= 3) {
      const a = new Set(tokens(t.text)); const b = new Set(tokens(best.h.text));
      console.log(`R${round} ${t.persona} novelty=${(1 - best.s).toFixed(2)} vs R${best.h.round} ${best.h.who}\n  shared: ${[...a].filter((x) => b.has(x)).join(' ')}`);
    }
  }
  for (const t of turns) { hist.push({ text: t.text, v: embedSync(t.text, 256), round, who: t.persona }); positions.set(t.persona, t.position); }
  q = j('facilitator_round', `${seed}:sp1/r${round}/facilitator#1`, { subProblem: sp, round, maxRounds: 7, panel: codes, contributions: turns }).nextQuestion;
}
