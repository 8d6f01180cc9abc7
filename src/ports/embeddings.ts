/**
 * Turns texts into vectors so the engine can measure novelty, convergence and
 * entropy by cosine. Implementations return L2-normalised vectors (a zero
 * vector for empty text) of length `dimension`, one per input, in order.
 */
export interface Embedder {
  readonly name: string;
  readonly dimension: number;
  embed(texts: string[]): Promise<number[][]>;
}
