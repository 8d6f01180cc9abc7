import { migrateAt } from '../db/client';
import { checkPostgres } from './preflight';
import { migrationUrl } from './process';
import { configOrExit, fatal } from './startup';

const config = configOrExit();
// A missing database is created (where the role may), as the services do at start.
// Over DATABASE_DIRECT_URL when set: migrations cannot go through a transaction-mode pooler.
const url = migrationUrl(config);
await checkPostgres(url, undefined, config.DATABASE_DIRECT_URL ? 'DATABASE_DIRECT_URL' : 'DATABASE_URL').catch(fatal);
await migrateAt(url).catch(fatal);
process.stdout.write('migrations applied\n');
