import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** What the page reports about itself (data- attributes of its <main>): status, events applied, connections made. */
export async function pageState(page: Page) {
  return page.locator('main.session').evaluate((m: HTMLElement) => ({
    status: m.dataset.status ?? '',
    events: Number(m.dataset.events),
    lastSeq: Number(m.dataset.lastSeq),
    connections: Number(m.dataset.connections),
    connection: m.dataset.connection ?? '',
  }));
}

/** Waits until the session page shows one of `statuses`. */
export async function waitForPageStatus(page: Page, statuses: string[], timeoutMs = 90_000): Promise<void> {
  await page.waitForFunction((s) => s.includes(document.querySelector('main.session')?.getAttribute('data-status') ?? ''), statuses, { timeout: timeoutMs });
}

/** Every event rendered in its own element carries its seq: none may appear twice. */
export async function expectNoRepeats(page: Page): Promise<number[]> {
  const seqs = await page.locator('[data-seq]').evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.seq)));
  const repeated = seqs.filter((s, i) => seqs.indexOf(s) !== i);
  expect(repeated, 'seqs rendered more than once').toEqual([]);
  return seqs;
}

/** Starts a session from the home page's form; resolves with its id once the page has moved to it. */
export async function startFromForm(page: Page, base: string, problem: string, context: string, mode: 'auto' | 'interactive', shot?: string): Promise<string> {
  await page.goto(`${base}/app/`);
  await page.fill('textarea[name=problem]', problem);
  await page.fill('textarea[name=context]', context);
  await page.check(`input[name=mode][value=${mode}]`);
  if (shot) await screenshot(page, shot);
  await page.click('form.start button[type=submit]');
  await page.waitForURL(/\/app\/sessions\/[0-9a-f-]{36}$/);
  return new URL(page.url()).pathname.split('/').at(-1)!;
}

/** Where screenshots go when SCREENSHOTS is set (`SCREENSHOTS=docs/viewer npm run test:e2e` refreshes the committed ones). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.SCREENSHOTS;
  if (!dir) return;
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage: false });
}

/** Collects the page's uncaught script errors: a test asserts there were none. */
export function scriptErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}
