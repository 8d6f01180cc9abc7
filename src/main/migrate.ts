import { openDatabase, runMigrations } from '../db/client';
import { configOrExit, fatal } from './startup';

const config = configOrExit();
const database = openDatabase(config.DATABASE_URL);
await runMigrations(database).catch(fatal);
await database.close();
process.stdout.write('migrations applied\n');
