import { afterAll, describe, expect, it } from 'vitest';
import { nextCheckpoint, resolve } from '../support/checkpoints';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { createSession, startStack, waitForStatus, type Stack } from '../support/stack';
import { loadTrials, trialResponder } from '../support/trial-fixture';

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
      const { problem, context, mode, settings } = trial.session;
      const id = await createSession(stack.url, {
        problem,
        context,
        mode,
        // The trials were recorded before complex sub-problems got a fourth seat (cofounder-auto's sp3, complexity 8, sat 3): they replay on the panels they ran with.
        settings: { ...settings, raiseOneWayPanels: false },
        // The trial ran on an empty memory: nothing recalled, and nothing of the replay may leak into other test files.
        memory: { read: false, contribute: false },
      });
      const answers = [...trial.checkpoints];
      const unasked = answers;
      if (mode === 'interactive') {
        let last: string | null = null;
        for (let cp = await nextCheckpoint(stack.url, id, null, 120_000); cp; cp = await nextCheckpoint(stack.url, id, last, 120_000)) {
          last = cp.id;
          const i = answers.findIndex((a) => a.kind === cp.kind && a.subProblemId === cp.sub_problem_id && a.round === cp.round);
          const body = i >= 0 ? answers.splice(i, 1)[0]!.answer : { action: 'continue' };
          const res = await resolve(stack.url, id, cp.id, body);
          expect(res.status, `${cp.kind}: ${JSON.stringify(res.body)}`).toBe(202);
        }
      }
      const s = await waitForStatus(stack.url, id, ['completed', 'failed', 'cancelled'], 180_000);
      expect(replay.unmatched, 'requests with no recorded answer').toEqual([]);
      // At most a couple of research answers the recording lacks (see trialResponder), never a debate turn, vote or synthesis.
      expect(replay.filled.length, replay.filled.join('\n')).toBeLessThanOrEqual(2);
      expect(s.status, JSON.stringify(s.error)).toBe(trial.expected.status);
      if (mode === 'interactive') expect(unasked, 'every recorded checkpoint answer was asked for again').toEqual([]);
      const got = Object.fromEntries(
        Object.entries((s.results?.subProblemResults ?? {}) as Record<string, any>).map(([sp, r]) => [sp, { winner: r.tally.winner, deferred: r.tally.deferred }]),
      );
      const want = Object.fromEntries(Object.entries(trial.expected.decisions).map(([sp, d]) => [sp, { winner: d.winner, deferred: d.deferred }]));
      expect(got).toEqual(want);
      expect(s.results?.recommendation?.summary ?? null).toBe(trial.expected.recommendation);
    }, 300_000);
  }
});
