import type { Rng } from './random';
import { round2 } from './text';

/** The subset of JSON Schema zod's toJSONSchema emits, as far as the filler reads it. */
interface Schema {
  $ref?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  prefixItems?: Schema[];
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/** A string for a `pattern` of the usual id shapes ("^sp[0-9]+$", "^[A-D]$"), or undefined when it is something else. */
function fromPattern(pattern: string): string | undefined {
  const guess = pattern.replace(/^\^|\$$/g, '').replace(/\[(\w)-\w\][+*]?|\\d[+*]?/g, (_, first: string | undefined) => first ?? '1');
  return new RegExp(pattern).test(guess) ? guess : undefined;
}

/**
 * A valid value for a JSON Schema, seeded: for purposes the board has no answer
 * for, and requests that arrive without their typed input (over the wire in the
 * fake Anthropic server), where the schema is all there is to go on.
 */
export function fillSchema(schema: Schema | boolean | undefined, r: Rng, root: Schema = schema as Schema, name = 'value', depth = 0): unknown {
  if (schema === undefined || typeof schema === 'boolean' || depth > 12) return `simulated ${name}`;
  const next = (sub: Schema | undefined, subName = name) => fillSchema(sub, r, root, subName, depth + 1);
  if (schema.$ref) {
    const path = schema.$ref.replace(/^#\/?/, '').split('/').filter(Boolean);
    return next(path.reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], root) as Schema);
  }
  if ('const' in schema) return schema.const;
  if (schema.enum?.length) return r.pick(schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches?.length) return next(branches.find((b) => b.type !== 'null') ?? branches[0]);
  const types = [schema.type ?? (schema.properties ? 'object' : schema.items ? 'array' : 'string')].flat();
  switch (types.find((t) => t !== 'null') ?? 'null') {
    case 'null':
      return null;
    case 'boolean':
      return r.chance(0.5);
    case 'integer':
    case 'number': {
      const step = types.includes('integer') ? 1 : 0.01;
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + step : 0);
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - step : min + 100);
      return step === 1 ? r.int(Math.ceil(min), Math.floor(max)) : Math.min(max, Math.max(min, round2(min + r.next() * (max - min))));
    }
    case 'string': {
      const patterned = schema.pattern ? fromPattern(schema.pattern) : undefined;
      if (patterned) return patterned;
      let text = `Simulated ${name.replace(/[_-]+/g, ' ')}`;
      while (text.length < (schema.minLength ?? 0)) text += ' text';
      return text.slice(0, schema.maxLength ?? text.length);
    }
    case 'array': {
      const prefix = schema.prefixItems ?? [];
      const count = Math.min(schema.maxItems ?? Infinity, Math.max(schema.minItems ?? 0, 1, prefix.length));
      return Array.from({ length: count }, (_, i) => next(prefix[i] ?? schema.items, `${name} item`));
    }
    default:
      // Deep in a recursive schema only required properties, so generation ends.
      return Object.fromEntries(
        Object.entries(schema.properties ?? {})
          .filter(([prop]) => depth < 6 || schema.required?.includes(prop))
          .map(([prop, sub]) => [prop, next(sub, prop)]),
      );
  }
}

const PLAIN = 'This is a simulated answer produced without calling a model. It is deterministic, so the same request always yields the same text; treat it as a placeholder that exercises the rest of the pipeline.';

/** Free text, for a request with neither a known purpose nor a schema. */
export const plainText = (r: Rng) => `${r.pick(['On the question asked', 'In short', 'A considered view'])}: ${PLAIN}`;
