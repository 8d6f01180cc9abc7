import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpProblem, sendProblem } from './problem';

/** The built viewer (web/, built by `npm run build:web` and committed). */
export const VIEWER_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/**
 * The page may load only its own script and style and talk only to this
 * origin: no CDN, no inline script, nothing framed. Styles set from script
 * go through the CSSOM, which `style-src 'self'` allows.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

function load(dir: string): Map<string, Asset> | null {
  if (!existsSync(`${dir}index.html`)) return null;
  const assets = new Map<string, Asset>();
  for (const [name, type] of Object.entries(TYPES)) {
    const body = readFileSync(`${dir}${name}`);
    assets.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` });
  }
  return assets;
}

/**
 * Serves the viewer at /app/: its page for /app/ and /app/sessions/{id} (the
 * page routes itself), and its two assets. Read once at start: three small
 * files, answered from memory with an ETag (revalidated, never stale after a
 * deploy). Outside /v1, so no key is needed to load it; the page asks for one
 * when the API does.
 */
export function registerViewer(app: FastifyInstance, dir = VIEWER_DIST): void {
  const assets = load(dir);
  const send = (name: string) => async (req: FastifyRequest, reply: FastifyReply) => {
    const asset = assets?.get(name);
    if (!asset) return sendProblem(reply, req, new HttpProblem('not-found', 'the viewer is not built: run `npm run build:web`'));
    reply.headers({
      'content-type': asset.type,
      etag: asset.etag,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      ...(name === 'index.html' && { 'content-security-policy': CSP }),
    });
    if (req.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.send(asset.body);
  };
  const hidden = { schema: { hide: true } };
  app.get('/app', hidden, async (_req, reply) => reply.redirect('/app/', 308));
  app.get('/app/', hidden, send('index.html'));
  app.get('/app/sessions/:id', hidden, send('index.html'));
  app.get('/app/assets/app.js', hidden, send('app.js'));
  app.get('/app/assets/app.css', hidden, send('app.css'));
}
