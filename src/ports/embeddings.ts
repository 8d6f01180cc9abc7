/**
 * Turns texts into vectors so the engine can measure novelty, convergence and
 * entropy. Implementations return L2-normalised vectors (a zero vector for
 * empty text) of length `dimension`, one per input, in order.
 */
export interface Embedder {
  readonly name: string;
  readonly dimension: number;
  /**
   * Mean raw cosine of this embedder on the labelled set's unrelated pairs
   * and paraphrase pairs: the anchors that put its similarities on the
   * calibrated scale every threshold is written in.
   */
  readonly calibration: EmbedderCalibration;
  embed(texts: string[]): Promise<number[][]>;
}

export interface EmbedderCalibration {
  different: number;
  same: number;
}
