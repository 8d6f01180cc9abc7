import { expect } from 'vitest';
import { LlmError, type LlmRequest } from '../../src/ports/llm';

/** A port request as the gateway builds one: three system blocks, two of them stable. */
export function portRequest(model: string, overrides: Partial<LlmRequest> = {}): LlmRequest {
  return {
    model,
    system: ['stable rules', 'stable persona', 'volatile context'],
    cacheAfter: [1],
    messages: [{ role: 'user', content: 'Should I take the job?' }],
    maxTokens: 512,
    key: 'step-1:attempt-1',
    purpose: 'test',
    ...overrides,
  };
}

/** The LlmError a promise rejects with (failing the test if it resolves or throws anything else). */
export async function rejection(p: Promise<unknown>): Promise<LlmError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LlmError);
  return err as LlmError;
}
