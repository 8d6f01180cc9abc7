/**
 * A scriptable local stand-in for an OpenAI-compatible Chat Completions API
 * (POST /v1/chat/completions), faithful enough on the wire (JSON bodies, SSE
 * chunks ending in `[DONE]`, usage chunks, error envelopes, retry headers)
 * that the real `openai` SDK runs against it unmodified. Its base URL for the
 * SDK is `${url}/v1`.
 */
import type { ServerResponse } from 'node:http';
import { chunk, nextId, sendJson, splitWords, startFakeServer, type FakeServer, type ReplyControl, type RecordedRequest } from './fake-server';

export interface FakeOpenAiUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Reported as prompt_tokens_details.cached_tokens (a part of prompt_tokens). */
  cached_tokens: number;
}

type ReplyTiming = ReplyControl;
export type FakeOpenAiTextReply = ReplyTiming & { text: string; finishReason?: string; refusal?: string; usage?: Partial<FakeOpenAiUsage> };
export type FakeOpenAiToolReply = ReplyTiming & {
  /** The function's arguments: an object (serialised) or raw text (to send malformed JSON). */
  toolArgs: Record<string, unknown> | string;
  /** Defaults to the function the request forced (tool_choice), else the first tool. */
  toolName?: string;
  finishReason?: string;
  usage?: Partial<FakeOpenAiUsage>;
};
export type FakeOpenAiErrorReply = ReplyTiming & {
  status: number;
  /** Defaults to the real envelope `{ error: { message, type, param, code } }` for the status. */
  body?: object;
  headers?: Record<string, string>;
};
/** A stream that starts well and then carries an error object, as OpenAI does mid-stream. */
export type FakeOpenAiStreamErrorReply = ReplyTiming & { streamError: { message: string; type: string; code?: string } };
export type FakeOpenAiReply = FakeOpenAiTextReply | FakeOpenAiToolReply | FakeOpenAiErrorReply | FakeOpenAiStreamErrorReply;

/** The subset of the request body tests look at. */
export interface FakeOpenAiRequestBody {
  model?: string;
  max_tokens?: number;
  max_completion_tokens?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: Array<{ role: string; content: string }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters: Record<string, unknown> } }>;
  tool_choice?: { type: string; function?: { name: string } } | string;
  response_format?: { type: string; json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean } };
  [k: string]: unknown;
}

export type FakeOpenAiRequest = RecordedRequest<FakeOpenAiRequestBody>;
export type FakeOpenAi = FakeServer<FakeOpenAiRequestBody, FakeOpenAiReply> & { baseURL: string };

const ERRORS: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'server_error', code: null },
};

export function openAiErrorBody(status: number, message = `fake error ${status}`, type?: string, code?: string | null): object {
  const d = ERRORS[status] ?? { type: 'server_error', code: null };
  return { error: { message, type: type ?? d.type, param: null, code: code === undefined ? d.code : code } };
}

/** OpenAI's out-of-quota 429: retrying does not help. */
export const insufficientQuotaBody = (): object =>
  openAiErrorBody(429, 'You exceeded your current quota, please check your plan and billing details.', 'insufficient_quota', 'insufficient_quota');

export type OpenAiResponder = (body: FakeOpenAiRequestBody) => FakeOpenAiReply;

export async function startFakeOpenAi(responder: OpenAiResponder = () => ({ text: 'ok' })): Promise<FakeOpenAi> {
  const server = await startFakeServer<FakeOpenAiRequestBody, FakeOpenAiReply>(
    {
      route: (method, path) => method === 'POST' && path.startsWith('/v1/chat/completions'),
      notFound: (res, method, path) => sendJson(res, 404, openAiErrorBody(404, `no route ${method} ${path}`), {}, 'x-request-id'),
      respond,
    },
    responder,
  );
  return Object.assign(server, { baseURL: `${server.url}/v1` });
}

function forcedName(req: FakeOpenAiRequestBody): string {
  const choice = req.tool_choice;
  if (choice && typeof choice === 'object' && choice.function) return choice.function.name;
  return req.tools?.[0]?.function.name ?? 'tool';
}

function respond(res: ServerResponse, req: FakeOpenAiRequestBody, reply: FakeOpenAiReply): void {
  if ('status' in reply) {
    sendJson(res, reply.status, reply.body ?? openAiErrorBody(reply.status), reply.headers ?? {}, 'x-request-id');
    return;
  }
  const n = nextId();
  const base = { id: `chatcmpl-fake${n}`, created: 1_700_000_000, model: req.model ?? 'gpt-fake', system_fingerprint: 'fp_fake' };
  const u: FakeOpenAiUsage = { prompt_tokens: 10, completion_tokens: 5, cached_tokens: 0, ...('usage' in reply ? reply.usage : {}) };
  const usage = {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.prompt_tokens + u.completion_tokens,
    prompt_tokens_details: { cached_tokens: u.cached_tokens, audio_tokens: 0 },
  };
  const isTool = 'toolArgs' in reply;
  const args = isTool ? (typeof reply.toolArgs === 'string' ? reply.toolArgs : JSON.stringify(reply.toolArgs)) : '';
  const call = { id: `call_fake${n}`, type: 'function', function: { name: isTool ? (reply.toolName ?? forcedName(req)) : '', arguments: args } };
  // A forced function call finishes with `stop` on OpenAI, not `tool_calls`.
  const finish = 'finishReason' in reply && reply.finishReason ? reply.finishReason : 'stop';
  const text = 'text' in reply ? reply.text : '';
  const refusal = 'refusal' in reply ? (reply.refusal ?? null) : null;

  if (!req.stream) {
    const message = { role: 'assistant', content: isTool ? null : text, refusal, ...(isTool && { tool_calls: [call] }) };
    sendJson(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish, logprobs: null }], usage }, {}, 'x-request-id');
    return;
  }

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': `req_fake_${n}` });
  const send = (data: object | string): void => void res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  const delta = (d: object, finishReason: string | null = null): void =>
    send({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: d, finish_reason: finishReason, logprobs: null }] });
  delta({ role: 'assistant', content: '', refusal: null });
  if ('streamError' in reply) {
    delta({ content: 'partial ' });
    send({ error: { ...reply.streamError, param: null, code: reply.streamError.code ?? null } });
    res.end();
    return;
  }
  if (isTool) {
    delta({ tool_calls: [{ index: 0, ...call, function: { name: call.function.name, arguments: '' } }] });
    for (const part of chunk(args, 8)) delta({ tool_calls: [{ index: 0, function: { arguments: part } }] });
  } else if (refusal) {
    delta({ refusal });
  } else {
    for (const part of splitWords(text)) delta({ content: part });
  }
  delta({}, finish);
  if (req.stream_options?.include_usage) send({ ...base, object: 'chat.completion.chunk', choices: [], usage });
  send('[DONE]');
  res.end();
}
