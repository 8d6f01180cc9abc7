/**
 * Responders that make the fake model servers answer like a board: each
 * structured request gets the simulated board's answer for its schema,
 * recovered from the wire alone (the fakes never see the typed input).
 */
import { simulate } from '../../src/llm/simulated/simulated-provider';
import type { FakeReply, FakeRequestBody } from './fake-anthropic';
import type { FakeOpenAiReply, FakeOpenAiRequestBody } from './fake-openai';

/**
 * The schema filler flips booleans by seed; a board that found a plain business
 * question harmful or too vague would end the session early for no reason the
 * test is about, so the intake answer is made to let it through.
 */
function answer(key: unknown, name: string, schema: Record<string, unknown>): string {
  const out = JSON.parse(simulate({ key: JSON.stringify(key), purpose: name, json: { name, description: '', schema } })) as Record<string, unknown>;
  if (out.safety && typeof out.safety === 'object') out.safety = { ...out.safety, allowed: true };
  if (typeof out.vague === 'boolean') out.vague = false;
  return JSON.stringify(out);
}

/** The tool a request forces (a board call sends the whole shared set and names its own), else its first. */
export const forcedTool = (body: FakeRequestBody) => body.tools?.find((t) => t.name === body.tool_choice?.name) ?? body.tools?.[0];

/** Anthropic wire: the forced tool's input; the usage is the fake server's own count, cache included. */
export function simulatedAnthropicResponder(body: FakeRequestBody): FakeReply {
  const tool = forcedTool(body);
  if (!tool) return { text: 'plain answer' };
  const toolInput = JSON.parse(answer(body.messages, tool.name, tool.input_schema)) as Record<string, unknown>;
  return { toolInput, toolName: tool.name };
}

/** OpenAI wire: the forced function's arguments, or a json_schema answer as content; some cached prompt tokens. */
export function simulatedOpenAiResponder(body: FakeOpenAiRequestBody): FakeOpenAiReply {
  const usage = { prompt_tokens: 1500, completion_tokens: 200, cached_tokens: 600 };
  const forced = body.tool_choice && typeof body.tool_choice === 'object' ? body.tool_choice.function?.name : undefined;
  const fn = (body.tools?.find((t) => t.function.name === forced) ?? body.tools?.[0])?.function;
  if (fn) return { toolArgs: JSON.parse(answer(body.messages, fn.name, fn.parameters)) as Record<string, unknown>, usage };
  const format = body.response_format?.json_schema;
  if (format) return { text: answer(body.messages, format.name, format.schema), usage };
  return { text: 'plain answer', usage };
}
