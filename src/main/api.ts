import { onShutdown } from './lifecycle';
import { createLogger, startApi } from './services';
import { configOrExit, fatal } from './startup';

const config = configOrExit();
const log = createLogger(config, 'api');
const api = await startApi(config, log).catch(fatal);
onShutdown([() => api.stop()], (m) => log.info(m));
