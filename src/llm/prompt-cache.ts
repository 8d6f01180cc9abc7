/**
 * A pure, deterministic emulator of Anthropic's prompt cache over Messages
 * API params, so the offline board and the tests' fake server report the
 * cache reads and writes the real API would, and cache-shaped prompts can be
 * measured without spending money. It follows the documented contract:
 *
 * - the prompt is a sequence of blocks: tools, then system, then messages;
 * - `cache_control` marks a breakpoint on a tool, a system block or a message
 *   content block; more than four is a bad request;
 * - an entry is keyed by the model and a hash of the exact prefix up to a
 *   breakpoint (tool_choice belongs to the message-level prefix: changing it
 *   leaves tools and system cached, as documented);
 * - on a request, each breakpoint looks for the longest live entry at its own
 *   block boundary or up to LOOKBACK_BLOCKS boundaries before it; the longest
 *   over all breakpoints is read, the rest up to the last breakpoint is
 *   written, and what follows the last breakpoint is plain input;
 * - a prefix under the model's minimum is neither read nor written;
 * - an entry lives TTL_MS from its last use; a read refreshes it.
 *
 * Not modelled: the one-hour TTL (`ttl: '1h'` is treated as five minutes,
 * and priced as a five-minute write), automatic top-level caching, and the
 * tokens the API adds for tool use. Time is whatever clock the caller passes.
 */
import { createHash } from 'node:crypto';

export const TTL_MS = 5 * 60_000;
/** How many block boundaries before a breakpoint the API also checks for a hit ("approximately 20"). */
export const LOOKBACK_BLOCKS = 20;
export const MAX_BREAKPOINTS = 4;

interface Marked {
  cache_control?: { type: string } | null;
}
type Block = Marked & { type?: string };
type Tool = Marked & { name?: string };

/** The part of Anthropic Messages params the cache looks at (the SDK's params and the raw wire body both fit). */
export interface CacheableParams {
  model: string;
  tools?: readonly Tool[] | null;
  tool_choice?: unknown;
  system?: string | readonly Block[] | null;
  messages: readonly { role: string; content: string | readonly Block[] }[];
}

export interface CacheUsage {
  /** Tokens after the last cache breakpoint (or all of them, when nothing is cached): neither read nor written. */
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export class PromptCacheError extends Error {
  override name = 'PromptCacheError';
}

export interface PromptCacheOptions {
  /** Tokens of one block's text: the project's estimate, or a real tokenizer. */
  countTokens: (text: string) => number;
  /** The model's minimum cacheable prefix, in tokens. */
  minTokens: (model: string) => number;
}

/** One request's accounting, with its writes held back until the response begins (see `commit`). */
export interface CacheLookup {
  usage: CacheUsage;
  /** Makes this request's writes readable; the API only serves an entry once the response that wrote it has begun. */
  commit(now: number): void;
}

interface Flat {
  /** Cumulative hash of the prefix ending with block i. */
  hashes: string[];
  /** Cumulative tokens up to and including block i. */
  tokens: number[];
  breakpoints: number[];
}

const withoutMarker = (b: object): object => {
  const { cache_control: _ignored, ...rest } = b as Marked & Record<string, unknown>;
  return rest;
};

/** What a block weighs and how it is keyed: a text block by its text, anything else (tools included) by its JSON. */
function blockText(b: object): string {
  const text = (b as { type?: string; text?: unknown }).type === 'text' ? (b as { text?: unknown }).text : undefined;
  return typeof text === 'string' ? text : JSON.stringify(withoutMarker(b));
}

/**
 * The prefix hash after one more block. Not memoised: a memo keyed by the block's text kept every text a session had
 * sent alive (half the simulated worker's heap, which its GC then marked over and over) to save one SHA-256 over
 * text that has to be read for its token count anyway.
 */
const chain = (prev: string, key: string, text: string): string =>
  createHash('sha256').update(prev).update('\u0000').update(key).update('\u0000').update(text).digest('hex');

/** The request as one block sequence, tools → system → messages, with cumulative hashes and token counts. */
function flatten(p: CacheableParams, countTokens: (text: string) => number): Flat {
  const entries: { key: string; text: string; marked: boolean }[] = [];
  for (const t of p.tools ?? []) entries.push({ key: 'tool', text: blockText(t), marked: !!t.cache_control });
  const system = typeof p.system === 'string' ? [{ type: 'text', text: p.system } as Block] : (p.system ?? []);
  for (const b of system) entries.push({ key: 'system', text: blockText(b), marked: !!b.cache_control });
  // tool_choice invalidates the message-level cache only: it keys the first message block on.
  let messageKey = `choice:${JSON.stringify(p.tool_choice ?? null)}`;
  p.messages.forEach((m, i) => {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content } as Block] : m.content;
    blocks.forEach((b, j) => {
      entries.push({ key: `${messageKey}|${i}:${m.role}:${j}:${b.type ?? ''}`, text: blockText(b), marked: !!b.cache_control });
      messageKey = '';
    });
  });
  const hashes: string[] = [];
  const tokens: number[] = [];
  const breakpoints: number[] = [];
  let hash = createHash('sha256').update(p.model).digest('hex');
  let total = 0;
  entries.forEach((e, i) => {
    hash = chain(hash, e.key, e.text);
    total += countTokens(e.text);
    hashes.push(hash);
    tokens.push(total);
    if (e.marked) breakpoints.push(i);
  });
  if (breakpoints.length > MAX_BREAKPOINTS) {
    throw new PromptCacheError(`A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints.length}.`);
  }
  return { hashes, tokens, breakpoints };
}

/**
 * The cache of one organisation: entries written by earlier requests, each
 * with the time it was last used. Deterministic for a given sequence of
 * requests and clock readings.
 */
export class PromptCache {
  /** Prefix hash → time of last use (write or read). */
  private readonly entries = new Map<string, number>();

  constructor(private readonly opts: PromptCacheOptions) {}

  /** Accounts one request and makes its writes readable at once (a response that begins as soon as it is sent). */
  request(params: CacheableParams, now: number): CacheUsage {
    const lookup = this.lookup(params, now);
    lookup.commit(now);
    return lookup.usage;
  }

  /**
   * Accounts one request sent at `now`: reads refresh their entry now; writes
   * wait for `commit`, so requests sent before that (a round's parallel
   * turns) miss what this one writes, as they do on the API.
   */
  lookup(params: CacheableParams, now: number): CacheLookup {
    this.prune(now);
    const { hashes, tokens, breakpoints } = flatten(params, this.opts.countTokens);
    const total = tokens.at(-1) ?? 0;
    const min = this.opts.minTokens(params.model);
    const last = breakpoints.at(-1);
    if (last === undefined || tokens[last]! < min) {
      return { usage: { input_tokens: total, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, commit: () => {} };
    }
    // The longest live prefix any breakpoint finds at its own boundary or within the lookback before it.
    let hit = -1;
    for (const b of breakpoints) {
      for (let i = b; i >= Math.max(0, b - LOOKBACK_BLOCKS) && i > hit; i--) {
        if (this.alive(hashes[i]!, now)) {
          hit = i;
          break;
        }
      }
    }
    const read = hit >= 0 ? tokens[hit]! : 0;
    if (hit >= 0) this.touch(hashes[hit]!, now);
    const written = tokens[last]! - read;
    // Every breakpoint long enough holds an entry afterwards (those within the read prefix are refreshed with it).
    const keys = breakpoints.filter((b) => tokens[b]! >= min).map((b) => hashes[b]!);
    return {
      usage: { input_tokens: total - tokens[last]!, cache_read_input_tokens: read, cache_creation_input_tokens: written },
      commit: (at) => {
        for (const k of keys) this.touch(k, Math.max(at, this.entries.get(k) ?? at));
      },
    };
  }

  /** Live entries (for tests and figures). */
  size(now: number): number {
    return [...this.entries.keys()].filter((k) => this.alive(k, now)).length;
  }

  private alive(key: string, now: number): boolean {
    const usedAt = this.entries.get(key);
    return usedAt !== undefined && now - usedAt < TTL_MS;
  }

  /** Re-inserts the entry, so the map stays ordered by last use and pruning can stop at the first live one. */
  private touch(key: string, at: number): void {
    this.entries.delete(key);
    this.entries.set(key, at);
  }

  /** Drops expired entries from the least recently used end, so a long-running process holds only the last five minutes' prefixes. */
  private prune(now: number): void {
    for (const [k, usedAt] of this.entries) {
      if (now - usedAt < TTL_MS) break;
      this.entries.delete(k);
    }
  }
}
