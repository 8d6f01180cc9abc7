import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/config';
import { EVENT_TYPES } from '../../src/domain/events';
import { allRoutes } from '../../src/http/app';
import type { ApiDeps } from '../../src/http/deps';
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
      ['cancelSession', 'createSession', 'createStreamToken', 'deleteMemory', 'deleteSessionMemories', 'exportMemories', 'getMemory', 'getPersona', 'getSession', 'getTranscript', 'healthz', 'listInsights', 'listMemories', 'listPersonas', 'listSessionEvents', 'listSessions', 'livez', 'metrics', 'readyz', 'resolveCheckpoint', 'streamSession'].sort(),
    );
    const create = doc.paths['/v1/sessions'].post;
    expect(create.requestBody.content['application/json'].schema.required).toContain('problem');
    expect(create.responses['400'].content['application/problem+json']).toBeDefined();
    expect(doc.paths['/v1/sessions/{id}/stream'].get.responses['200'].content['text/event-stream']).toBeDefined();
    for (const t of EVENT_TYPES) expect(doc.components.schemas[`Event_${t.replace(/\W/g, '_')}`], t).toBeDefined();
    expect(doc.components.schemas.EventEnvelope.required).toEqual(['seq', 'type', 'session_id', 'ts', 'data']);
  });

  it('defines every component schema instead of pointing it at itself (Problem once did: the document was invalid)', () => {
    const schemas = parse(openApiYaml()).components.schemas as Record<string, { $ref?: string }>;
    for (const [name, schema] of Object.entries(schemas)) expect(schema.$ref, name).not.toBe(`#/components/schemas/${name}`);
    expect(schemas.Problem).toMatchObject({ type: 'object', required: expect.arrayContaining(['type', 'title', 'status']) });
  });

  it("types the stream's events: its response is one envelope per event type, each with its data schema", () => {
    const doc = parse(openApiYaml());
    const media = doc.paths['/v1/sessions/{id}/stream'].get.responses['200'].content['text/event-stream'];
    expect(media.schema).toEqual({ $ref: '#/components/schemas/StreamEvent' });
    const variants = doc.components.schemas.StreamEvent.oneOf as { title: string; allOf: [unknown, { properties: { type: { const: string }; data: { $ref: string } } }] }[];
    expect(variants.map((v) => v.title).sort()).toEqual([...EVENT_TYPES].sort());
    for (const v of variants) {
      expect(v.allOf[1].properties.type.const).toBe(v.title);
      expect(v.allOf[1].properties.data.$ref).toBe(`#/components/schemas/Event_${v.title.replace(/\W/g, '_')}`);
    }
  });

  it("every example in the document is valid against its route's own schema", () => {
    const routes = allRoutes({ config: loadConfig({}) } as ApiDeps);
    let checked = 0;
    for (const r of routes) {
      if (r.bodyExample !== undefined) {
        expect(r.body!.safeParse(r.bodyExample).error, `${r.operationId} request`).toBeUndefined();
        checked++;
      }
      for (const [status, spec] of Object.entries(r.responses)) {
        if (spec.example === undefined || !spec.schema) continue;
        expect(spec.schema.safeParse(spec.example).error, `${r.operationId} ${status}`).toBeUndefined();
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(10);
  });
});
