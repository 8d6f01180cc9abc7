/**
 * Which model answers which call: per role, per seat (persona), per tier, as
 * an ordered chain whose later links answer when an earlier one is down.
 * The deployment sets it (MODELS) and a session may override it
 * (`settings.models`); with neither, every call goes to its tier's model
 * (MODEL_FAST / MODEL_SMART) on the default provider, as before.
 */
import { z } from 'zod';
import type { ProviderName, Tier } from '../ports/llm';
import { personaByCode } from './personas';

/** Who a call speaks for; every call in src/calls declares one. */
export const ROLES = ['intake', 'experts', 'facilitator', 'synthesis', 'memory'] as const;
export type Role = (typeof ROLES)[number];

/** The providers a model reference may name. */
export const ROUTABLE_PROVIDERS = ['anthropic', 'openai', 'simulated'] as const satisfies readonly ProviderName[];
export type RoutableProvider = (typeof ROUTABLE_PROVIDERS)[number];

export interface ModelRef {
  /** Absent: the deployment's LLM_PROVIDER. */
  provider?: RoutableProvider;
  model: string;
}

/**
 * `model` or `provider:model`. Only a known provider name counts as a prefix,
 * so model ids with colons of their own (Ollama's `llama3.1:8b`) stay whole.
 */
export function parseModelRef(ref: string): ModelRef {
  const i = ref.indexOf(':');
  const head = i > 0 ? ref.slice(0, i) : '';
  if ((ROUTABLE_PROVIDERS as readonly string[]).includes(head) && i < ref.length - 1) return { provider: head as RoutableProvider, model: ref.slice(i + 1) };
  return { model: ref };
}

export const formatModelRef = (r: ModelRef): string => (r.provider ? `${r.provider}:${r.model}` : r.model);

const refSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^\S+$/, 'a model reference has no spaces')
  .describe('A model id, optionally prefixed with its provider: `claude-sonnet-5-5`, `anthropic:claude-haiku-5-5`, `openai:gpt-4.1-mini`, `openai:llama3.1:8b`');

/** One model, or an ordered fallback chain (the first that is up answers). */
const chainSchema = z.union([refSchema, z.array(refSchema).min(1).max(5)]).transform((v) => (Array.isArray(v) ? v : [v]));

/** A chain for both tiers, or one per tier (a role's fast calls and smart calls may differ). */
const choiceSchema = z.union([chainSchema, z.strictObject({ fast: chainSchema.optional(), smart: chainSchema.optional() })]).transform(
  (v): Partial<Record<Tier, string[]>> => (Array.isArray(v) ? { fast: v, smart: v } : { ...(v.fast && { fast: v.fast }), ...(v.smart && { smart: v.smart }) }),
);

export const modelsSchema = z
  .strictObject({
    default: choiceSchema.optional().describe('Every call no role or seat below names (else MODEL_FAST / MODEL_SMART)'),
    intake: choiceSchema.optional().describe('Problem statement, decomposition, lessons lookup'),
    experts: choiceSchema.optional().describe("The experts' statements, contributions, votes and summaries"),
    facilitator: choiceSchema.optional().describe('Facilitator rounds, moderators, research'),
    synthesis: choiceSchema.optional().describe('Options, synthesis and the final recommendation'),
    memory: choiceSchema.optional().describe('After the session: anonymising and lessons'),
    personas: z
      .record(z.string(), choiceSchema)
      .optional()
      .describe("Per seat: a persona's code → its model(s); wins over `experts`")
      .superRefine((personas, ctx) => {
        for (const code of Object.keys(personas ?? {})) if (!personaByCode(code)) ctx.addIssue({ code: 'custom', path: [code], message: `no persona "${code}"` });
      }),
  })
  .describe('Models per role and per seat; each value is a model, a fallback list, or {fast, smart}');

export type ModelRouting = z.output<typeof modelsSchema>;
export type ModelRoutingInput = z.input<typeof modelsSchema>;

/** A session's own models, as stored in its options at create (validated then; parsed again for the type). */
export function sessionModels(options: unknown): ModelRouting | undefined {
  const raw = (options as { settings?: { models?: unknown } } | null)?.settings?.models;
  return raw === undefined ? undefined : modelsSchema.parse(raw);
}

/** Every reference a routing names, for checking providers and prices up front. */
export function refsOf(routing: ModelRouting | undefined): string[] {
  if (!routing) return [];
  const choices = [...ROLES.map((r) => routing[r]), routing.default, ...Object.values(routing.personas ?? {})];
  return [...new Set(choices.flatMap((c) => [...(c?.fast ?? []), ...(c?.smart ?? [])]))];
}

/** Where a call's chain came from, most specific first; the first layer that names it wins. */
export interface RouteKey {
  role: Role;
  tier: Tier;
  seat?: string;
}

/**
 * The chain for a call. Layers are most authoritative first (a session's
 * override, then the deployment's); within a layer a seat beats its role,
 * and a role beats `default`. Null: nothing names it (the tier model answers).
 */
export function chainFor(layers: readonly (ModelRouting | undefined)[], key: RouteKey): string[] | null {
  for (const r of layers) {
    if (!r) continue;
    const hit = (key.seat !== undefined ? r.personas?.[key.seat]?.[key.tier] : undefined) ?? r[key.role]?.[key.tier] ?? r.default?.[key.tier];
    if (hit) return hit;
  }
  return null;
}

export type TierChains = Record<Tier, string[]>;

/** Which models each role and each seat goes to, first choice first: what the snapshot shows. */
export function modelPlan(layers: readonly (ModelRouting | undefined)[], tierModels: Record<Tier, string>, seats: readonly string[]): { roles: Record<Role, TierChains>; seats: Record<string, TierChains> } {
  const chains = (role: Role, seat?: string): TierChains => ({
    fast: chainFor(layers, { role, tier: 'fast', ...(seat !== undefined && { seat }) }) ?? [tierModels.fast],
    smart: chainFor(layers, { role, tier: 'smart', ...(seat !== undefined && { seat }) }) ?? [tierModels.smart],
  });
  return {
    roles: Object.fromEntries(ROLES.map((r) => [r, chains(r)])) as Record<Role, TierChains>,
    seats: Object.fromEntries(seats.map((code) => [code, chains('experts', code)])),
  };
}
