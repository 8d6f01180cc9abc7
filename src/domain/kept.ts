import { z } from 'zod';

/**
 * The shape of a model's answer with its length, size and range checks
 * removed: what the service keeps. A call's schema polices the model (and is
 * what the model is shown); once an answer passed it, the engine's own edits —
 * advisory rewrites, merged meta-problems, assumptions gathered from several
 * fields — must never make the event log refuse it. Types, enums and required
 * fields stay.
 */
export function kept<T extends z.ZodType>(schema: T): T {
  const def = (schema as unknown as { def: Record<string, unknown> & { type: string } }).def;
  const clone = (patch: Record<string, unknown>) => (schema as unknown as { clone(d: unknown): T }).clone({ ...def, ...patch });
  switch (def.type) {
    case 'object':
      return clone({ shape: Object.fromEntries(Object.entries(def.shape as Record<string, z.ZodType>).map(([k, v]) => [k, kept(v)])) });
    case 'array':
      return clone({ element: kept(def.element as z.ZodType), checks: [] });
    case 'string':
    case 'number':
      return clone({ checks: [] });
    case 'nullable':
    case 'optional':
    case 'default':
      return clone({ innerType: kept(def.innerType as z.ZodType) });
    case 'record':
      return clone({ valueType: kept(def.valueType as z.ZodType) });
    case 'union':
      return clone({ options: (def.options as z.ZodType[]).map(kept) });
    default:
      return schema;
  }
}
