import { describe, expect, it } from 'vitest';
import { noveltyVerdicts, prioritise } from '../../src/domain/novelty';
import { DEFAULT_ENGINE_SETTINGS } from '../../src/domain/settings';

describe('novelty memory thresholds (seed 003)', () => {
  it('blocks above 0.80 similarity, penalises 0.70-0.80, boosts below 0.60', () => {
    const v = noveltyVerdicts({ echo: 0.1, close: 0.25, middling: 0.35, fresh: 0.5 }, DEFAULT_ENGINE_SETTINGS);
    expect(v).toEqual({ blocked: ['echo'], penalised: ['close'], boosted: ['fresh'] });
  });
  it('boundaries belong to the milder verdict', () => {
    const v = noveltyVerdicts({ atBlock: 0.2, atPenalty: 0.3, atBoost: 0.4 }, DEFAULT_ENGINE_SETTINGS);
    expect(v).toEqual({ blocked: [], penalised: ['atBlock'], boosted: [] });
  });
  it('orders the polled speakers: boosted first, then as polled, penalised, blocked last', () => {
    const order = prioritise(['echo', 'a', 'close', 'fresh', 'b'], { blocked: ['echo'], penalised: ['close'], boosted: ['fresh'] });
    expect(order).toEqual(['fresh', 'a', 'b', 'close', 'echo']);
  });
});
