import { writeFileSync } from 'node:fs';
import { openApiYaml } from '../http/openapi-file';

/** Regenerates openapi.yaml from the route schemas (`npm run openapi`). */
writeFileSync(new URL('../../openapi.yaml', import.meta.url), openApiYaml());
process.stdout.write('openapi.yaml written\n');
