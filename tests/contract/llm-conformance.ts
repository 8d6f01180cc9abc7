/**
 * One conformance suite for every adapter of the LLM port. Each adapter comes
 * with a harness that can script its next answer (over the wire for the real
 * SDK adapters, in memory for the doubles); the suite drives it through the
 * gateway, so structured output, repair, truncation, abort and every error
 * kind mean the same whichever adapter answers. An adapter that cannot be
 * scripted (the simulated board never fails) runs the part that applies.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LedgerEntry } from '../../src/db/session-store';
import { LlmGateway } from '../../src/llm/gateway';
import type { LlmErrorKind, LlmProvider, LlmRequest } from '../../src/ports/llm';
import { rejection } from '../support/llm-request';

/** The error kinds an adapter can be made to produce, and whether each may be retried later. */
export const ERROR_KINDS = {
  rate_limited: true,
  overloaded: true,
  server: true,
  network: true,
  spend_limit: false,
  bad_request: false,
  auth: false,
} as const satisfies Partial<Record<LlmErrorKind, boolean>>;
export type ScriptedKind = keyof typeof ERROR_KINDS;

export interface Script {
  /** The next answer is this object (as the adapter returns structured output). */
  json(value: Record<string, unknown>): void;
  /** The next answer is this raw text (for a structured request: an invalid answer). */
  text(text: string): void;
  /** The next answer is cut off at the token limit. */
  truncated(text: string): void;
  /** The next answer takes seconds (to abort it). */
  slow(): void;
  /** The next request fails the way this kind of error arrives (retries, if any, exhausted). */
  error(kind: ScriptedKind): void;
}

export interface Harness {
  provider: LlmProvider;
  /** Absent for an adapter that cannot be told what to answer. */
  script?: Script;
  /** Whether the adapter reports text deltas when asked to. */
  streams: boolean;
  stop(): Promise<void>;
}

const verdictSchema = z.object({ verdict: z.enum(['accept', 'decline']), confidence: z.number().min(0).max(1) });
const GOOD = { verdict: 'accept', confidence: 0.7 };
const prompt = { version: 'conformance@1', system: ['You weigh job offers.', 'Be brief.'], user: 'Should I take the job?' };
const MODEL = 'conformance-model';

/** Wraps a provider to keep every request it is given. */
function recording(inner: LlmProvider): { provider: LlmProvider; requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return { requests, provider: { name: inner.name, generate: (req) => (requests.push(req), inner.generate(req)) } };
}

/**
 * `scriptable: false` for an adapter that cannot be told what to answer (the
 * simulated board): the cases that need a scripted answer are not declared
 * for it at all, rather than declared and skipped.
 */
export function describeConformance(name: string, start: () => Promise<Harness>, { scriptable = true }: { scriptable?: boolean } = {}): void {
  describe(`LLM port conformance: ${name}`, () => {
    let h: Harness;
    let requests: LlmRequest[];
    let gateway: LlmGateway;
    let ledger: LedgerEntry[];
    const ctx = (extra: { signal?: AbortSignal; onDelta?: (d: string) => void } = {}) => ({ key: 'conf', record: (e: LedgerEntry) => void ledger.push(e), ...extra });
    const free = { tier: 'fast' as const, phase: 'debate', purpose: 'record_verdict', prompt, maxTokens: 300 };
    const structured = { ...free, schema: verdictSchema };

    beforeEach(async () => {
      h = await start();
      const rec = recording(h.provider);
      requests = rec.requests;
      ledger = [];
      gateway = new LlmGateway(rec.provider, { models: { fast: MODEL, smart: MODEL }, prices: {}, maxTokensCeiling: 4096 });
    });
    afterEach(async () => {
      await h.stop();
    });

    it('answers a structured request with an object its schema accepts, and ledgers the call', async () => {
      h.script?.json(GOOD);
      const { output } = await gateway.call(structured, ctx());
      expect(verdictSchema.safeParse(output).success).toBe(true);
      if (h.script) expect(output).toEqual(GOOD);
      expect(requests[0]!.json?.name).toBe('record_verdict');
      expect(ledger).toHaveLength(1);
      expect(ledger[0]).toMatchObject({ provider: h.provider.name, model: MODEL, outcome: 'ok', attempt: 1 });
    });

    it('answers free text, streaming deltas that add up to it when asked', async () => {
      h.script?.text('Take the job if the equity vests.');
      const deltas: string[] = [];
      const { output } = await gateway.call(free, ctx({ onDelta: (d) => deltas.push(d) }));
      expect(typeof output).toBe('string');
      expect(output.length).toBeGreaterThan(0);
      if (h.streams) expect(deltas.join('')).toBe(output);
    });

    it('rejects promptly as aborted when the signal fires', async () => {
      h.script?.slow();
      const ac = new AbortController();
      // The simulated board answers within a microtask: it must see an abort that came before.
      if (h.script) setTimeout(() => ac.abort(), 50);
      else ac.abort();
      const started = Date.now();
      const err = await rejection(gateway.call(structured, ctx({ signal: ac.signal })));
      expect([err.kind, err.retryable]).toEqual(['aborted', false]);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(ledger.at(-1)?.outcome).toBe('error:aborted');
    });

    const scripted = (title: string, body: (s: Script) => Promise<void>) => {
      if (!scriptable) return;
      it(title, async () => {
        if (!h.script) throw new Error(`${name} was declared scriptable but its harness has no script`);
        await body(h.script);
      });
    };

    scripted('repairs an invalid answer once, asking again with the error', async (s) => {
      s.text('{"verdict": "maybe"}');
      s.json(GOOD);
      const { output } = await gateway.call(structured, ctx());
      expect(output).toEqual(GOOD);
      expect(requests).toHaveLength(2);
      expect(requests[1]!.messages.at(-1)!.content).toContain('That answer is invalid');
      expect(ledger.map((e) => e.attempt)).toEqual([1, 2]);
    });

    scripted('fails as invalid_output when the repair is invalid too', async (s) => {
      s.text('not json');
      s.text('still not json');
      const err = await rejection(gateway.call(structured, ctx()));
      expect([err.kind, err.retryable]).toEqual(['invalid_output', false]);
    });

    scripted('retries a truncated answer once with twice the room', async (s) => {
      s.truncated('{"verdict": "acc');
      s.json(GOOD);
      const { output } = await gateway.call(structured, ctx());
      expect(output).toEqual(GOOD);
      expect(requests.map((r) => r.maxTokens)).toEqual([300, 600]);
      expect(ledger.map((e) => e.outcome)).toEqual(['truncated', 'ok']);
    });

    scripted('fails as truncated when the wider answer is cut off too', async (s) => {
      s.truncated('{"verdict"');
      s.truncated('{"verdict": "acc');
      const err = await rejection(gateway.call(structured, ctx()));
      expect([err.kind, err.retryable]).toEqual(['truncated', false]);
    });

    for (const [kind, retryable] of Object.entries(ERROR_KINDS) as [ScriptedKind, boolean][]) {
      scripted(`maps a ${kind} failure to LlmError ${kind} (retryable: ${retryable}) and ledgers it`, async (s) => {
        s.error(kind);
        const err = await rejection(gateway.call(structured, ctx()));
        expect([err.kind, err.retryable]).toEqual([kind, retryable]);
        expect(ledger).toHaveLength(1);
        expect(ledger[0]!.outcome).toBe(`error:${kind}`);
      });
    }
  });
}
