/** JSON Schema helpers for asking OpenAI-compatible servers for structured output. */

type Schema = Record<string, unknown>;

/**
 * Whether OpenAI's strict structured outputs accept this schema: every object
 * closes (`additionalProperties: false`) and requires all its properties.
 * Sending `strict: true` with anything else is a 400, so a schema that is not
 * strict-shaped goes non-strict (guidance, and constrained decoding on servers
 * such as vLLM and Ollama that enforce any schema).
 */
export function isStrictSchema(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictSchema);
  if (!schema || typeof schema !== 'object') return true;
  const s = schema as Schema;
  if (s.type === 'object' || s.properties) {
    const keys = Object.keys((s.properties as Schema | undefined) ?? {});
    const required = new Set((s.required as string[] | undefined) ?? []);
    if (s.additionalProperties !== false || !keys.every((k) => required.has(k))) return false;
  }
  return Object.entries(s).every(([k, v]) => k === 'required' || k === 'enum' || k === 'const' || isStrictSchema(v));
}

/** JSON mode only promises JSON, not its shape: the prompt must carry the schema (and the word JSON, which OpenAI requires). */
export function schemaInstruction(schema: Schema): string {
  return `Answer with only one JSON object, no prose and no code fence, that matches this JSON Schema:\n${JSON.stringify(schema)}`;
}
