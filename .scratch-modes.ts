import { debateMode } from './src/llm/simulated/generators';
const out: Record<string, string[]> = { polarised: [], groupthink: [], normal: [] };
for (let i = 0; i < 40; i++) out[debateMode(`seed${i}`, 'sp2')]!.push(`seed${i}`);
console.log(JSON.stringify(out));
