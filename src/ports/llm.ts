/**
 * The LLM port: one raw call to a model. Structured output, repair, truncation
 * retries, pricing and the ledger live above it (src/llm/gateway.ts), so every
 * adapter stays a thin translation of this shape.
 */

export type Tier = 'fast' | 'smart';

export interface LlmMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface LlmRequest {
  /** Resolved model id (from the tier's config). */
  model: string;
  /**
   * System prompt blocks, the session's shared record first (rules, the
   * decision, the board record oldest first), so that calls of a session
   * share a long prefix a provider can cache.
   */
  system: string[];
  /**
   * Indexes of the `system` blocks after which a cache breakpoint goes (at
   * most four, ascending): the ends of the shared prefix that earlier calls
   * of the session are likely to have written. Adapters without explicit
   * caching ignore them.
   */
  cacheAfter: number[];
  messages: LlmMessage[];
  maxTokens: number;
  temperature?: number;
  /**
   * When set, the model must answer with one JSON object matching this JSON
   * Schema; adapters return that object serialized as `text`. The caller
   * still validates it.
   */
  json?: ToolSpec;
  /** Aborting cancels the in-flight request; the adapter rejects with LlmError kind 'aborted'. */
  signal?: AbortSignal;
  /** Deterministic identity of this call (step key + attempt); the simulated adapter seeds from it. */
  key: string;
  /** What the call is for (e.g. 'opening_statement'); the simulated adapter dispatches on it. */
  purpose: string;
  /**
   * The typed input of the catalogue call the prompt was rendered from
   * (src/calls). Real adapters ignore it; the simulated one answers from it.
   */
  input?: unknown;
  /**
   * When given, the adapter streams and reports text deltas as they arrive.
   * The first one also says the answer has begun, from when a provider's
   * prompt cache serves what this request wrote (src/app/engine/lead-first.ts).
   */
  onDelta?: (delta: string) => void;
}

/** One structured answer the model may give: a name, what it is for, and its JSON Schema. */
export interface ToolSpec {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal' | 'other';

export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface LlmResponse {
  text: string;
  model: string;
  stopReason: StopReason;
  usage: LlmUsage;
  /** Transport attempts this call took, SDK retries included (1 = no retry). */
  attempts: number;
}

/** The adapters a model reference may name (`openai:gpt-…`); `fake` is the test double's. */
export type ProviderName = 'anthropic' | 'openai' | 'simulated' | 'fake';

export interface LlmProvider {
  readonly name: ProviderName;
  generate(req: LlmRequest): Promise<LlmResponse>;
}

export type LlmErrorKind =
  | 'rate_limited'
  | 'spend_limit'
  | 'overloaded'
  | 'server'
  | 'bad_request'
  | 'auth'
  | 'network'
  | 'aborted'
  | 'invalid_output'
  | 'truncated'
  | 'refused';

/** The one error every adapter and the gateway throw; `retryable` is the single retry decision. */
export class LlmError extends Error {
  override name = 'LlmError';
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
