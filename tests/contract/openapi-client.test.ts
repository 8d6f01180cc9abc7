import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

describe('the generated API client', () => {
  // openapi.test.ts checks openapi.yaml against the routes; this checks the client against openapi.yaml.
  it('is what openapi.yaml generates (run `npm run openapi` after changing a route)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bo1-client-'));
    try {
      const out = join(dir, 'bo1-client.ts');
      // The same generator, configuration (redocly.yaml's `bo1` api) and version as `npm run openapi:client`.
      await promisify(execFile)(join(root, 'node_modules/.bin/redocly'), ['generate-client', 'bo1', '--output', out], { cwd: root });
      const committed = readFileSync(join(root, 'src/cli/generated/bo1-client.ts'), 'utf8');
      expect(readFileSync(out, 'utf8') === committed, 'src/cli/generated/bo1-client.ts is stale: run `npm run openapi:client`').toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
