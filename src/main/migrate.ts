import { openDatabase, runMigrations } from '../db/client';
import { checkPostgres } from './preflight';
import { configOrExit, fatal } from './startup';

const config = configOrExit();
// A missing database is created (where the role may), as the services do at start.
await checkPostgres(config.DATABASE_URL).catch(fatal);
const database = openDatabase(config.DATABASE_URL);
await runMigrations(database).catch(fatal);
await database.close();
process.stdout.write('migrations applied\n');
