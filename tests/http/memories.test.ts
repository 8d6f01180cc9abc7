import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client';
import { event } from '../../src/domain/events';
import { SessionStore } from '../../src/db/session-store';
import { embedSync } from '../../src/embeddings/local-embedder';
import { MemoryStore } from '../../src/memory/memory-store';
import { testDatabaseUrl } from '../support/env';
import { getJson, startStack, type Stack } from '../support/stack';

let stack: Stack;
let database: Database;
let memory: MemoryStore;
let store: SessionStore;
const marker = `zebrafinch${randomUUID().slice(0, 6)}`;
let sessionId: string;
let memoryIds: string[] = [];

beforeAll(async () => {
  stack = await startStack({}, { worker: false });
  database = openDatabase(testDatabaseUrl(), 2);
  memory = new MemoryStore(database.db);
  store = new SessionStore(database);
  const session = async (tenantId: string) => {
    const id = randomUUID();
    await store.create(
      { id, tenantId, problem: 'p', context: '', options: {}, provider: 'simulated', seed: 's' },
      event('session.created', { problem: 'p', context: '', provider: 'simulated', mode: 'auto' }),
    );
    return id;
  };
  sessionId = await session('default');
  const foreign = await session('someone-else');
  const row = (sid: string, persona: string, text: string) => ({
    id: randomUUID(),
    scope: 'session' as const,
    sessionId: sid,
    subProblemId: 'sp1',
    persona,
    category: 'pricing',
    summary: `${text} ${marker}: price tiers should follow measured willingness to pay.`,
    position: 'Test a higher tier first',
    confidence: 0.7,
    anonymised: true,
    model: 'claude-haiku-5-5',
    promptVersion: 'expert_summary@1',
    embedding: embedSync(text, 256),
    embeddingProvider: 'local-hash',
  });
  const mine = [row(sessionId, 'financial_analyst', 'alpha'), row(sessionId, 'financial_analyst', 'beta'), row(sessionId, 'risk_manager', 'gamma')];
  memoryIds = mine.map((m) => m.id);
  await memory.insertMemories('default', mine);
  await memory.insertMemories('someone-else', [row(foreign, 'financial_analyst', 'secret')]);
  await memory.insertLesson(
    'default',
    { id: randomUUID(), type: 'best_practice', lesson: `Set success criteria before debating ${marker}`, triggerConditions: 'vague goals', suggestedFix: 'state criteria', confidence: 0.8, tags: ['process'], model: 'm', promptVersion: 'p', embedding: embedSync('criteria', 256), embeddingProvider: 'local-hash' },
    sessionId,
  );
});
afterAll(async () => {
  await stack?.stop();
  await database?.close();
});

describe('memory API', () => {
  it('lists this tenant\'s memories with provenance, filtered and paged, and never another tenant\'s', async () => {
    const all = await getJson(`${stack.url}/v1/memories?q=${marker}&limit=100`);
    expect(all.items).toHaveLength(3);
    expect(JSON.stringify(all)).not.toContain('secret');
    expect(all.items[0].provenance).toMatchObject({ sessionId, subProblemId: 'sp1', model: 'claude-haiku-5-5', promptVersion: 'expert_summary@1' });
    const fa = await getJson(`${stack.url}/v1/memories?q=${marker}&persona=financial_analyst&limit=1`);
    expect(fa.items).toHaveLength(1);
    const next = await getJson(`${stack.url}/v1/memories?q=${marker}&persona=financial_analyst&limit=1&cursor=${fa.next_cursor}`);
    expect(next.items).toHaveLength(1);
    expect(next.items[0].id).not.toBe(fa.items[0].id);
    expect((await fetch(`${stack.url}/v1/memories?persona=Bad-Code`)).status).toBe(400);
    expect((await fetch(`${stack.url}/v1/memories?cursor=nonsense`)).status).toBe(400);
  });

  it('gets and deletes one memory; unknown or malformed ids are problems', async () => {
    const one = await getJson(`${stack.url}/v1/memories/${memoryIds[0]}`);
    expect(one.id).toBe(memoryIds[0]);
    expect((await fetch(`${stack.url}/v1/memories/${memoryIds[0]}`, { method: 'DELETE' })).status).toBe(204);
    const gone = await fetch(`${stack.url}/v1/memories/${memoryIds[0]}`);
    expect(gone.status).toBe(404);
    expect(gone.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await fetch(`${stack.url}/v1/memories/not-an-id`)).status).toBe(400);
  });

  it('searches insights and exports the tenant', async () => {
    const insights = await getJson(`${stack.url}/v1/insights?q=${marker}`);
    expect(insights.items).toHaveLength(1);
    expect(insights.items[0]).toMatchObject({ type: 'best_practice', reinforcements: 1 });
    const res = await fetch(`${stack.url}/v1/memories/export`);
    expect(res.headers.get('content-disposition')).toMatch(/attachment/);
    const all = (await res.json()) as { memories: { summary: string }[]; lessons: unknown[] };
    expect(all.memories.some((m) => m.summary.includes(marker))).toBe(true);
    expect(JSON.stringify(all)).not.toContain('secret');
  });

  it('deleting a session\'s memories cascades to lessons only it supported', async () => {
    const res = await fetch(`${stack.url}/v1/sessions/${sessionId}/memories`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ memories: 2, lessonsDeleted: 1 });
    expect((await getJson(`${stack.url}/v1/memories?q=${marker}`)).items).toHaveLength(0);
    expect((await getJson(`${stack.url}/v1/insights?q=${marker}`)).items).toHaveLength(0);
    expect((await fetch(`${stack.url}/v1/sessions/00000000-0000-4000-8000-000000000000/memories`, { method: 'DELETE' })).status).toBe(404);
  });
});
