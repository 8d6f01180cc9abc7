import { afterAll } from 'vitest';
import { obliterateQueues } from './queues';

// Per test file: queues whose stack was not stopped, or that only child processes used, are removed too.
// Registered first, so it runs after the file's own afterAll hooks have stopped its processes.
afterAll(async () => {
  await obliterateQueues();
});
