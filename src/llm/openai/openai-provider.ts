/**
 * The `openai` adapter of the LLM port: Chat Completions on the official SDK,
 * so it speaks to OpenAI and to the OpenAI-compatible servers (Ollama, vLLM,
 * LM Studio, OpenRouter) through OPENAI_BASE_URL. Transport retries are the
 * SDK's (408/409/429/5xx, honouring `retry-after`); this adapter only vetoes
 * retrying out-of-quota 429s and maps errors to LlmError, as the Anthropic one does.
 */
import OpenAI, { APIConnectionError, APIError, APIUserAbortError, OpenAIError } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { LlmError, type LlmProvider, type LlmRequest, type LlmResponse, type LlmUsage, type StopReason } from '../../ports/llm';
import { countingAttempts, guardedFetch, kindOfStatus, patientFetch } from '../transport';
import { isStrictSchema, schemaInstruction } from './structured';

/**
 * How a JSON answer is asked for, by what the model and server support:
 * `tools` a forced function call (OpenAI, vLLM with a tool parser, OpenRouter
 * models with tool support); `json_schema` a response_format schema (OpenAI,
 * vLLM, Ollama, LM Studio: constrained decoding); `json_object` plain JSON
 * mode with the schema in the prompt (any server with JSON mode).
 */
export type StructuredMode = 'tools' | 'json_schema' | 'json_object';

export interface OpenAiProviderOptions {
  apiKey: string;
  baseURL?: string;
  maxRetries: number;
  timeoutMs: number;
  structured: StructuredMode;
  /** OpenAI's current field is `max_completion_tokens`; some compatible servers only honour `max_tokens`. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
}

type Params = ChatCompletionCreateParamsBase;

function buildParams(req: LlmRequest, opts: OpenAiProviderOptions): Params {
  const system = req.json && opts.structured === 'json_object' ? [...req.system, schemaInstruction(req.json.schema)] : req.system;
  // One system message, stable blocks first: OpenAI caches the longest repeated prefix on its own.
  const messages: ChatCompletionMessageParam[] = [
    ...(system.length ? [{ role: 'system' as const, content: system.join('\n\n') }] : []),
    ...req.messages.map((m) => ({ role: m.role, content: m.content })),
  ];
  const params: Params = { model: req.model, messages, [opts.maxTokensField]: req.maxTokens };
  if (req.temperature !== undefined) params.temperature = req.temperature;
  const json = req.json;
  if (!json) return params;
  if (opts.structured === 'tools') {
    params.tools = [{ type: 'function', function: { name: json.name, description: json.description, parameters: json.schema } }];
    params.tool_choice = { type: 'function', function: { name: json.name } };
  } else if (opts.structured === 'json_schema') {
    // Strict only where OpenAI accepts it (every property required, no extras); otherwise the schema guides.
    params.response_format = {
      type: 'json_schema',
      json_schema: { name: json.name, description: json.description, schema: json.schema, strict: isStrictSchema(json.schema) },
    };
  } else {
    params.response_format = { type: 'json_object' };
  }
  return params;
}

const FINISH: Record<string, StopReason> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

function usageOf(u: CompletionUsage | null | undefined): LlmUsage {
  const cached = u?.prompt_tokens_details?.cached_tokens ?? 0;
  // OpenAI counts cached tokens inside prompt_tokens; the port (like Anthropic) counts them apart, so each is priced once.
  return { inputTokens: Math.max(0, (u?.prompt_tokens ?? 0) - cached), outputTokens: u?.completion_tokens ?? 0, cacheReadTokens: cached, cacheWriteTokens: 0 };
}

interface Answer {
  content: string;
  toolArgs: string | null;
  refusal: boolean;
  finish: string | null;
  usage: CompletionUsage | null | undefined;
}

function toResponse(req: LlmRequest, a: Answer, attempts: number): LlmResponse {
  // No tool call (a refusal, a cut-off, a server that answered in text): hand back the text; the gateway validates.
  const text = a.toolArgs ?? a.content;
  const stopReason = a.refusal ? 'refusal' : (FINISH[a.finish ?? ''] ?? 'other');
  // The configured id, not the dated one the API echoes: prices and the ledger are keyed by what was configured.
  return { text, model: req.model, stopReason, usage: usageOf(a.usage), attempts };
}

function fromCompletion(req: LlmRequest, c: ChatCompletion): Answer {
  const choice = c.choices[0];
  const msg = choice?.message;
  const call = msg?.tool_calls?.find((t) => t.type === 'function' && (!req.json || t.function.name === req.json.name));
  return {
    content: msg?.content ?? '',
    toolArgs: call && call.type === 'function' ? call.function.arguments : null,
    refusal: Boolean(msg?.refusal),
    finish: choice?.finish_reason ?? null,
    usage: c.usage,
  };
}

async function fromStream(stream: AsyncIterable<ChatCompletionChunk>, onDelta: (d: string) => void): Promise<Answer> {
  const a: Answer = { content: '', toolArgs: null, refusal: false, finish: null, usage: null };
  for await (const chunk of stream) {
    // With include_usage the last chunk has no choices, only usage.
    if (chunk.usage) a.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    const d = choice.delta;
    if (d.content) {
      a.content += d.content;
      onDelta(d.content);
    }
    if (d.refusal) a.refusal = true;
    for (const t of d.tool_calls ?? []) {
      const part = t.function?.arguments ?? '';
      a.toolArgs = (a.toolArgs ?? '') + part;
      if (part) onDelta(part);
    }
    if (choice.finish_reason) a.finish = choice.finish_reason;
  }
  if (a.finish === null) throw new LlmError('network', 'openai: the stream ended before a finish_reason', true);
  return a;
}

/** Maps anything the SDK throws onto the port's single error type. */
export function toLlmError(err: unknown, signal?: AbortSignal): LlmError {
  if (err instanceof LlmError) return err;
  const opts = { cause: err };
  if (signal?.aborted || err instanceof APIUserAbortError) {
    return new LlmError('aborted', 'openai: request aborted', false, undefined, opts);
  }
  // Timeouts are connection errors in the SDK: retryable, like a dropped connection.
  if (err instanceof APIConnectionError) return new LlmError('network', `openai: ${err.message}`, true, undefined, opts);
  if (err instanceof APIError) {
    const status = err.status;
    const msg = `openai: ${err.message}`;
    if (status === undefined) {
      // An error object in the middle of an SSE stream: classify by its type or code.
      const tag = `${err.type ?? ''} ${err.code ?? ''}`;
      if (/insufficient_quota|billing/.test(tag)) return new LlmError('spend_limit', msg, false, undefined, opts);
      if (/rate_limit/.test(tag)) return new LlmError('rate_limited', msg, true, undefined, opts);
      if (/invalid_request/.test(tag)) return new LlmError('bad_request', msg, false, undefined, opts);
      return new LlmError('server', msg, true, undefined, opts);
    }
    // The SDK keeps the inner `error` object; the spend check reads the envelope.
    // OpenAI answers 503 when a model is overloaded ("Slow Down"); Anthropic's overload is its own 529.
    if (status === 503) return new LlmError('overloaded', msg, true, status, opts);
    const { kind, retryable } = kindOfStatus(status, { error: err.error });
    return new LlmError(kind, msg, retryable, status, opts);
  }
  if (err instanceof OpenAIError) return new LlmError('network', `openai: ${err.message}`, true, undefined, opts);
  const message = err instanceof Error ? err.message : String(err);
  return new LlmError('server', `openai: ${message}`, false, undefined, opts);
}

export function createOpenAiProvider(opts: OpenAiProviderOptions): LlmProvider {
  // One client for every call; each counts its own attempts (countingAttempts).
  const client = new OpenAI({
    apiKey: opts.apiKey,
    ...(opts.baseURL !== undefined && { baseURL: opts.baseURL }),
    maxRetries: opts.maxRetries,
    timeout: opts.timeoutMs,
    fetch: guardedFetch(patientFetch(opts.timeoutMs)),
  });
  return {
    name: 'openai',
    async generate(req: LlmRequest): Promise<LlmResponse> {
      let attempts = 0;
      const params = buildParams(req, opts);
      const reqOpts: Parameters<typeof client.chat.completions.create>[1] = { ...(req.signal && { signal: req.signal }), fetchOptions: countingAttempts(() => attempts++) };
      try {
        const onDelta = req.onDelta;
        const answer = onDelta
          ? await fromStream(await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } }, reqOpts), onDelta)
          : fromCompletion(req, await client.chat.completions.create({ ...params, stream: false }, reqOpts));
        return toResponse(req, answer, attempts);
      } catch (err) {
        throw toLlmError(err, req.signal);
      }
    },
  };
}
