import { generateSync, type JsonSchema } from 'json-schema-faker';
import type { LlmProvider, LlmRequest, LlmResponse } from '../../src/ports/llm';

/**
 * Answers at the edges of each call's schema: what a capable model may
 * legitimately send, and what the simulated board never does.
 *
 * The schema the model sees (the forced tool's input schema) is pinned to one
 * edge per node — most items and longest strings (`max`), the fewest and
 * shortest with every optional field absent and every nullable null (`min`),
 * or a seeded mix — and json-schema-faker fills it from a seed. `mixed` also
 * writes free text in non-Latin scripts. A safety verdict stays `allowed`
 * so the rest of the session runs.
 */
export type EdgeMode = 'max' | 'min' | 'mixed';

/** Length and count used where the schema sets no bound: generous, as a verbose model would be. */
const UNBOUNDED_CHARS = 600;
const UNBOUNDED_ITEMS = 6;

const SCRIPTS = [
  'これは取締役会の判断に関する長い説明です。',
  'هذا نص طويل عن قرار مجلس الإدارة وأسبابه.',
  'Это длинный текст о решении совета директоров.',
  '这是关于董事会决策的一段较长说明。',
  'Δοκιμή με ελληνικά γράμματα και αριθμούς 42%.',
  '🚀 ünïcödé — “quotes” & <tags> \\ back\\slash',
];

type Node = Record<string, unknown>;

/** A small seeded generator for the mixed choices (json-schema-faker has its own for the values). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The schema with every bound pinned to one edge, node by node. */
export function pinSchema(schema: unknown, mode: EdgeMode, random: () => number): unknown {
  if (Array.isArray(schema)) return schema.map((s) => pinSchema(s, mode, random));
  if (!schema || typeof schema !== 'object') return schema;
  const node = { ...(schema as Node) };
  const edge = mode === 'mixed' ? (random() < 0.5 ? 'max' : 'min') : mode;
  for (const k of ['anyOf', 'oneOf'] as const) {
    const options = node[k] as Node[] | undefined;
    if (!options) continue;
    const nonNull = options.filter((o) => o.type !== 'null');
    // min: null where null is allowed; max: the richest alternative.
    const pick = edge === 'min' && nonNull.length < options.length ? { type: 'null' } : nonNull[0]!;
    delete node[k];
    return pinSchema({ ...node, ...pick }, mode, random);
  }
  if (node.properties) {
    const props = node.properties as Record<string, Node>;
    const required = new Set((node.required as string[] | undefined) ?? []);
    const kept: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(props)) {
      const present = required.has(k) || edge === 'max';
      if (!present) continue;
      kept[k] = k === 'allowed' && v.type === 'boolean' ? { const: true } : pinSchema(v, mode, random);
    }
    node.properties = kept;
    node.required = Object.keys(kept);
  }
  if (node.items) node.items = pinSchema(node.items, mode, random);
  if (node.type === 'array') {
    const lo = (node.minItems as number | undefined) ?? 0;
    const hi = (node.maxItems as number | undefined) ?? Math.max(lo, UNBOUNDED_ITEMS);
    const n = edge === 'max' ? hi : lo;
    node.minItems = n;
    node.maxItems = n;
  }
  if (node.type === 'string' && !node.enum && !node.pattern && !node.format && node.const === undefined) {
    const lo = (node.minLength as number | undefined) ?? 0;
    const hi = (node.maxLength as number | undefined) ?? Math.max(lo, UNBOUNDED_CHARS);
    const n = edge === 'max' ? hi : lo;
    node.minLength = n;
    node.maxLength = n;
  }
  if (node.type === 'number' || node.type === 'integer') {
    const lo = (node.minimum as number | undefined) ?? -1_000_000;
    const hi = (node.maximum as number | undefined) ?? 1_000_000;
    node.const = edge === 'max' ? hi : lo;
  }
  if (node.type === 'boolean' && mode !== 'mixed') node.const = edge === 'max';
  return node;
}

/** Free text in another script, the same length, so length bounds still hold. */
function rewriteText(value: unknown, schema: unknown, random: () => number): unknown {
  const s = (schema ?? {}) as Node;
  if (typeof value === 'string') {
    if (s.enum || s.pattern || s.format || s.const !== undefined || value.length === 0) return value;
    if (random() < 0.5) return value;
    const script = SCRIPTS[Math.floor(random() * SCRIPTS.length)]!;
    // JSON Schema and zod count code points, so the rewrite keeps the count and never splits a surrogate pair.
    const n = [...value].length;
    return [...script.repeat(Math.ceil(n / [...script].length) + 1)].slice(0, n).join('');
  }
  if (Array.isArray(value)) return value.map((v) => rewriteText(v, s.items, random));
  if (value && typeof value === 'object') {
    const props = (s.properties ?? {}) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewriteText(v, props[k], random)]));
  }
  return value;
}

/** One edge answer for a JSON schema. */
export function edgeAnswer(schema: Record<string, unknown>, mode: EdgeMode, seed: number): unknown {
  const random = mulberry32(seed);
  const pinned = pinSchema(schema, mode, random) as JsonSchema;
  const value = generateSync(pinned, { seed, alwaysFakeOptionals: true, fillProperties: false, maxDepth: 10 });
  return mode === 'mixed' ? rewriteText(value, pinned, random) : value;
}

const hash = (text: string) => {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
};

/**
 * The LLM port answering every structured call at its schema's edges,
 * seeded by the session seed and the call's key, so a failure replays.
 */
export function edgeProvider(mode: EdgeMode, seed: number): LlmProvider & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    name: 'fake',
    requests,
    async generate(req: LlmRequest): Promise<LlmResponse> {
      requests.push(req);
      await Promise.resolve();
      if (req.signal?.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
      const text = req.json ? JSON.stringify(edgeAnswer(req.json.schema, mode, hash(`${seed}|${req.key}`))) : 'An edge answer in plain text.';
      const input = req.system.join('\n').length + req.messages.reduce((n, m) => n + m.content.length, 0);
      return {
        text,
        model: req.model,
        stopReason: 'end_turn',
        usage: { inputTokens: Math.ceil(input / 4), outputTokens: Math.ceil(text.length / 4), cacheReadTokens: 0, cacheWriteTokens: 0 },
        attempts: 1,
      };
    },
  };
}

/**
 * A board answering at the edges, the mode chosen per session by its seed:
 * `edge-max-3`, `edge-min-1`, `edge-mixed-7` (call keys start with the
 * session seed). Any other seed answers `mixed`.
 */
export function edgeBoard(): LlmProvider & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  const boards = new Map<string, LlmProvider>();
  return {
    name: 'fake',
    requests,
    generate(req: LlmRequest) {
      requests.push(req);
      const m = /^edge-(max|min|mixed)-(\d+):/.exec(req.key);
      const mode = (m?.[1] as EdgeMode | undefined) ?? 'mixed';
      const seed = Number(m?.[2] ?? 0);
      const id = `${mode}-${seed}`;
      if (!boards.has(id)) boards.set(id, edgeProvider(mode, seed));
      return boards.get(id)!.generate(req);
    },
  };
}
