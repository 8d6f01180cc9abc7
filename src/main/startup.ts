import { ConfigError, loadConfig, type Config } from '../config/config';
import { StartupError } from './preflight';

/** A process that cannot start says why in one clear message and exits non-zero. */
export function fatal(err: unknown): never {
  const msg =
    err instanceof ConfigError || err instanceof StartupError ? err.message : `failed to start: ${err instanceof Error ? err.message : String(err)}`;
  process.stderr.write(`bo1: ${msg}\n`);
  process.exit(1);
}

export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    fatal(err);
  }
}
