import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CATALOGUE, type AnyCall } from '../../src/calls';
import { toJsonSchema } from '../../src/llm/gateway';
import { loadPrompts } from '../../src/llm/prompts';
import { withCatalogueTable } from '../../src/calls/table';
import { edgeAnswer, type EdgeMode } from '../support/edge-answers';

/** Inputs that shape an output schema (a vote's option ids); every other call's schema ignores its input. */
const shapingInput: Record<string, unknown> = {
  vote: { options: [{ id: 'A' }, { id: 'B' }, { id: 'C' }, { id: 'D' }] },
  lessons_rank: { candidates: Array.from({ length: 8 }, (_, i) => ({ id: `0b6c3a52-6f0e-4c1e-9a7d-00000000000${i}` })) },
};
const schemaOf = (c: AnyCall) => c.output(shapingInput[c.purpose] as never);

describe('the call catalogue', () => {
  const calls = Object.values(CATALOGUE);

  it('declares every call once, each with a template that exists', () => {
    const templates = loadPrompts();
    expect(new Set(calls.map((c) => c.purpose)).size).toBe(calls.length);
    for (const c of calls) expect(templates.has(c.template), `${c.purpose} → prompts/${c.template}.md`).toBe(true);
  });

  it('accepts every answer its tool schema allows, at the edges, for every call (tool schema and validation are one contract)', () => {
    for (const c of calls) {
      const schema = schemaOf(c);
      const json = toJsonSchema(schema);
      fc.assert(
        fc.property(fc.constantFrom<EdgeMode>('max', 'min', 'mixed'), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (mode, seed) => {
          const answer = edgeAnswer(json, mode, seed);
          const r = schema.safeParse(answer);
          if (!r.success) throw new Error(`${c.purpose} (${mode}, seed ${seed}): ${r.error.message}\n${JSON.stringify(answer).slice(0, 400)}`);
        }),
        { numRuns: 40 },
      );
    }
  });

  it('gives each call room for the longest answer its schema allows', () => {
    for (const c of calls) {
      const longest = JSON.stringify(edgeAnswer(toJsonSchema(schemaOf(c)), 'max', 1));
      // About four characters a token, as the providers count; a tool call adds a little framing.
      const tokens = Math.ceil(longest.length / 4) + 20;
      expect(tokens, `${c.purpose}: the longest valid answer needs ~${tokens} tokens, it gets ${c.maxTokens}`).toBeLessThanOrEqual(c.maxTokens);
    }
  });
});

describe('the README', () => {
  it("states each call's budget from the catalogue (run `npm run docs:calls` when it changes)", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(withCatalogueTable(readme)).toBe(readme);
  });
});
