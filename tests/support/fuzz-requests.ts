import fc from 'fast-check';

/**
 * Crafted requests for every operation of the app's own OpenAPI document:
 * path parameters, query parameters, documented headers and JSON bodies,
 * drawn from valid values and from the inputs fault injection found behind
 * 500s (seqs at and past 2^31, NUL and unpaired surrogates in any string,
 * crafted cursors, broken percent-encoding, wrong methods). Shared by the
 * fuzz test and `npm run chaos`.
 */

interface Operation {
  method: string;
  path: string;
  params: { name: string; in: 'path' | 'query' | 'header'; schema?: { type?: string; enum?: string[] } }[];
  body: boolean;
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

type Doc = { paths: Record<string, Record<string, { parameters?: Operation['params']; requestBody?: unknown }>> };

/** Readiness answers 503 by design while a dependency or the worker is missing: it has no input to fuzz. */
const NOT_FUZZED = new Set(['/readyz']);

export function operationsOf(doc: Doc): Operation[] {
  return Object.entries(doc.paths)
    .filter(([path]) => !NOT_FUZZED.has(path))
    .flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, params: op.parameters ?? [], body: op.requestBody !== undefined })),
  );
}

const NUL = '\u0000';
const LONE_HIGH = '\uD800';
const LONE_LOW = '\uDC00';

/** Strings that have broken things: control characters, unpaired surrogates, huge and odd numbers. */
const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(NUL, `a${NUL}b`, LONE_HIGH, `x${LONE_LOW}y`, `${LONE_HIGH}${LONE_HIGH}`, '', ' ', '\u2028', '💥', 'null', '[]', '{}'),
  fc.constantFrom('2147483647', '2147483648', '4294967296', '9007199254740991', '9007199254740993', '1e309', '-1', '0x10', 'NaN', '1.5'),
);

/** base64url JSON cursors: the shape the API issues, with dates and ids Postgres refuses. */
const craftedCursor = fc
  .tuple(
    fc.constantFrom('2024-02-30T00:00:00.000Z', '0000-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z', '-271821-04-20T00:00:00.000Z', '1', 'now', '2024-01-01T00:00:00.000Z'),
    fc.oneof(fc.uuid(), fc.constantFrom('not-a-uuid', `${NUL}`, '00000000-0000-0000-0000-00000000000g')),
  )
  .map((t) => Buffer.from(JSON.stringify(t)).toString('base64url'));

/** UTF-8 percent-encoding of any JS string (lone surrogates become U+FFFD, as a browser would send them). */
const pct = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

const pathSegment = (ids: string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: ids.length ? fc.constantFrom(...ids) : fc.uuid() },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: nastyString.map(pct) },
    { weight: 1, arbitrary: fc.constantFrom('%zz', '%E0%A4%A', '%ED%A0%80', '%00', 'a'.repeat(300), '..', '%2F') },
  );

const queryValue = (schema: Operation['params'][number]['schema']) =>
  fc.oneof(
    schema?.enum ? fc.constantFrom(...schema.enum) : fc.integer({ min: 0, max: 200 }).map(String),
    nastyString.map(pct),
    craftedCursor,
    fc.constantFrom('%zz', '%ED%A0%80', ''),
  );

/** Bodies around the create and resolve shapes, with a field swapped for something nasty, or any JSON at all. */
const jsonBody = fc.oneof(
  fc
    .record({
      field: fc.constantFrom('problem', 'context', 'seed', 'mode', 'budget_usd', 'action', 'message', 'statement', 'answers', 'settings', 'checkpoints', 'memory'),
      value: fc.oneof(nastyString, fc.dictionary(nastyString, nastyString, { maxKeys: 3 }), fc.double(), fc.integer(), fc.constant(null)),
      action: fc.constantFrom('continue', 'answer', 'edit', 'intervene', 'skip_to_vote', 'skip_to_final'),
    })
    .map(({ field, value, action }) => JSON.stringify({ problem: 'Should I hire a second engineer?', action, [field]: value })),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constantFrom('{', '', '{"problem":', 'null', '"\\u0000"', '{"problem":"\\ud800"}', '{"answers":{"\\u0000":"x"},"action":"answer"}'),
);

const headerValue = fc.oneof(
  fc.stringMatching(/^[\x20-\x7e]{0,40}$/),
  fc.constantFrom('2147483647', '2147483648', '9007199254740993', '-1', '1e3', '0'),
);

/** One request for one operation, sometimes with another method than the document's. */
export function requestFor(op: Operation, ids: string[]): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const headerParams = op.params.filter((p) => p.in === 'header');
  return fc
    .record({
      segments: fc.tuple(...pathParams.map(() => pathSegment(ids))),
      query: fc.tuple(...queryParams.map((p) => fc.option(queryValue(p.schema), { nil: undefined }))),
      headers: fc.tuple(...headerParams.map(() => fc.option(headerValue, { nil: undefined }))),
      body: op.body ? fc.option(jsonBody, { freq: 8, nil: undefined }) : fc.constant(undefined),
      method: fc.oneof({ weight: 9, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE') }),
      contentType: fc.constantFrom('application/json', 'application/json', 'application/json', 'text/plain', 'application/problem+json'),
    })
    .map(({ segments, query, headers, body, method, contentType }) => {
      let i = 0;
      const path = op.path.replace(/\{\w+\}/g, () => segments[i++] ?? '');
      const qs = queryParams.flatMap((p, j) => (query[j] === undefined ? [] : [`${p.name}=${query[j]}`])).join('&');
      const hs: Record<string, string> = {};
      headerParams.forEach((p, j) => {
        if (headers[j] !== undefined) hs[p.name] = headers[j]!;
      });
      const sendsBody = body !== undefined && method !== 'GET';
      if (sendsBody) hs['content-type'] = contentType;
      return { method, path: qs ? `${path}?${qs}` : path, headers: hs, ...(sendsBody && { body }) };
    });
}

export function anyRequest(doc: Doc, ids: string[]): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...operationsOf(doc)).chain((op) => requestFor(op, ids));
}

export interface FuzzOutcome {
  status: number;
  contentType: string;
}

/** Sends one crafted request; an event stream is abandoned once its headers arrive. */
export async function send(base: string, r: FuzzRequest): Promise<FuzzOutcome> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 10_000);
  try {
    const res = await fetch(`${base}${r.path}`, { method: r.method, headers: r.headers, ...(r.body !== undefined && { body: r.body }), signal: abort.signal, redirect: 'manual' });
    const contentType = res.headers.get('content-type') ?? '';
    if (contentType.startsWith('text/event-stream')) abort.abort();
    else await res.arrayBuffer();
    return { status: res.status, contentType };
  } finally {
    clearTimeout(timer);
  }
}

/** What every answer must satisfy: never a 5xx, and every error a problem+json. */
export function violation(r: FuzzRequest, o: FuzzOutcome): string | null {
  if (o.status >= 500) return `${r.method} ${r.path} → ${o.status}`;
  if (o.status >= 400 && !o.contentType.startsWith('application/problem+json')) return `${r.method} ${r.path} → ${o.status} as ${o.contentType || 'no content type'}`;
  return null;
}
