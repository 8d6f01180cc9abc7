import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../src/config/config';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The env a child process needs to join the same stack as `config`. */
export function envFor(config: Config, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    DATABASE_URL: config.DATABASE_URL,
    REDIS_URL: config.REDIS_URL,
    QUEUE_NAME: config.QUEUE_NAME,
    QUEUE_PREFIX: config.QUEUE_PREFIX,
    MIGRATE_ON_START: 'false',
    LOG_LEVEL: 'silent',
    RECONCILE_STALE_MS: String(config.RECONCILE_STALE_MS),
    RECONCILE_MEMORY_JOBS: String(config.RECONCILE_MEMORY_JOBS),
    AUTH_MODE: config.AUTH_MODE,
    AUTH_CACHE_MS: String(config.AUTH_CACHE_MS),
    RATE_LIMIT_PER_MINUTE: String(config.RATE_LIMIT_PER_MINUTE),
    MAX_ACTIVE_SESSIONS_PER_TENANT: String(config.MAX_ACTIVE_SESSIONS_PER_TENANT),
    ...extra,
  };
}

/** Starts `src/main/<entry>.ts` as a real process (tsx), e.g. a worker to SIGKILL mid-session. */
export function spawnEntry(
  entry: 'worker' | 'api' | 'start' | 'keys',
  env: Record<string, string>,
  args: string[] = [],
): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', `src/main/${entry}.ts`, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Kept so a failing test can show what the process said.
  let out = '';
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  return Object.assign(child, { output: () => out });
}

export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

/** A TCP port free right now on 127.0.0.1, for a child process that must come back on the same address. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
