import { minCacheableTokens } from '../../config/config';
import { estimateTokens } from '../../memory/tokens';
import { LlmError, type LlmProvider, type LlmRequest, type LlmResponse } from '../../ports/llm';
import { buildParams } from '../anthropic/anthropic-provider';
import { PromptCache, PromptCacheError } from '../prompt-cache';
import { BOARD } from './board';
import { DEBATE } from './debate';
import { INTAKE } from './intake';
import { MEMORY } from './memory';
import { fillSchema, plainText } from './schema-fill';
import { SYNTHESIS } from './synthesis';
import { seedOf } from './text';
import { VOTING } from './voting';
import { rng } from './random';

/**
 * The simulated adapter: realistic, schema-valid, deterministic answers with
 * no API key. Everything is seeded from `req.key`, so the same request always
 * yields the same text, byte for byte.
 */

export interface SimulatedOptions {
  latencyMs: number;
  /** Share of latencyMs the delay may vary by, either way (0.3 → ±30%). */
  jitter: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * The prompt cache this board's calls share, like one organisation's on the
   * API (default: one per provider instance, priced models' minimums by class).
   */
  cache?: PromptCache;
  /** The cache's clock (default Date.now); inject one for figures that must not depend on timing. */
  now?: () => number;
}

/** A cache like the API's, with the project's token estimate and a model's documented minimum. */
export function simulatedPromptCache(minTokens: (model: string) => number = (m) => minCacheableTokens(undefined, m)): PromptCache {
  return new PromptCache({ countTokens: estimateTokens, minTokens });
}

/**
 * The share of a call's latency before its answer begins (its time to first
 * token; about a fifth of a few-hundred-token answer on a fast model). A
 * round's later speakers wait only this long for the lead's (lead-first.ts).
 */
export const FIRST_TOKEN_SHARE = 0.2;

const aborted = () => new LlmError('aborted', 'the simulated request was aborted', false);

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Waits for `wait`, but rejects as soon as the signal aborts, even if an injected sleep ignores it. */
function untilAborted(wait: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return wait;
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    wait.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) reject(aborted());
        else resolve();
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? aborted() : err);
      },
    );
  });
}

/** Every purpose the board answers, from the catalogue call's typed input. */
const ANSWERS = new Map([...INTAKE, ...BOARD, ...DEBATE, ...VOTING, ...SYNTHESIS, ...MEMORY]);

/**
 * The answer text for a request; exported for tests and tools that want it
 * without the wait. A request without its typed input (over the wire, or a
 * purpose the board does not know) is answered from its JSON schema alone.
 */
export function simulate(req: Pick<LlmRequest, 'key' | 'purpose' | 'input' | 'json'>): string {
  const r = rng(`${req.key}|${req.purpose}`);
  const answer = ANSWERS.get(req.purpose);
  if (answer && req.input !== undefined) return JSON.stringify(answer(req.input, { r, key: req.key, seed: seedOf(req.key) }));
  if (req.json) return JSON.stringify(fillSchema(req.json.schema, r));
  return plainText(r);
}

/** A few deterministic chunks, cut at spaces where possible. */
function chunks(text: string, key: string): string[] {
  const r = rng(`${key}|chunks`);
  const count = Math.min(text.length, r.int(3, 6));
  const out: string[] = [];
  let start = 0;
  for (let i = 1; i < count; i++) {
    const ideal = Math.round((text.length * i) / count);
    const space = text.indexOf(' ', ideal);
    const end = space > start && space < text.length ? space : ideal;
    if (end > start) out.push(text.slice(start, end));
    start = Math.max(start, end);
  }
  out.push(text.slice(start));
  return out.filter((c) => c.length > 0);
}

/** The cache's view of a request: the very params the anthropic adapter would send, so it follows their breakpoints. */
function lookup(cache: PromptCache, req: LlmRequest, now: number) {
  try {
    return cache.lookup(buildParams(req), now);
  } catch (err) {
    if (err instanceof PromptCacheError) throw new LlmError('bad_request', `simulated: ${err.message}`, false, 400, { cause: err });
    throw err;
  }
}

export function createSimulatedProvider(opts: SimulatedOptions): LlmProvider {
  const sleep = opts.sleep ?? defaultSleep;
  const cache = opts.cache ?? simulatedPromptCache();
  const now = opts.now ?? Date.now;
  return {
    name: 'simulated',
    async generate(req: LlmRequest): Promise<LlmResponse> {
      if (req.signal?.aborted) throw aborted();
      // Looked up when sent, written when the response begins: a round's parallel turns miss each other's writes, as on the API.
      const cached = lookup(cache, req, now());
      const spread = opts.jitter * (rng(`${req.key}|latency`).next() * 2 - 1);
      const delay = Math.max(0, Math.round(opts.latencyMs * (1 + spread)));
      const firstToken = Math.round(delay * FIRST_TOKEN_SHARE);
      // Zero latency: no timer at all, just a microtask, so a whole session runs fast.
      const pause = async (ms: number) => {
        if (ms > 0) await untilAborted(sleep(ms, req.signal), req.signal);
        else await Promise.resolve();
        if (req.signal?.aborted) throw aborted();
      };
      await pause(firstToken);
      // The answer begins: what this request wrote is readable from now on, and its first part arrives.
      cached.commit(now());
      const text = simulate(req);
      const [head, ...tail] = req.onDelta ? chunks(text, req.key) : [];
      if (head !== undefined) req.onDelta?.(head);
      if (delay > firstToken) await pause(delay - firstToken);
      for (const chunk of tail) req.onDelta?.(chunk);
      // Input as the API counts it: tools (the forced tool's schema), system and messages, split into uncached, read and written.
      const { usage } = cached;
      return {
        text,
        model: req.model,
        stopReason: 'end_turn',
        usage: {
          inputTokens: usage.input_tokens,
          outputTokens: Math.ceil(text.length / 4),
          cacheReadTokens: usage.cache_read_input_tokens,
          cacheWriteTokens: usage.cache_creation_input_tokens,
        },
        attempts: 1,
      };
    },
  };
}
