/**
 * A scriptable local stand-in for the Anthropic Messages API, faithful enough
 * on the wire (JSON bodies, SSE events, error envelopes, retry headers) that the
 * real SDK runs against it unmodified. It keeps a prompt cache the way the API
 * does (src/llm/prompt-cache.ts) and reports its reads and writes in the usage,
 * unless a scripted reply gives its own figures.
 */
import type { ServerResponse } from 'node:http';
import { DEFAULT_PRICES, minCacheableTokens } from '../../src/config/config';
import { PromptCache, PromptCacheError, type CacheableParams, type CacheUsage } from '../../src/llm/prompt-cache';
import { estimateTokens } from '../../src/memory/tokens';
import { chunk, nextId, sendJson, splitWords, startFakeServer, type FakeServer, type ReplyControl, type RecordedRequest } from './fake-server';

export { splitWords };

export interface FakeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

type ReplyTiming = ReplyControl;
export type FakeTextReply = ReplyTiming & { text: string; stopReason?: string; usage?: Partial<FakeUsage> };
export type FakeToolReply = ReplyTiming & {
  toolInput: Record<string, unknown>;
  /** Defaults to the tool the request forced (tool_choice), else the first tool. */
  toolName?: string;
  stopReason?: string;
  usage?: Partial<FakeUsage>;
};
export type FakeErrorReply = ReplyTiming & {
  status: number;
  /** Defaults to the real envelope `{ type: 'error', error: { type, message } }` for the status. */
  body?: object;
  headers?: Record<string, string>;
};
export type FakeReply = FakeTextReply | FakeToolReply | FakeErrorReply;

/** The subset of the request body tests look at. */
export interface FakeRequestBody {
  model?: string;
  max_tokens?: number;
  stream?: boolean;
  system?: Array<{ type: string; text: string; cache_control?: { type: string } }>;
  messages?: Array<{ role: string; content: unknown }>;
  tools?: Array<{ name: string; description?: string; input_schema: Record<string, unknown> }>;
  tool_choice?: { type: string; name?: string };
  [k: string]: unknown;
}

export type FakeRequest = RecordedRequest<FakeRequestBody>;
export type FakeAnthropic = FakeServer<FakeRequestBody, FakeReply> & {
  cache: PromptCache;
  /** The usage of every successful answer, in the order sent. */
  usages: FakeUsage[];
};

export interface FakeAnthropicOptions {
  /** The prompt cache's clock (default Date.now). */
  now?: () => number;
  /** A model's minimum cacheable prefix (default: the built-in price table's, by class for unknown models). */
  minTokens?: (model: string) => number;
}

const DEFAULT_REPLY: FakeTextReply = { text: 'ok' };

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export function errorBody(status: number, message = `fake error ${status}`, type?: string): object {
  return { type: 'error', error: { type: type ?? ERROR_TYPES[status] ?? 'api_error', message } };
}

/** Answers a request when nothing is enqueued; the default is a fixed text reply. */
export type Responder = (body: FakeRequestBody) => FakeReply;

export async function startFakeAnthropic(responder: Responder = () => DEFAULT_REPLY, opts: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const cache = new PromptCache({
    countTokens: estimateTokens,
    minTokens: opts.minTokens ?? ((model) => minCacheableTokens(DEFAULT_PRICES[model], model)),
  });
  const now = opts.now ?? Date.now;
  const usages: FakeUsage[] = [];
  const server = await startFakeServer<FakeRequestBody, FakeReply>(
    {
      route: (method, path) => method === 'POST' && path.startsWith('/v1/messages'),
      notFound: (res, method, path) => sendJson(res, 404, errorBody(404, `no route ${method} ${path}`), {}),
      respond: (res, req, reply) => {
        const usage = respond(res, req, reply, cache, now());
        if (usage) usages.push(usage);
      },
    },
    responder,
  );
  return Object.assign(server, { cache, usages });
}

/** The request as the cache sees it: the wire body is Messages params already. */
const cacheable = (req: FakeRequestBody): CacheableParams => ({
  model: req.model ?? 'claude-fake',
  tools: req.tools ?? [],
  tool_choice: req.tool_choice,
  system: req.system ?? [],
  messages: (req.messages ?? []) as CacheableParams['messages'],
});

/** Sends the answer; returns its usage when it was a message (not an error). */
function respond(res: ServerResponse, req: FakeRequestBody, reply: FakeReply, cache: PromptCache, now: number): FakeUsage | undefined {
  if ('status' in reply) {
    sendJson(res, reply.status, reply.body ?? errorBody(reply.status), reply.headers ?? {});
    return undefined;
  }
  let cached: CacheUsage;
  try {
    // The answer begins now, so this request's writes are readable by the next one at once.
    cached = cache.request(cacheable(req), now);
  } catch (err) {
    if (!(err instanceof PromptCacheError)) throw err;
    sendJson(res, 400, errorBody(400, err.message), {});
    return undefined;
  }
  const n = nextId();
  const id = `msg_fake_${n}`;
  const model = req.model ?? 'claude-fake';
  const isTool = 'toolInput' in reply;
  const usage: FakeUsage = {
    ...cached,
    output_tokens: estimateTokens(isTool ? JSON.stringify(reply.toolInput) : reply.text),
    ...reply.usage,
  };
  const toolName = isTool ? (reply.toolName ?? req.tool_choice?.name ?? req.tools?.[0]?.name ?? 'tool') : '';
  const stopReason = reply.stopReason ?? (isTool ? 'tool_use' : 'end_turn');
  const block = isTool
    ? { type: 'tool_use', id: `toolu_fake_${n}`, name: toolName, input: reply.toolInput }
    : { type: 'text', text: reply.text, citations: null };

  if (!req.stream) {
    sendJson(
      res,
      200,
      {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [block],
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      },
      {},
    );
    return usage;
  }

  // SSE: the same event sequence and shapes the real API streams.
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${id}` });
  const send = (event: string, data: object): void => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  send('message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  if (isTool) {
    send('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: `toolu_fake_${n}`, name: toolName, input: {} },
    });
    for (const part of chunk(JSON.stringify(reply.toolInput), 8)) {
      send('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: part },
      });
    }
  } else {
    send('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '', citations: null },
    });
    send('ping', { type: 'ping' });
    for (const part of splitWords(reply.text)) {
      send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: part } });
    }
  }
  send('content_block_stop', { type: 'content_block_stop', index: 0 });
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: {
      output_tokens: usage.output_tokens,
      input_tokens: usage.input_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens,
    },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
  return usage;
}
