import { expect } from 'vitest';

/** Asserts an RFC 9457 problem response (and, given a field, that `errors` names it); returns its body. */
export async function expectProblem(res: Response, status: number, field?: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as { type: string; title: string; status: number; detail: string; errors?: { field: string }[] };
  expect(body.status).toBe(status);
  expect(body.type).toMatch(/^urn:bo1:problem:/);
  expect(body.detail.length).toBeGreaterThan(0);
  if (field) expect(body.errors?.map((e) => e.field)).toContain(field);
  return body;
}
