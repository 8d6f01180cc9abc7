import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({}, { worker: false });
});
afterAll(async () => stack?.stop());

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${stack.url}${path}`, { headers, redirect: 'manual' });

describe('the viewer at /app/', () => {
  it('serves its page for /app/ and /app/sessions/{id}, locked down to its own origin', async () => {
    for (const path of ['/app/', '/app/sessions/3b17f0a2-5c1e-4f4e-9a51-2f0c8f1d9e10']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await res.text();
      expect(html).toContain('<script type="module" src="/app/assets/app.js"></script>');
      // No CDN: every script and style comes from this server.
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    }
    const bare = await get('/app');
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/app/');
  });

  it('serves its assets with their types and an ETag, and a 304 when unchanged', async () => {
    const js = await get('/app/assets/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = js.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{16}"$/);
    expect((await get('/app/assets/app.js', { 'if-none-match': etag })).status).toBe(304);
    expect((await get('/app/assets/app.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    const missing = await get('/app/assets/other.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('is served without a key (the page asks for one when the API wants it)', async () => {
    const locked = await startStack({ AUTH_MODE: 'required' }, { worker: false });
    try {
      expect((await fetch(`${locked.url}/app/`)).status).toBe(200);
      expect((await fetch(`${locked.url}/v1/sessions`)).status).toBe(401);
    } finally {
      await locked.stop();
    }
  });

  it('is built from web/src as committed (`npm run build:web` after changing the viewer)', () => {
    const build = fileURLToPath(new URL('../../web/build.mjs', import.meta.url));
    expect(() => execFileSync(process.execPath, [build, '--check'], { stdio: 'pipe' })).not.toThrow();
  });
});
