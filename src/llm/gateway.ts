import { createHash } from 'node:crypto';
import { z } from 'zod';
import { priceFor, tierPricesOf, type Price, type TierPrices } from '../config/config';
import type { LedgerEntry } from '../db/session-store';
import type { ModelRouting, Role } from '../domain/models';
import { LlmError, type LlmProvider, type LlmRequest, type LlmResponse, type LlmUsage, type ProviderName, type Tier } from '../ports/llm';
import type { ModelCall } from '../calls/call';
import type { RenderedPrompt } from './prompts';
import { ModelRouter, type BreakerOptions, type FallbackNotice, type Target } from './router';

export interface CallSpec<T> {
  tier: Tier;
  /** Who speaks, and for which seat: with the tier they pick the model chain (src/domain/models.ts). */
  role?: Role;
  seat?: string;
  /** Cost bucket in the ledger (intake, decomposition, debate, voting, synthesis, …). */
  phase: string;
  purpose: string;
  /** The tool's name for a structured answer; `purpose` when unset (see `ModelCall.tool`). */
  tool?: string;
  prompt: RenderedPrompt;
  maxTokens: number;
  /** Structured output: validated with zod, one repair attempt. Omit for free text. */
  schema?: z.ZodType<T>;
  temperature?: number;
  /** The typed input the prompt was rendered from; the simulated and scripted providers answer from it. */
  input?: unknown;
  /** Expected output tokens, for the ledger row written before the call; defaults to a quarter of maxTokens. */
  estimatedOutputTokens?: number;
}

export interface CallContext {
  /** Deterministic step key; with the attempt number it seeds the simulated provider. */
  key: string;
  signal?: AbortSignal;
  /**
   * Writes a call's ledger row before it is made (estimated, outcome
   * `pending`) and returns its id; the settled entry `record` receives then
   * carries that id. Without it, entries are only recorded after the call.
   */
  open?(entry: LedgerEntry): Promise<number>;
  /** Receives one ledger entry per raw model call, failed ones included. */
  record(entry: LedgerEntry): void;
  onDelta?: (delta: string) => void;
  /** Told when a later model of the chain answers because an earlier one was down. */
  onFallback?: (notice: FallbackNotice) => void;
}

export interface CallResult<T> {
  output: T;
  text: string;
}

export interface GatewayOptions {
  /** The model of each tier (a bare id on the default provider, or `provider:model`): what answers when no routing names a call. */
  models: Record<Tier, string>;
  /** USD per MTok by model id, or by `provider:model` where two providers share an id. */
  prices: Record<string, Price>;
  /** The deployment's models per role and seat (MODELS); a session's own override is layered over it. */
  routing?: ModelRouting;
  /** Adapters for model references that name a provider other than the default one. */
  providers?: Partial<Record<ProviderName, LlmProvider>>;
  /** When a model of a fallback chain is skipped for a while. */
  breaker?: BreakerOptions;
  /** Ceiling for the room a truncated answer is retried with. */
  maxTokensCeiling?: number;
}

export function costOf(price: Price | undefined, u: LlmUsage): number {
  if (!price) return 0;
  return (
    (u.inputTokens * price.input +
      u.outputTokens * price.output +
      u.cacheReadTokens * price.cacheRead +
      u.cacheWriteTokens * price.cacheWrite) /
    1e6
  );
}

/** Pulls the JSON object out of a reply, tolerating a Markdown fence or prose around it. */
export function extractJson(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = fenced ? fenced[1]! : text;
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end < start) throw new Error('no JSON object in the reply');
  return JSON.parse(body.slice(start, end + 1));
}

/**
 * The one way the engine talks to a model: picks the tier's model, asks for
 * structured output, validates it, repairs once, retries a truncated answer
 * once with more room, and prices and records every raw call.
 */
export class LlmGateway {
  private readonly router: ModelRouter;

  constructor(
    readonly provider: LlmProvider,
    private readonly opts: GatewayOptions,
    /** A session's own models (`settings.models`), over the deployment's. */
    private readonly session?: ModelRouting,
    router?: ModelRouter,
  ) {
    this.router = router ?? new ModelRouter(provider, opts.providers ?? {}, opts.models, opts.breaker ?? { consecutiveFailures: 3, halfOpenAfterMs: 30_000 });
  }

  /** The gateway a session runs on: its override layered over the deployment's, circuit breakers shared. */
  forSession(models: ModelRouting | undefined): LlmGateway {
    return models ? new LlmGateway(this.provider, this.opts, models, this.router) : this;
  }

  /** The model chain a call would go to, first choice first, as configured (`provider:model` or a bare id). */
  chainOf<I>(call: ModelCall<I, unknown>, input: I): string[] {
    return this.route({ tier: call.tier, role: call.role, ...(call.seat && { seat: call.seat(input) }) }).map((t) => t.ref);
  }

  private route(spec: { tier: Tier; role?: Role; seat?: string }): Target[] {
    return this.router.targets([this.session, this.opts.routing], spec);
  }

  get models(): Record<Tier, string> {
    return this.opts.models;
  }

  /** List prices of the models behind each tier (zero for an unpriced model). */
  tierPrices(): TierPrices {
    return tierPricesOf(this.opts.models, this.opts.prices, this.provider.name);
  }

  /** Runs a call from the catalogue: its tier, room, phase and output contract come from the declaration. */
  invoke<I, O>(call: ModelCall<I, O>, input: I, prompt: RenderedPrompt, ctx: CallContext): Promise<O> {
    const spec = {
      tier: call.tier,
      role: call.role,
      ...(call.seat && { seat: call.seat(input) }),
      phase: call.phase,
      purpose: call.purpose,
      ...(call.tool && { tool: call.tool }),
      prompt,
      maxTokens: call.maxTokens,
      schema: call.output(input),
      input,
      estimatedOutputTokens: call.estimate.output,
    };
    return this.call(spec, ctx).then(
      (r) => r.output,
    );
  }

  async call<T = string>(spec: CallSpec<T>, ctx: CallContext): Promise<CallResult<T>> {
    const chain = this.route(spec);
    const base: LlmRequest = {
      model: chain[0]!.model,
      system: spec.prompt.system,
      cacheAfter: spec.prompt.cacheAfter ?? (spec.prompt.system.length ? [spec.prompt.system.length - 1] : []),
      messages: [{ role: 'user', content: spec.prompt.user }],
      maxTokens: spec.maxTokens,
      purpose: spec.purpose,
      key: ctx.key,
      ...(spec.temperature !== undefined && { temperature: spec.temperature }),
      ...(spec.input !== undefined && { input: spec.input }),
      ...(spec.schema && {
        json: toolSpec(spec.tool ?? spec.purpose, spec.schema),
      }),
      ...(ctx.signal && { signal: ctx.signal }),
      ...(ctx.onDelta && { onDelta: ctx.onDelta }),
    };
    let attempt = 0;
    let req = base;
    let repaired = false;
    let widened = false;
    for (;;) {
      attempt += 1;
      const res = await this.routed(spec, ctx, chain, { ...req, key: `${ctx.key}#${attempt}` }, attempt);
      if (res.stopReason === 'refusal') {
        throw new LlmError('refused', `the model refused the ${spec.purpose} request`, false);
      }
      if (res.stopReason === 'max_tokens') {
        const ceiling = this.opts.maxTokensCeiling ?? 8192;
        if (widened || req.maxTokens >= ceiling) {
          throw new LlmError('truncated', `${spec.purpose}: the answer was cut off at ${req.maxTokens} tokens`, false);
        }
        widened = true;
        req = { ...req, maxTokens: Math.min(ceiling, req.maxTokens * 2) };
        continue;
      }
      if (!spec.schema) return { output: res.text as T, text: res.text };
      const parsed = parse(spec.schema, res.text);
      if (parsed.ok) return { output: parsed.value, text: res.text };
      if (repaired) {
        throw new LlmError('invalid_output', `${spec.purpose}: the answer did not match its schema after one repair: ${parsed.error}`, false);
      }
      repaired = true;
      req = {
        ...req,
        messages: [
          ...base.messages,
          { role: 'assistant', content: res.text },
          {
            role: 'user',
            content: `That answer is invalid: ${parsed.error}\nReply again with only the corrected JSON object, nothing else.`,
          },
        ],
      };
    }
  }

  /** One attempt, answered by the first model of the chain that is up. */
  private routed<T>(spec: CallSpec<T>, ctx: CallContext, chain: Target[], req: LlmRequest, attempt: number): Promise<LlmResponse> {
    return this.router.walk(
      chain,
      (t) => this.raw(spec, ctx, t.provider, { ...req, model: t.model }, attempt),
      (from, to, reason, detail) =>
        ctx.onFallback?.({ purpose: spec.purpose, role: spec.role ?? null, seat: spec.seat ?? null, from: from.ref, to: to.ref, reason, detail }),
    );
  }

  private async raw<T>(spec: CallSpec<T>, ctx: CallContext, provider: LlmProvider, req: LlmRequest, attempt: number): Promise<LlmResponse> {
    const started = performance.now();
    // Once per raw call (the pending row and the settled one carry the same): the stable prefix is the whole board
    // record, several KB, and every call of the session sends one.
    const prefix = req.system.slice(0, (req.cacheAfter.at(-1) ?? -1) + 1).join('\n');
    const prefixTokens = Math.ceil(prefix.length / 4);
    const prefixHash = createHash('sha1').update(prefix).digest('hex').slice(0, 16);
    const entry = (usage: LlmUsage, outcome: string, model = req.model): LedgerEntry => ({
      stepKey: ctx.key,
      provider: provider.name,
      model,
      phase: spec.phase,
      purpose: spec.purpose,
      promptVersion: spec.prompt.version,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheReadTokens: usage.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
      prefixTokens,
      prefixHash,
      costUsd: costOf(priceFor(this.opts.prices, provider.name, model), usage),
      latencyMs: Math.round(performance.now() - started),
      attempt,
      outcome,
    });
    // Written ahead, so a call in flight at a crash is still in the ledger (as abandoned, with this estimate).
    const sent = req.system.reduce((n, b) => n + b.length, Math.max(0, req.system.length - 1)) + req.messages.reduce((n, m) => n + m.content.length, 0) + (req.json ? jsonLength(req.json.schema) : 0);
    const estimated: LlmUsage = { inputTokens: Math.ceil(sent / 4), outputTokens: spec.estimatedOutputTokens ?? Math.ceil(req.maxTokens / 4), cacheReadTokens: 0, cacheWriteTokens: 0 };
    const id = ctx.open ? await ctx.open(entry(estimated, 'pending')) : undefined;
    const settled = (e: LedgerEntry): LedgerEntry => (id === undefined ? e : { ...e, id });
    try {
      const res = await provider.generate(req);
      const outcome = res.stopReason === 'max_tokens' ? 'truncated' : res.stopReason === 'refusal' ? 'refused' : 'ok';
      ctx.record(settled(entry(res.usage, outcome, res.model)));
      return res;
    } catch (err) {
      ctx.record(settled(entry({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, `error:${errorKind(err)}`)));
      throw err;
    }
  }
}

const errorKind = (err: unknown) => (err instanceof LlmError ? err.kind : 'unknown');

function parse<T>(schema: z.ZodType<T>, text: string): { ok: true; value: T } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = extractJson(text);
  } catch (e) {
    return { ok: false, error: `not valid JSON (${(e as Error).message})` };
  }
  const r = schema.safeParse(json);
  return r.success ? { ok: true, value: r.data } : { ok: false, error: z.prettifyError(r.error) };
}

const schemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();

/** A tool schema's length as JSON, for the estimate written ahead of a call: the schemas are cached objects. */
const lengths = new WeakMap<object, number>();
function jsonLength(schema: object): number {
  let n = lengths.get(schema);
  if (n === undefined) lengths.set(schema, (n = JSON.stringify(schema).length));
  return n;
}

const toolSpec = (name: string, schema: z.ZodType) => ({ name, description: `Answer for ${name}`, schema: toJsonSchema(schema) });

export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  let js = schemaCache.get(schema);
  if (!js) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
    js = rest;
    schemaCache.set(schema, js);
  }
  return js;
}
