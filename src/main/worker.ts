import { onShutdown } from './lifecycle';
import { createLogger, startWorker } from './services';
import { configOrExit, fatal } from './startup';

const config = configOrExit();
const log = createLogger(config, 'worker');
const worker = await startWorker(config, log).catch(fatal);
onShutdown([() => worker.stop()], (m) => log.info(m));
