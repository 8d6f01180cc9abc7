import { onShutdown } from './lifecycle';
import { createLogger, startApi, startWorker } from './services';
import { configOrExit, fatal } from './startup';

/** API and worker in one process: the single-machine way to run bo1. */
const config = configOrExit();
const log = createLogger(config, 'bo1');
const worker = await startWorker(config, log.child({ role: 'worker' })).catch(fatal);
const api = await startApi(config, log.child({ role: 'api' })).catch(fatal);
// The API stops first (no new sessions, streams told to reconnect), then the worker hands back its jobs.
onShutdown([() => api.stop(), () => worker.stop()], (m) => log.info(m));
