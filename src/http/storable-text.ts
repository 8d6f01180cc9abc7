/** ES2024's String.prototype.isWellFormed (Node 20+), not yet in the ES2023 lib this project compiles against. */
const isWellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();

export interface TextIssue {
  path: (string | number)[];
  message: string;
}

/**
 * Strings Postgres cannot store: text and jsonb refuse NUL (U+0000), and an
 * unpaired UTF-16 surrogate has no UTF-8 encoding. Every string in a
 * request (object keys included) is checked, so such input is a 400 naming
 * its field rather than a failed insert.
 */
export function unstorableText(value: unknown, path: (string | number)[] = []): TextIssue[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return [{ path, message: 'must not contain NUL (U+0000) characters' }];
    if (!isWellFormed(value)) return [{ path, message: 'must be well-formed Unicode (no unpaired surrogates)' }];
    return [];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => unstorableText(v, [...path, i]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [
      ...unstorableText(k, [...path, k]).map((i) => ({ ...i, message: `key ${i.message}` })),
      ...unstorableText(v, [...path, k]),
    ]);
  }
  return [];
}
