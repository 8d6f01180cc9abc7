import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getJson, startStack, waitFor, type Stack } from '../support/stack';
import { TcpProxy } from '../support/tcp-proxy';
import { launchBrowser } from './browser';
import { expectNoRepeats, pageState, screenshot, scriptErrors, startFromForm, waitForPageStatus } from './viewer-page';

/**
 * The viewer against a running service (API and worker, simulated board),
 * reached through a TCP proxy so a test can drop the browser's connections.
 * The simulated model answers after a few milliseconds, so a session lasts
 * long enough to be watched live.
 */
let stack: Stack;
let proxy: TcpProxy;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  stack = await startStack({ SSE_RETRY_MS: '100', SIM_LATENCY_MS: '30' });
  const front = await TcpProxy.in(stack.url);
  proxy = front.proxy;
  base = front.url.replace(/\/$/, '');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await stack?.stop();
});
let pageErrors: string[] = [];
beforeEach(async () => {
  context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  page = await context.newPage();
  pageErrors = scriptErrors(page);
});
afterEach(async () => {
  await context?.close();
  // A script error in the page fails the test, even when the page still looked right.
  expect(pageErrors).toEqual([]);
});

const problem = 'Should I pivot my project management tool to serve only law firms, or stay horizontal?';
const context_ = '$12K MRR, 100 customers; law firms pay $200/mo vs $80 average; churn is 30%.';
type Event = { seq: number; type: string; data: Record<string, any> };
const eventLog = async (id: string): Promise<Event[]> => (await getJson(`${stack.url}/v1/sessions/${id}/events?limit=1000`)).items;
const ofType = (log: Event[], type: string) => log.filter((e) => e.type === type);

describe('the viewer in a browser', () => {
  it('starts an automatic session from the form and shows it live to the end: panels, speakers, metrics, votes, recommendation, transcript', async () => {
    const id = await startFromForm(page, base, problem, context_, 'auto', 'start-form');
    await page.waitForSelector('section.sub-problem');
    await waitForPageStatus(page, ['completed']);
    const log = await eventLog(id);
    const completed = ofType(log, 'session.completed')[0]!;

    // Every event up to the end, each once (the memory jobs' later events are not on the live stream).
    const state = await pageState(page);
    expect(state).toMatchObject({ status: 'completed', events: completed.seq, lastSeq: completed.seq, connection: 'ended' });
    const shown = await expectNoRepeats(page);
    const contributions = ofType(log, 'contribution.completed');
    expect(contributions.length).toBeGreaterThan(3);
    for (const c of contributions) expect(shown, `contribution seq ${c.seq}`).toContain(c.seq);
    const first = page.locator(`.utterance[data-seq="${contributions[0]!.seq}"]`);
    expect(await first.locator('.speaker').textContent()).toContain(contributions[0]!.data.name);

    // A panel per sub-problem, round metrics as small charts, each vote with its calibrated confidence, the tally.
    const decomposition = ofType(log, 'decomposition.completed').at(-1)!;
    expect(await page.locator('section.sub-problem').count()).toBe(decomposition.data.subProblems.length);
    const debated = ofType(log, 'subproblem.started').length;
    expect(await page.locator('section.sub-problem figure.spark[data-metric=convergence] circle').count()).toBe(ofType(log, 'round.completed').length);
    expect(await page.locator('section.sub-problem .metrics').count()).toBe(debated);
    expect(await page.locator('tr.vote').count()).toBe(ofType(log, 'vote.cast').length);
    expect(await page.locator('.tally .bars').count()).toBe(ofType(log, 'vote.completed').length);
    for (const { data } of ofType(log, 'votes.calibrated')) {
      const votes = page.locator(`section[data-sub-problem=${data.subProblemId}] tr.vote`);
      for (const c of data.changes.filter((x: any) => x.before !== x.after)) {
        const row = votes.filter({ hasText: ofType(log, 'vote.cast').find((v) => v.data.persona === c.persona && v.data.subProblemId === data.subProblemId)!.data.name });
        expect(await row.locator('td.confidence').textContent()).toBe(`${c.after.toFixed(2)} was ${c.before.toFixed(2)}`);
      }
    }

    // The straw vote (shown generically, in its sub-problem) and the fact ledger, when the engine records them.
    for (const straw of ofType(log, 'vote.straw')) {
      const shownStraw = page.locator(`section[data-sub-problem=${straw.data.subProblemId}] [data-type="vote.straw"][data-seq="${straw.seq}"]`);
      expect(await shownStraw.locator('h4').textContent()).toBe('Straw vote');
      expect(await shownStraw.locator('.bars .bar').count()).toBe(Object.keys(straw.data.distribution).length);
    }
    for (const facts of ofType(log, 'facts.recorded')) expect(shown).toContain(facts.seq);

    const recommendation = ofType(log, 'recommendation.completed')[0]!;
    expect(await page.locator('section.recommendation .summary').textContent()).toBe(recommendation.data.summary);
    // The few questions the recommendation chose for the person come first, each with what its answer changes.
    const chosen = (recommendation.data.questionsForYou ?? []) as { question: string; changes: string }[];
    expect(await page.locator('section.recommendation ul.questions-for-you li').count()).toBe(chosen.length);
    for (const q of chosen) expect(await page.locator('section.recommendation ul.questions-for-you').textContent()).toContain(q.question);
    expect(await page.locator('.facts .cost').textContent()).toContain(`$${completed.data.usage.costUsd.toFixed(4)}`);
    await screenshot(page, 'session-completed');
    await page.locator('section.sub-problem details.round').first().evaluate((d) => ((d as HTMLDetailsElement).open = true));
    await page.locator('section.sub-problem').first().evaluate((s) => s.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'sub-problem-panel');
    await page.locator('section.sub-problem .votes').first().evaluate((s) => s.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'votes');
    if (ofType(log, 'vote.straw').length) {
      await page.locator('[data-type="vote.straw"]').first().evaluate((s) => s.scrollIntoView({ block: 'start' }));
      await screenshot(page, 'straw-vote');
    }

    // The Markdown transcript, downloaded from the page.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button[data-action=transcript]')]);
    expect(download.suggestedFilename()).toBe(`bo1-${id}.md`);
    const markdown = await readFile((await download.path())!, 'utf8');
    expect(markdown).toContain('## === RECOMMENDATION ===');
    expect(markdown).toContain(recommendation.data.summary);

    // Opened by its address later: the finished session is replayed, each event once (now with the memory jobs' events,
    // once both have reported).
    await waitFor(async () => {
      const types = new Set((await eventLog(id)).map((e) => e.type));
      return types.has('lessons.extracted') && types.has('memory.contributed');
    }, 30_000, "the memory jobs' events");
    await page.goto(`${base}/app/sessions/${id}`);
    await page.waitForFunction(() => document.querySelector('main.session')?.getAttribute('data-connection') === 'ended');
    const replayed = await pageState(page);
    expect(replayed.status).toBe('completed');
    expect(replayed.events).toBe((await eventLog(id)).length);
    await expectNoRepeats(page);
  });

  it('runs an interactive session answered from the page: clarifying answers, an intervention, skips', async () => {
    // No context: the board has questions to ask first.
    const id = await startFromForm(page, base, 'Should we pivot to law firms or keep selling to retailers?', '', 'interactive');
    const answered: string[] = [];
    let intervened = false;
    for (let step = 0; step < 40; step++) {
      await page.waitForFunction(
        () => document.querySelector('main.session')?.getAttribute('data-status') === 'completed' || !!document.querySelector('section.checkpoint fieldset:not([disabled])'),
        undefined,
        { timeout: 60_000 },
      );
      if ((await pageState(page)).status === 'completed') break;
      const card = page.locator('section.checkpoint');
      const [kind, checkpointId] = [await card.getAttribute('data-kind'), await card.getAttribute('data-checkpoint')];
      switch (kind) {
        case 'clarification':
          await card.locator('textarea').first().fill('About $40k a month of burn, 14 months of runway.');
          await screenshot(page, 'checkpoint-clarification');
          await card.locator('button[data-action=answer]').click();
          break;
        case 'round_end':
          if (!intervened) {
            await card.locator('textarea[name=message]').fill('What about our 14-month runway?');
            await screenshot(page, 'checkpoint-intervention');
            await card.locator('button[data-action=intervene]').click();
            intervened = true;
          } else {
            await card.locator('button[data-action=skip_to_vote]').click();
          }
          break;
        case 'next_sub_problem':
          await card.locator('button[data-action=skip_to_final]').click();
          break;
        default:
          await card.locator('button[data-action=continue]').click();
      }
      answered.push(kind!);
      // The card goes once the resolution is on the stream (or the next checkpoint replaces it).
      await page.waitForFunction((cp) => document.querySelector('section.checkpoint')?.getAttribute('data-checkpoint') !== cp, checkpointId, { timeout: 60_000 });
    }
    await waitForPageStatus(page, ['completed']);
    expect(answered).toEqual(expect.arrayContaining(['clarification', 'statement', 'sub_problems', 'board', 'round_end']));

    const log = await eventLog(id);
    const resolutions = ofType(log, 'checkpoint.resolved').map((e) => e.data);
    expect(resolutions.every((r) => r.by === 'client')).toBe(true);
    expect(resolutions.find((r) => r.action === 'answer')?.answers?.[0]?.answer).toBe('About $40k a month of burn, 14 months of runway.');
    expect(resolutions.find((r) => r.action === 'intervene')?.message).toBe('What about our 14-month runway?');
    // The board answers the intervention in the next round, and the page shows both.
    const decisions = await page.locator('li.decision').allTextContents();
    expect(decisions.join('\n')).toContain('What about our 14-month runway?');
    expect(ofType(log, 'facilitator.message').some((e) => e.data.kind === 'intervention')).toBe(true);
    expect(await page.locator('section.recommendation').count()).toBe(1);
    await expectNoRepeats(page);
  });

  it('resumes after a dropped connection with Last-Event-ID and shows each event once', async () => {
    const streams: { lastEventId: string | undefined; url: string }[] = [];
    page.on('request', (req) => {
      if (/\/v1\/sessions\/[^/]+\/stream\?/.test(req.url())) streams.push({ lastEventId: req.headers()['last-event-id'], url: req.url() });
    });
    const id = await startFromForm(page, base, problem, context_, 'auto');
    // Mid-session: some events shown, more to come.
    await page.waitForFunction(() => Number(document.querySelector('main.session')?.getAttribute('data-events')) >= 12);
    const before = await pageState(page);
    expect(before.status).not.toBe('completed');
    await proxy.cut();
    await proxy.restore();
    await waitForPageStatus(page, ['completed']);

    const after = await pageState(page);
    expect(after.connections).toBeGreaterThanOrEqual(2);
    // The reconnect asked for what follows the last event shown: no replay from the start.
    const resumed = streams.slice(1);
    expect(resumed.length).toBeGreaterThanOrEqual(1);
    for (const s of resumed) expect(Number(s.lastEventId)).toBeGreaterThanOrEqual(before.lastSeq);
    const completed = ofType(await eventLog(id), 'session.completed')[0]!;
    expect(after.events).toBe(completed.seq);
    const shown = await expectNoRepeats(page);
    for (const c of ofType(await eventLog(id), 'contribution.completed')) expect(shown).toContain(c.seq);
  });

  it('cancels a session from the page', async () => {
    const id = await startFromForm(page, base, problem, context_, 'interactive');
    await page.waitForSelector('section.checkpoint');
    page.once('dialog', (d) => void d.accept());
    await page.click('button[data-action=cancel]');
    await waitForPageStatus(page, ['cancelled']);
    expect(await page.locator('section.ended h2').textContent()).toBe('Cancelled');
    expect(await page.locator('section.checkpoint').count()).toBe(0);
    expect((await getJson(`${stack.url}/v1/sessions/${id}`)).status).toBe('cancelled');
  });
});
