import { afterAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { startStack, type Stack } from '../support/stack';
import { loadTrials, replayTrial, trialResponder } from '../support/trial-fixture';

/**
 * Sessions whose every answer was written by a person playing the model
 * (model-relay trials, recorded under tests/fixtures/trials/), replayed
 * through the real @anthropic-ai/sdk against the fake Anthropic server: the
 * service must accept each answer and reach the recorded decisions.
 */
const trials = loadTrials();
const open: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  for (const o of open.reverse()) await o.stop();
});

describe('model-written trials, replayed through the real SDK', () => {
  it('has recorded trials to replay', () => {
    expect(trials.length).toBeGreaterThanOrEqual(2);
    expect(new Set(trials.map((t) => t.session.mode))).toEqual(new Set(['auto', 'interactive']));
  });

  for (const trial of trials) {
    it(`${trial.name}: every model-written answer is accepted and the recorded decisions come out`, async () => {
      const replay = trialResponder(trial);
      const fake: FakeAnthropic = await startFakeAnthropic(replay.responder);
      open.push({ stop: () => fake.close() });
      const stack: Stack = await startStack({ LLM_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'sk-ant-replay', ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_MAX_RETRIES: '0' });
      open.push(stack);
      const { snapshot: s, unasked, refused } = await replayTrial(stack.url, trial);
      expect(refused, 'checkpoint answers the service refused').toEqual([]);
      // Joined, so a failure prints each request's end in full.
      expect(replay.unmatched.join('\n---\n'), 'requests with no recorded answer').toBe('');
      // At most a couple of research answers the recording lacks (see trialResponder), never a debate turn, vote or synthesis.
      expect(replay.filled.length, replay.filled.join('\n')).toBeLessThanOrEqual(2);
      expect(s.status, JSON.stringify(s.error)).toBe(trial.expected.status);
      expect(unasked, 'every recorded checkpoint answer was asked for again').toEqual([]);
      const got = Object.fromEntries(
        Object.entries((s.results?.subProblemResults ?? {}) as Record<string, any>).map(([sp, r]) => [sp, { winner: r.tally.winner, deferred: r.tally.deferred }]),
      );
      const want = Object.fromEntries(Object.entries(trial.expected.decisions).map(([sp, d]) => [sp, { winner: d.winner, deferred: d.deferred }]));
      expect(got).toEqual(want);
      expect(s.results?.recommendation?.summary ?? null).toBe(trial.expected.recommendation);
      // Trials recorded with the model's beyondGeneralGuidance: the disclaimers are the ones it called for, no keyword boilerplate.
      if (trial.expected.disclaimers) expect((s.results?.recommendation?.disclaimers ?? []).map((d: { kind: string }) => d.kind)).toEqual(trial.expected.disclaimers);
    }, 300_000);
  }
});
