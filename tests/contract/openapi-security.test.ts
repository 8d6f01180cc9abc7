import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { openApiYaml } from '../../src/http/openapi-file';

describe('openapi.yaml access control', () => {
  const doc = parse(openApiYaml());
  const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.values(ops).map((op) => ({ path, op })),
  );

  it('declares bearer auth for the API, with every /v1 operation answering 401 and 429, and health checks open', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const { path, op } of operations) {
      if (path.startsWith('/v1')) {
        // The stream alone also takes a browser's stream token (see below); every other operation the key only.
        if (op.operationId !== 'streamSession') expect(op.security, op.operationId).toBeUndefined();
        expect(op.responses['401'].content['application/problem+json'], op.operationId).toBeDefined();
        expect(op.responses['401'].headers['WWW-Authenticate'], op.operationId).toBeDefined();
        expect(op.responses['429'].content['application/problem+json'], op.operationId).toBeDefined();
      } else {
        expect(op.security, op.operationId).toEqual([]);
      }
    }
    expect(doc.paths['/v1/sessions'].get.responses['429'].headers['Retry-After']).toBeDefined();
  });

  it("documents the browser's stream token: minted by createStreamToken with a key, accepted by streamSession only", () => {
    expect(doc.components.securitySchemes.streamToken).toMatchObject({ type: 'apiKey', in: 'query', name: 'stream_token' });
    expect(doc.paths['/v1/sessions/{id}/stream'].get.security).toEqual([{ bearerAuth: [] }, { streamToken: [] }]);
    const mint = doc.paths['/v1/sessions/{id}/stream-token'].post;
    expect(mint.security).toBeUndefined();
    expect(mint.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/StreamToken' });
    const usesToken = operations.filter(({ op }) => JSON.stringify(op.security ?? []).includes('streamToken')).map(({ op }) => op.operationId);
    expect(usesToken).toEqual(['streamSession']);
  });

  it('documents Idempotency-Key on createSession', () => {
    const create = doc.paths['/v1/sessions'].post;
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
    expect(create.responses['202'].headers['Idempotent-Replayed']).toBeDefined();
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['409', '422', '429']));
  });
});
