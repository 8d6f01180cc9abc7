import type { PriceTier } from '../../domain/budget';

/** Input and output list prices (USD per million tokens) of the two model tiers, for estimates and budgets. */
export interface Prices {
  smart: PriceTier;
  fast: PriceTier;
}
