import { render, type RenderedPrompt, type Template } from '../llm/prompts';
import type { ModelCall } from './call';

/** What every prompt of a session carries: the decision, its context, and the bounded case memory. */
export interface SessionFrame {
  problem: string;
  context: string;
  caseMemory: string;
  /** The stable part of the case (statement, assumptions, the person's answers) that board prompts read before the record. */
  board?: string;
}

/** A call's prompt: its template rendered from the session frame and the call's own variables. */
export function renderCall<I>(call: ModelCall<I, unknown>, input: I, templates: Map<string, Template>, frame: SessionFrame): RenderedPrompt {
  const t = templates.get(call.template);
  if (!t) throw new Error(`prompt template ${call.template} is missing from prompts/`);
  const prompt = render(t, { board: '', ...frame, ...call.vars(input) });
  return call.cached === false ? { ...prompt, cacheAfter: [] } : prompt;
}
