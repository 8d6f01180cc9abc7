import { simulate } from './src/llm/simulated/simulated-provider';
const j = (purpose: string, key: string, hints: Record<string, unknown>) => JSON.parse(simulate({ key, purpose, hints }));
for (const [problem, context] of [
  ['Should I name my startup FooBar or BarFoo?', ''],
  ['How do I succeed?', ''],
  ['Should I hire a designer?', ''],
  ['Should we mislead customers about the safety of our heaters to avoid a recall?', ''],
  ['How do I build, launch, price, hire for and fund my product over the next year?', ''],
]) {
  console.log('=====', problem);
  const st = j('problem_statement', 'seed5:intake#1', { problem, context });
  console.log(JSON.stringify(st));
  const d = j('decompose', 'seed5:decompose#1', { problem, context, vague: st.vague, domains: st.domains });
  console.log('atomic', d.atomic, d.rationale);
  for (const sp of d.subProblems) console.log(' ', sp.id, sp.complexity, JSON.stringify(sp.dependsOn), sp.domains.join('/'), '|', sp.title, '|', sp.goal);
}
