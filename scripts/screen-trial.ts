/**
 * Records the model's own screen on a split of the harm screen's labelled set
 * (tests/fixtures/harm-screen.json): each request goes out as the intake call
 * the service makes first (`problem_statement`, rendered and validated as a
 * session renders it, through the configured provider and the real SDK), and
 * the answer's `safety` is kept. Pointed at the model relay, whoever plays the
 * model answers every request as it would come from a stranger; the order is
 * shuffled so harmful and benign requests arrive mixed.
 * `tests/bench/harm-screen.ts` reports the rules, the model and the two in
 * series from what this writes.
 *
 *   LLM_PROVIDER=anthropic ANTHROPIC_API_KEY=sk-relay ANTHROPIC_BASE_URL=http://127.0.0.1:8787 \
 *   ANTHROPIC_TIMEOUT_MS=3600000 ANTHROPIC_MAX_RETRIES=0 \
 *   node --import tsx scripts/screen-trial.ts --split blind6 --out tests/fixtures/harm-model-screen.json
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { NO_CONTEXT, problemStatementCall } from '../src/calls/intake';
import { renderCall } from '../src/calls/render';
import { loadConfig } from '../src/config/config';
import { createGateway } from '../src/llm/provider';
import { loadPrompts } from '../src/llm/prompts';
import { screenRequest } from '../src/domain/guardrails';
import { LlmError } from '../src/ports/llm';
import { loadHarmScreenSet, SPLITS } from '../tests/support/harm-screen-set';
import { MODEL_SCREEN_PATH, type ModelScreenFile, type ModelVerdict } from '../tests/support/harm-model-screen';

const { values } = parseArgs({ options: { split: { type: 'string' }, out: { type: 'string', default: MODEL_SCREEN_PATH }, by: { type: 'string', default: 'a helper playing the model through the model relay' } } });
const split = values.split as (typeof SPLITS)[number];
if (!SPLITS.includes(split)) {
  console.error(`usage: screen-trial --split <${SPLITS.join('|')}> [--out FILE] [--by WHO]`);
  process.exit(2);
}

const set = loadHarmScreenSet();
const items = [
  ...set.harmful[split].map((h, i) => ({ kind: 'harmful' as const, i, text: h.text })),
  ...set.benign[split].map((text, i) => ({ kind: 'benign' as const, i, text })),
];
// A fixed shuffle (mulberry32): the same split always arrives in the same mixed order.
let seed = 0x5eed;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
for (let k = items.length - 1; k > 0; k--) {
  const j = Math.floor(rand() * (k + 1));
  [items[k], items[j]] = [items[j]!, items[k]!];
}

const config = loadConfig();
const gateway = createGateway(config);
const prompts = loadPrompts();
const template = prompts.get(problemStatementCall.template)!;

const empty = () => ({ harmful: set.harmful[split].map(() => null), benign: set.benign[split].map(() => null) }) as Record<'harmful' | 'benign', (ModelVerdict | null)[]>;
const verdicts = empty();
// The rules' refusals go out a second time with their finding, as HARM_SCREEN_FLAG=confirm sends them.
const flagged = empty();
const save = () => {
  // Read again on every save: a trial of another split may be writing the same file.
  const file: ModelScreenFile = existsSync(values.out!) ? JSON.parse(readFileSync(values.out!, 'utf8')) : { about: '', splits: {} };
  file.splits[split] = {
    prompt: `${template.name} v${template.version}`,
    model: gateway.chainOf(problemStatementCall, { problem: '', context: '', mode: 'auto' })[0]!,
    by: values.by!,
    recorded: new Date().toISOString().slice(0, 10),
    harmful: verdicts.harmful as ModelVerdict[],
    benign: verdicts.benign as ModelVerdict[],
    flagged,
  };
  writeFileSync(values.out!, `${JSON.stringify(file, null, 2)}\n`);
};

const ask = async (text: string, key: string, flag?: { category: string; reason: string }): Promise<ModelVerdict> => {
  const input = { problem: text, context: '', mode: 'auto' as const, ...(flag && { flagged: flag }) };
  try {
    const prompt = renderCall(problemStatementCall, input, prompts, { problem: text, context: NO_CONTEXT, caseMemory: '' });
    const out = await gateway.invoke(problemStatementCall, input, prompt, { key, record: () => {} });
    return { allowed: out.safety.allowed, reason: out.safety.reason, ...(out.safety.category && { category: out.safety.category }) };
  } catch (err) {
    // A refusal by the API itself (stop_reason "refusal") is the model's screen saying no.
    if (err instanceof LlmError && err.kind === 'refused') return { allowed: false, reason: 'the model refused the request (stop_reason refusal)' };
    throw err;
  }
};

const jobs = [
  ...items.map((item) => ({ item, flag: undefined as { category: string; reason: string } | undefined })),
  ...items.flatMap((item) => {
    const r = screenRequest(item.text);
    return r.allowed ? [] : [{ item, flag: { category: r.category, reason: r.reason } }];
  }),
];
let done = 0;
await Promise.all(
  jobs.map(async ({ item, flag }, n) => {
    const v = await ask(item.text, `screen-trial:${split}:${n}`, flag);
    (flag ? flagged : verdicts)[item.kind][item.i] = v;
    done += 1;
    if (done % 10 === 0 || done === jobs.length) {
      save();
      console.log(`${done}/${jobs.length}`);
    }
  }),
);
save();
