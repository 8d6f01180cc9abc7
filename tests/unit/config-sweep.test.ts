import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config';

describe('config: the worker sweep', () => {
  it('sweeps every 30 s by default, accepts 0 for a process that never sweeps, and names the variable otherwise', () => {
    expect(loadConfig({}).RECONCILE_INTERVAL_MS).toBe(30_000);
    expect(loadConfig({}, { RECONCILE_INTERVAL_MS: '0' }).RECONCILE_INTERVAL_MS).toBe(0);
    expect(loadConfig({}, { RECONCILE_INTERVAL_MS: '300' }).RECONCILE_INTERVAL_MS).toBe(300);
    // A busy loop of sweeps is a mistake, not a setting.
    expect(() => loadConfig({}, { RECONCILE_INTERVAL_MS: '50' })).toThrow(ConfigError);
    expect(() => loadConfig({}, { RECONCILE_INTERVAL_MS: '50' })).toThrow(/RECONCILE_INTERVAL_MS/);
  });
});
