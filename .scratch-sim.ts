import { simulate } from './src/llm/simulated/simulated-provider';
import { PERSONAS } from './src/domain/personas';
const P = PERSONAS.slice(0, 4);
const codes = P.map((p) => p.code);
const j = (purpose: string, key: string, hints: Record<string, unknown>) => JSON.parse(simulate({ key, purpose, hints }));
const sp = { id: 'sp2', title: 'Target customers and first channel', goal: 'Decide which customers to serve first and which channel will reach them.', context: 'Law firms pay 3x.', complexity: 6 };
for (const seed of (process.env.SEEDS ?? 'seed4').split(',')) {
  const positions = new Map<string, string>();
  let carry: any = { moderator: null, research: [], question: null, redirect: false };
  for (let round = 1; round <= Number(process.env.ROUNDS ?? 5); round++) {
    const turns = P.map((p) => ({ persona: p.code, ...j(round === 1 ? 'opening_statement' : 'contribution', `${seed}:sp2/r${round}/${p.code}#1`, { persona: { code: p.code, name: p.name, riskTolerance: p.riskTolerance, optimism: p.optimism, concerns: p.typicalConcerns }, subProblem: sp, round, maxRounds: 7, phase: round === 1 ? 'opening' : 'early', previous: positions.get(p.code) ?? null, panel: codes, others: [...positions].filter(([c]) => c !== p.code).map(([persona, position]) => ({ persona, position })), ...carry }) }));
    for (const t of turns) positions.set(t.persona, t.position);
    const f = j('facilitator_round', `${seed}:sp2/r${round}/facilitator#1`, { subProblem: sp, round, maxRounds: 7, phase: 'early', panel: codes, contributions: turns });
    console.log(`--- ${seed} round ${round}`);
    for (const t of turns) console.log(`[${t.persona}] (${t.confidence}) +${t.agreesWith.join(',')} -${t.disagreesWith.join(',')} RR=${t.researchRequest}\n  POS: ${t.position}\n  ${t.text}\n  CLAIMS: ${JSON.stringify(t.claims)}`);
    console.log('FAC', JSON.stringify(f, null, 1));
    const kind = Number(process.env.BREAK ?? 0) === round ? 'deadlock' : f.agreement > 0.8 && round < 3 ? 'contrarian' : null;
    const moderator = kind ? { kind, text: j('moderator', `${seed}:sp2/r${round}/${kind}#1`, { kind, subProblem: sp, positions: [...positions].map(([persona, position]) => ({ persona, position })) }).text } : null;
    if (moderator) console.log('MODERATOR', kind, moderator.text);
    const rq = turns.map((t) => t.researchRequest).find(Boolean);
    const research = rq ? [{ query: rq, findings: j('research', `${seed}:sp2/r${round}/research1#1`, { query: rq, subProblem: sp }).findings }] : [];
    if (rq) console.log('RESEARCH', JSON.stringify(research));
    carry = { moderator, research, question: f.nextQuestion, redirect: f.relevance < 6 };
  }
}
