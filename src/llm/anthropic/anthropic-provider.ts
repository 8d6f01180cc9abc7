/**
 * The `anthropic` adapter of the LLM port: a thin translation onto the official
 * SDK. Transport retries are the SDK's (408/409/429/5xx/529, honouring
 * `retry-after`); this adapter only vetoes retrying spend-limit 429s and maps
 * errors to LlmError.
 */
import Anthropic, {
  APIConnectionError,
  APIError,
  APIUserAbortError,
  AnthropicError,
} from '@anthropic-ai/sdk';
import type {
  Message,
  MessageCreateParamsNonStreaming,
  TextBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import {
  LlmError,
  type LlmProvider,
  type LlmRequest,
  type LlmResponse,
  type StopReason,
} from '../../ports/llm';
import { countingAttempts, guardedFetch, kindOfStatus, patientFetch } from '../transport';

export interface AnthropicProviderOptions {
  apiKey: string;
  baseURL?: string;
  maxRetries: number;
  timeoutMs: number;
}

const STOP_REASONS = new Set<string>(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'refusal']);

/** The API's limit on `cache_control` breakpoints per request. */
const MAX_BREAKPOINTS = 4;

/** The Messages params a port request becomes; the simulated board feeds the same params to its prompt-cache emulator. */
export function buildParams(req: LlmRequest): MessageCreateParamsNonStreaming {
  const marked = new Set(req.cacheAfter.slice(-MAX_BREAKPOINTS));
  const system: TextBlockParam[] = req.system.map((text, i) =>
    marked.has(i) ? { type: 'text', text, cache_control: { type: 'ephemeral' } } : { type: 'text', text },
  );
  const params: MessageCreateParamsNonStreaming = {
    model: req.model,
    max_tokens: req.maxTokens,
    system,
    messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
  };
  // `temperature` is deliberately not sent: API version 2026-10-21 (what SDK 1.12 speaks) dropped it.
  if (req.json) {
    // Structured output via a forced tool, sent alone: the model must "call" it with the object. (A
    // tool set shared by every call would share the cache across purposes, but compatible servers such
    // as the model relay answer with the first tool listed, whatever `tool_choice` forces.)
    params.tools = [{ name: req.json.name, description: req.json.description, input_schema: { ...req.json.schema, type: 'object' as const } }];
    params.tool_choice = { type: 'tool', name: req.json.name };
  }
  return params;
}

function toResponse(req: LlmRequest, msg: Message, attempts: number): LlmResponse {
  let text: string;
  // The forced tool's block; failing that, any tool block (a compatible server may misname the tool it was
  // forced to call): its object is what the model answered, and the schema decides whether it is right.
  const tool = req.json
    ? (msg.content.find((b) => b.type === 'tool_use' && b.name === req.json?.name) ?? msg.content.find((b) => b.type === 'tool_use'))
    : undefined;
  if (tool && tool.type === 'tool_use') {
    text = JSON.stringify(tool.input ?? {});
  } else {
    // No tool block (e.g. refusal or truncation): hand back whatever text came; the gateway validates.
    text = msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  }
  const stop = msg.stop_reason;
  const usage = msg.usage;
  return {
    text,
    model: msg.model,
    stopReason: stop !== null && STOP_REASONS.has(stop) ? (stop as StopReason) : 'other',
    usage: {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheReadTokens: usage.cache_read_input_tokens ?? 0,
      cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
    },
    attempts,
  };
}

/** Maps anything the SDK throws onto the port's single error type. */
export function toLlmError(err: unknown, signal?: AbortSignal): LlmError {
  if (err instanceof LlmError) return err;
  const opts = { cause: err };
  if (signal?.aborted || err instanceof APIUserAbortError) {
    return new LlmError('aborted', 'anthropic: request aborted', false, undefined, opts);
  }
  if (err instanceof APIConnectionError) {
    return new LlmError('network', `anthropic: ${err.message}`, true, undefined, opts);
  }
  if (err instanceof APIError) {
    const status = err.status;
    const msg = `anthropic${status ? ` ${status}` : ''}: ${err.apiMessage ?? err.message}`;
    const make = (kind: LlmError['kind'], retryable: boolean) => new LlmError(kind, msg, retryable, status, opts);
    if (status === undefined) {
      // An `error` event in the middle of an SSE stream: classify by the error type.
      if (err.type === 'overloaded_error') return make('overloaded', true);
      if (err.type === 'rate_limit_error') return make('rate_limited', true);
      if (err.type === 'billing_error') return make('spend_limit', false);
      if (err.type === 'invalid_request_error') return make('bad_request', false);
      return make('server', true);
    }
    const { kind, retryable } = kindOfStatus(status, err.error);
    return make(kind, retryable);
  }
  if (err instanceof AnthropicError) {
    // SDK-level failures without a status, e.g. a stream that ended before message_stop.
    return new LlmError('network', `anthropic: ${err.message}`, true, undefined, opts);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new LlmError('server', `anthropic: ${message}`, false, undefined, opts);
}

export function createAnthropicProvider(opts: AnthropicProviderOptions): LlmProvider {
  // One client for every call; each counts its own attempts (countingAttempts).
  const client = new Anthropic({
    apiKey: opts.apiKey,
    ...(opts.baseURL !== undefined ? { baseURL: opts.baseURL } : {}),
    maxRetries: opts.maxRetries,
    timeout: opts.timeoutMs,
    fetch: guardedFetch(patientFetch(opts.timeoutMs)),
  });
  return {
    name: 'anthropic',
    async generate(req: LlmRequest): Promise<LlmResponse> {
      let attempts = 0;
      const params = buildParams(req);
      const reqOpts: Parameters<typeof client.messages.create>[1] = { ...(req.signal && { signal: req.signal }), fetchOptions: countingAttempts(() => attempts++) };
      try {
        let msg: Message;
        const onDelta = req.onDelta;
        if (onDelta) {
          const stream = client.messages.stream(params, reqOpts);
          stream.on('text', (delta) => onDelta(delta));
          stream.on('inputJson', (partial) => onDelta(partial));
          msg = await stream.finalMessage();
        } else {
          msg = await client.messages.create(params, reqOpts);
        }
        return toResponse(req, msg, attempts);
      } catch (err) {
        throw toLlmError(err, req.signal);
      }
    },
  };
}
