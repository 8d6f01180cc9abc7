import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EVENT_TYPES } from '../../src/domain/events';
import { openApiYaml } from '../../src/http/openapi-file';

describe('openapi.yaml', () => {
  it('is what the route schemas generate (run `npm run openapi` after changing a route)', () => {
    const committed = readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8');
    expect(committed).toBe(openApiYaml());
  });

  it('describes every route, its problems and every event payload', () => {
    const doc = parse(openApiYaml());
    const ops = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((p) => Object.values(p));
    expect(ops.map((o) => o.operationId).sort()).toEqual(
      ['cancelSession', 'createSession', 'deleteMemory', 'deleteSessionMemories', 'exportMemories', 'getMemory', 'getPersona', 'getSession', 'getTranscript', 'healthz', 'listInsights', 'listMemories', 'listPersonas', 'listSessionEvents', 'listSessions', 'livez', 'metrics', 'readyz', 'resolveCheckpoint', 'streamSession'].sort(),
    );
    const create = doc.paths['/v1/sessions'].post;
    expect(create.requestBody.content['application/json'].schema.required).toContain('problem');
    expect(create.responses['400'].content['application/problem+json']).toBeDefined();
    expect(doc.paths['/v1/sessions/{id}/stream'].get.responses['200'].content['text/event-stream']).toBeDefined();
    for (const t of EVENT_TYPES) expect(doc.components.schemas[`Event_${t.replace(/\W/g, '_')}`], t).toBeDefined();
    expect(doc.components.schemas.EventEnvelope.required).toEqual(['seq', 'type', 'session_id', 'ts', 'data']);
  });
});
