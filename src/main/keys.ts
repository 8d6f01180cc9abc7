import { parseArgs } from 'node:util';
import { ApiKeyStore, type KeyInfo } from '../auth/api-keys';
import { migrateAt, openDatabase } from '../db/client';
import { migrationUrl } from './process';
import { checkPostgres } from './preflight';
import { configOrExit, fatal } from './startup';

const USAGE = `usage:
  npm run keys -- create --tenant <tenant> --name <name>   create a key (shown once)
  npm run keys -- list [--tenant <tenant>]                 list keys (never their secrets)
  npm run keys -- revoke <id|prefix>                       revoke a key`;

const TENANT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function usage(problem: string): never {
  process.stderr.write(`bo1 keys: ${problem}\n${USAGE}\n`);
  process.exit(2);
}

type Command = { kind: 'create'; tenant: string; name: string } | { kind: 'list'; tenant?: string } | { kind: 'revoke'; target: string };

function parse(argv: string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { tenant: { type: 'string' }, name: { type: 'string' } } });
  } catch (err) {
    usage((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  const tenant = values.tenant;
  if (tenant !== undefined && !TENANT.test(tenant)) usage('--tenant must be 1-64 letters, digits, ".", "_" or "-"');
  switch (command) {
    case 'create':
      if (rest.length) usage(`unexpected argument ${rest[0]}`);
      if (!tenant) usage('create needs --tenant');
      if (!values.name?.trim()) usage('create needs --name');
      return { kind: 'create', tenant, name: values.name.trim() };
    case 'list':
      if (rest.length || values.name !== undefined) usage('list takes only --tenant');
      return { kind: 'list', ...(tenant && { tenant }) };
    case 'revoke':
      if (rest.length !== 1 || tenant !== undefined || values.name !== undefined) usage('revoke takes exactly one key id or prefix');
      return { kind: 'revoke', target: rest[0]! };
    default:
      usage(command ? `unknown command ${command}` : 'no command');
  }
}

const when = (d: Date | null) => (d ? d.toISOString().replace(/\.\d+Z$/, 'Z') : '-');

function table(keys: KeyInfo[]): string {
  const rows = [
    ['ID', 'TENANT', 'NAME', 'PREFIX', 'CREATED', 'LAST USED', 'REVOKED'],
    ...keys.map((k) => [k.id, k.tenantId, k.name, k.prefix, when(k.createdAt), when(k.lastUsedAt), when(k.revokedAt)]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

const command = parse(process.argv.slice(2));
const config = configOrExit();
await checkPostgres(config.DATABASE_URL).catch(fatal);
const database = openDatabase(config.DATABASE_URL, 1);
let code = 0;
try {
  if (config.MIGRATE_ON_START) await migrateAt(migrationUrl(config));
  const keys = new ApiKeyStore(database.db);
  if (command.kind === 'create') {
    const k = await keys.create(command.tenant, command.name);
    process.stdout.write(
      `created key ${k.id} (${k.prefix}…) for tenant ${k.tenantId}, "${k.name}":\n\n  ${k.key}\n\n` +
        'Store it now: it cannot be shown again (only its SHA-256 is kept). Send it as `Authorization: Bearer <key>`.\n',
    );
  } else if (command.kind === 'list') {
    const list = await keys.list(command.tenant);
    process.stdout.write(list.length ? `${table(list)}\n` : 'no keys\n');
  } else if (await keys.revoke(command.target)) {
    process.stdout.write(`revoked ${command.target}; running APIs refuse it within AUTH_CACHE_MS (${config.AUTH_CACHE_MS} ms)\n`);
  } else {
    process.stderr.write(`bo1 keys: no active key has the id or prefix ${command.target}\n`);
    code = 1;
  }
} catch (err) {
  process.stderr.write(`bo1 keys: ${(err as Error).message}\n`);
  code = 1;
}
await database.close();
process.exit(code);
