import type { LlmProvider, LlmRequest, LlmResponse } from '../../ports/llm';

/** A scripted answer: a (partial) response, an error to throw, or a function of the request giving one. */
export type Script = Partial<LlmResponse> | Error | ((req: LlmRequest) => Promise<Partial<LlmResponse>> | Partial<LlmResponse>);

interface Rule {
  match: (req: LlmRequest) => boolean;
  script: Script;
  times: number;
}

/**
 * The test double of the LLM port: answers from rules (first match wins,
 * each for a number of times), else from the inner provider. Records every
 * request. Used to inject faults and to pause a run at a chosen call.
 */
export class ScriptedProvider implements LlmProvider {
  readonly name = 'fake' as const;
  readonly requests: LlmRequest[] = [];
  private readonly rules: Rule[] = [];

  constructor(private readonly inner?: LlmProvider) {}

  when(match: (req: LlmRequest) => boolean, script: Script, times = Infinity): this {
    this.rules.push({ match, script, times });
    return this;
  }

  async generate(req: LlmRequest): Promise<LlmResponse> {
    this.requests.push(req);
    const rule = this.rules.find((r) => r.times > 0 && r.match(req));
    if (!rule) {
      if (!this.inner) throw new Error(`no script for ${req.purpose} (${req.key})`);
      return this.inner.generate(req);
    }
    rule.times -= 1;
    const s = rule.script;
    if (s instanceof Error) throw s;
    const answer = typeof s === 'function' ? await s(req) : s;
    return {
      text: '',
      model: req.model,
      stopReason: 'end_turn',
      usage: { inputTokens: 10, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
      attempts: 1,
      ...answer,
    };
  }
}
