import { stringify } from 'yaml';
import { loadConfig } from '../config/config';
import { openApiDocument } from './app';
import type { ApiDeps } from './deps';

/**
 * The committed openapi.yaml: generated from the route definitions with the
 * default configuration (not this machine's environment), so it is stable.
 * Only the routes' schemas are read; no handler runs, hence the bare deps.
 */
export function openApiYaml(): string {
  const deps = { config: loadConfig({}) } as ApiDeps;
  // No YAML anchors: shared schema objects are written out in full, as readers of the file expect.
  return stringify(openApiDocument(deps), { lineWidth: 0, aliasDuplicateObjects: false });
}
