import { describe, expect, it } from 'vitest';
import { LOOKBACK_BLOCKS, PromptCache, PromptCacheError, TTL_MS, type CacheableParams } from '../../src/llm/prompt-cache';

// One token per character keeps the arithmetic visible; a 100-token minimum for model `m`, 400 for `small-haiku`.
const cache = () => new PromptCache({ countTokens: (t) => t.length, minTokens: (model) => (model.includes('haiku') ? 400 : 100) });
const EPH = { type: 'ephemeral' } as const;
const text = (t: string, marked = false) => ({ type: 'text', text: t, ...(marked && { cache_control: EPH }) });
const tool = (description: string, marked = false) => ({
  name: 'answer',
  description,
  input_schema: { type: 'object', properties: { a: { type: 'string' } } },
  ...(marked && { cache_control: EPH }),
});
const toolTokens = (description: string) => JSON.stringify({ name: 'answer', description, input_schema: tool(description).input_schema }).length;

/** Shared system (the prefix) behind a breakpoint, then a varying question. */
function req(shared: string, question: string, model = 'm'): CacheableParams {
  return { model, system: [text(shared, true)], messages: [{ role: 'user', content: question }] };
}

const A = 'a'.repeat(300);

describe('prompt cache emulator', () => {
  it('writes a prefix on the first request and reads it on the next one that shares it', () => {
    const c = cache();
    expect(c.request(req(A, 'first?'), 0)).toEqual({ input_tokens: 6, cache_read_input_tokens: 0, cache_creation_input_tokens: 300 });
    expect(c.request(req(A, 'second question?'), 1000)).toEqual({ input_tokens: 16, cache_read_input_tokens: 300, cache_creation_input_tokens: 0 });
    // Another prefix: a miss, written anew.
    expect(c.request(req('b'.repeat(300), 'first?'), 2000)).toEqual({ input_tokens: 6, cache_read_input_tokens: 0, cache_creation_input_tokens: 300 });
  });

  it('neither reads nor writes a prefix under the model minimum, and counts it all as input', () => {
    const c = cache();
    const short = 'a'.repeat(99);
    for (const t of [0, 10]) expect(c.request(req(short, 'q'), t)).toEqual({ input_tokens: 100, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    // The minimum is the model's: 300 tokens cache on `m`, not on a Haiku-class model.
    const haiku = cache();
    for (const t of [0, 10]) expect(haiku.request(req(A, 'q', 'small-haiku'), t).cache_read_input_tokens).toBe(0);
    expect(haiku.size(10)).toBe(0);
  });

  it('keys entries by model: the same prefix on another model is a miss', () => {
    const c = cache();
    c.request(req(A, 'q'), 0);
    expect(c.request(req(A, 'q', 'm2'), 1).cache_read_input_tokens).toBe(0);
  });

  it('expires an entry five minutes after its last use', () => {
    const c = cache();
    c.request(req(A, 'q'), 0);
    expect(c.request(req(A, 'q'), TTL_MS).cache_read_input_tokens).toBe(0);
    const alive = cache();
    alive.request(req(A, 'q'), 0);
    expect(alive.request(req(A, 'q'), TTL_MS - 1).cache_read_input_tokens).toBe(300);
  });

  it('a read refreshes the entry: read every four minutes, it stays alive past five', () => {
    const c = cache();
    c.request(req(A, 'q'), 0);
    const fourMin = 4 * 60_000;
    for (let i = 1; i <= 4; i++) expect(c.request(req(A, `q${i}`), i * fourMin).cache_read_input_tokens).toBe(300);
    // Without the refresh the first write (t=0) would have expired at 5 minutes.
    const fresh = cache();
    fresh.request(req(A, 'q'), 0);
    expect(fresh.request(req(A, 'q'), 2 * fourMin).cache_read_input_tokens).toBe(0);
  });

  it('a changed tool schema invalidates everything after it: system and messages too', () => {
    const c = cache();
    const withTool = (description: string): CacheableParams => ({
      model: 'm',
      tools: [tool(description, true)],
      system: [text(A, true)],
      messages: [{ role: 'user', content: [text('b'.repeat(200), true), text('the question')] }],
    });
    const first = c.request(withTool('v1'), 0);
    const total = toolTokens('v1') + 300 + 200 + 'the question'.length;
    expect(first).toEqual({ input_tokens: 'the question'.length, cache_read_input_tokens: 0, cache_creation_input_tokens: total - 'the question'.length });
    expect(c.request(withTool('v1'), 1).cache_read_input_tokens).toBe(total - 'the question'.length);
    // Same system and messages, one word of the tool changed: nothing is read.
    const changed = c.request(withTool('v2'), 2);
    expect(changed.cache_read_input_tokens).toBe(0);
    expect(changed.cache_creation_input_tokens).toBe(total - 'the question'.length);
  });

  it('tool_choice keys the message-level prefix only: tools and system stay cached', () => {
    const c = cache();
    const p = (choice: string): CacheableParams => ({
      model: 'm',
      tools: [tool('d')],
      tool_choice: { type: 'tool', name: choice },
      system: [text(A, true)],
      messages: [{ role: 'user', content: [text('m'.repeat(150), true), text('?')] }],
    });
    c.request(p('answer'), 0);
    const other = c.request(p('other'), 1);
    expect(other.cache_read_input_tokens).toBe(toolTokens('d') + 300);
    expect(other.cache_creation_input_tokens).toBe(150);
  });

  it('reads the longest live prefix among several breakpoints and writes from there to the last one', () => {
    const c = cache();
    const p = (history: string, question: string): CacheableParams => ({
      model: 'm',
      system: [text(A, true)],
      messages: [{ role: 'user', content: [text(history, true), text(question)] }],
    });
    // First call: writes system (300) and system + history (300 + 120).
    expect(c.request(p('h'.repeat(120), 'q1'), 0)).toEqual({ input_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 420 });
    // Same history: the longer entry is read, not the system one.
    expect(c.request(p('h'.repeat(120), 'q2'), 1)).toEqual({ input_tokens: 2, cache_read_input_tokens: 420, cache_creation_input_tokens: 0 });
    // A new history: the system entry is read and only the history is written.
    expect(c.request(p('g'.repeat(80), 'q3'), 2)).toEqual({ input_tokens: 2, cache_read_input_tokens: 300, cache_creation_input_tokens: 80 });
  });

  it('looks back to an earlier block boundary within the window, not beyond it', () => {
    // Request 1 marks a breakpoint after the system block; request 2 marks only a later message block, yet reads the entry.
    const blocks = (n: number) => Array.from({ length: n }, (_, i) => text(`turn ${i} `.padEnd(10, '.')));
    const later = (n: number): CacheableParams => ({
      model: 'm',
      system: [text(A)],
      messages: [{ role: 'user', content: [...blocks(n), text('new', true)] }],
    });
    const within = cache();
    within.request(req(A, 'x'), 0);
    // The message blocks start after the system block, so the system boundary is n + 1 blocks before the breakpoint.
    const inWindow = later(LOOKBACK_BLOCKS - 1);
    expect(within.request(inWindow, 1)).toEqual({
      input_tokens: 0,
      cache_read_input_tokens: 300,
      cache_creation_input_tokens: (LOOKBACK_BLOCKS - 1) * 10 + 3,
    });
    const beyond = cache();
    beyond.request(req(A, 'x'), 0);
    expect(beyond.request(later(LOOKBACK_BLOCKS), 1).cache_read_input_tokens).toBe(0);
  });

  it('holds back a write until commit: requests sent before the response began miss it', () => {
    const c = cache();
    const first = c.lookup(req(A, 'expert 1'), 0);
    const second = c.lookup(req(A, 'expert 2'), 0);
    expect([first.usage.cache_read_input_tokens, second.usage.cache_read_input_tokens]).toEqual([0, 0]);
    first.commit(5);
    second.commit(6);
    expect(c.request(req(A, 'expert 3'), 7).cache_read_input_tokens).toBe(300);
  });

  it('rejects more than four breakpoints, as the API does', () => {
    const p: CacheableParams = { model: 'm', system: Array.from({ length: 5 }, () => text(A, true)), messages: [{ role: 'user', content: 'q' }] };
    expect(() => cache().request(p, 0)).toThrow(PromptCacheError);
  });

  it('a string system prompt and string message content are one block each, and nothing is cached without a breakpoint', () => {
    const c = cache();
    const p: CacheableParams = { model: 'm', system: A, messages: [{ role: 'user', content: 'hello' }] };
    for (const t of [0, 1]) expect(c.request(p, t)).toEqual({ input_tokens: 305, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
  });
});
