/**
 * Runs the shutdown steps once on SIGTERM or SIGINT, in order, then exits.
 * A second signal, or a step past the grace period, exits at once.
 */
export function onShutdown(steps: (() => Promise<void>)[], log: (msg: string) => void, graceMs = 25_000): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    log(`${signal}: shutting down`);
    const timer = setTimeout(() => {
      log(`shutdown took longer than ${graceMs} ms: exiting`);
      process.exit(1);
    }, graceMs);
    timer.unref();
    void (async () => {
      let code = 0;
      for (const step of steps) {
        try {
          await step();
        } catch (err) {
          code = 1;
          log(`shutdown step failed: ${(err as Error).message}`);
        }
      }
      process.exit(code);
    })();
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
