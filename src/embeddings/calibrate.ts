import { cosine } from '../domain/metrics';
import type { EmbedderCalibration } from '../ports/embeddings';
import { CALIBRATION_PAIRS, type PairLabel } from './calibration-set';

/** The texts of the calibration set, in the order calibrationFrom expects their vectors. */
export const CALIBRATION_TEXTS = CALIBRATION_PAIRS.flatMap((p) => [p.a, p.b]);

/** Mean raw cosine per label of the calibration set, from the vectors of CALIBRATION_TEXTS. */
export function calibrationFrom(vectors: number[][]): EmbedderCalibration & { related: number } {
  const sums: Record<PairLabel, number[]> = { same: [], related: [], different: [] };
  CALIBRATION_PAIRS.forEach((p, i) => sums[p.label].push(cosine(vectors[2 * i]!, vectors[2 * i + 1]!)));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { same: mean(sums.same), related: mean(sums.related), different: mean(sums.different) };
}
