import { simulate } from './src/llm/simulated/simulated-provider';
import { PERSONAS } from './src/domain/personas';
import { debateMode } from './src/llm/simulated/generators';
const j = (purpose: string, key: string, hints: Record<string, unknown>) => JSON.parse(simulate({ key, purpose, hints }));
const P = PERSONAS.slice(Number(process.env.OFF ?? 0), Number(process.env.OFF ?? 0) + 4);
const codes = P.map((p) => p.code);
const R = 7;
const byMode: Record<string, number[][]> = {};
const agreeByMode: Record<string, number[][]> = {};
let rr = 0, n = 0;
for (let i = 0; i < 60; i++) for (const id of ['sp1', 'sp2', 'sp3']) {
  const seed = `seed${i}`; const sp = { id, title: 'Pricing and monetisation model', goal: 'Decide how to charge.', context: '', complexity: 6 };
  const positions = new Map<string, string>(); const cs: number[] = []; const ag: number[] = [];
  let q: string | null = null;
  for (let round = 1; round <= R; round++) {
    const turns = P.map((p) => ({ persona: p.code, ...j(round === 1 ? 'opening_statement' : 'contribution', `${seed}:${id}/r${round}/${p.code}#1`, { persona: { code: p.code, riskTolerance: p.riskTolerance, optimism: p.optimism }, subProblem: sp, round, maxRounds: R, phase: round === 1 ? 'opening' : round <= 4 ? 'early' : 'middle', previous: positions.get(p.code) ?? null, panel: codes, others: [...positions].filter(([c]) => c !== p.code).map(([persona, position]) => ({ persona, position })), question: q }) }));
    for (const t of turns) { positions.set(t.persona, t.position); if (round >= 2 && round <= 6) { n++; if (t.researchRequest) rr++; } }
    let a = 0, d = 0; for (const t of turns) { a += t.agreesWith.length; d += t.disagreesWith.length; }
    cs.push(a + d ? d / (a + d) : 0);
    const f = j('facilitator_round', `${seed}:${id}/r${round}/facilitator#1`, { subProblem: sp, round, maxRounds: R, panel: codes, contributions: turns });
    ag.push(f.agreement); q = f.nextQuestion;
  }
  const m = debateMode(seed, id);
  (byMode[m] ??= []).push(cs); (agreeByMode[m] ??= []).push(ag);
}
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
for (const m of Object.keys(byMode)) {
  console.log(m, byMode[m]!.length, 'conflict by round', Array.from({ length: R }, (_, r) => avg(byMode[m]!.map((c) => c[r]!)).toFixed(2)).join(' '));
  console.log(m, 'agreement by round', Array.from({ length: R }, (_, r) => avg(agreeByMode[m]!.map((c) => c[r]!)).toFixed(2)).join(' '));
  console.log(m, 'conflict<0.2 at r5+ share', (byMode[m]!.filter((c) => c.slice(4).some((x) => x < 0.2)).length / byMode[m]!.length).toFixed(2));
}
console.log('research rate', (rr / n).toFixed(3));
