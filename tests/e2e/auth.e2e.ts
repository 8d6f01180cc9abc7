import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/auth/api-keys';
import { openDatabase, type Database } from '../../src/db/client';
import { testDatabaseUrl } from '../support/env';
import { startStack, type Stack } from '../support/stack';
import { launchBrowser } from './browser';
import { expectNoRepeats, pageState, screenshot, scriptErrors, startFromForm, waitForPageStatus } from './viewer-page';

/** The viewer against a service that requires an API key (AUTH_MODE=required). */
let stack: Stack;
let database: Database;
let browser: Browser;
let key: string;

beforeAll(async () => {
  stack = await startStack({ AUTH_MODE: 'required', SIM_LATENCY_MS: '10' });
  database = openDatabase(testDatabaseUrl(), 2);
  key = (await new ApiKeyStore(database.db).create(`viewer-${randomUUID().slice(0, 8)}`, 'browser')).key;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await database?.close();
});

describe('the viewer with API keys', () => {
  it('asks for a key, then runs a session with it; the stream is opened with a stream token, never the key', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const errors = scriptErrors(page);
    const streams: { url: string; authorization: string | undefined }[] = [];
    page.on('request', (req) => {
      if (/\/stream\?/.test(req.url())) streams.push({ url: req.url(), authorization: req.headers().authorization });
    });
    try {
      await page.goto(`${stack.url}/app/`);
      await page.waitForSelector('section.key-form');
      await screenshot(page, 'api-key');
      await page.fill('input[name=api-key]', key);
      await page.click('section.key-form button[type=submit]');
      await page.waitForSelector('section.key-form', { state: 'detached' });

      const id = await startFromForm(page, stack.url, 'Should I hire a head of sales before product-market fit?', 'Two founders, $30k MRR, 18 months of runway.', 'auto');
      await waitForPageStatus(page, ['completed']);
      expect((await pageState(page)).status).toBe('completed');
      await expectNoRepeats(page);
      expect(streams.length).toBeGreaterThanOrEqual(1);
      for (const s of streams) {
        expect(s.url).toMatch(new RegExp(`/v1/sessions/${id}/stream\\?stream_token=bo1st_[\\w-]{43}$`));
        expect(s.authorization).toBeUndefined();
        expect(s.url).not.toContain(key);
      }

      // A new tab holds no key: opening the session asks for one again, and shows it once given.
      const fresh = await (await browser.newContext()).newPage();
      const freshErrors = scriptErrors(fresh);
      await fresh.goto(`${stack.url}/app/sessions/${id}`);
      await fresh.waitForSelector('section.key-form');
      await fresh.fill('input[name=api-key]', key);
      await fresh.click('section.key-form button[type=submit]');
      await waitForPageStatus(fresh, ['completed']);
      expect(await fresh.locator('section.recommendation').count()).toBe(1);
      await fresh.context().close();
      expect(freshErrors).toEqual([]);

      // A wrong key is refused with the API's own words.
      const wrong = await (await browser.newContext()).newPage();
      const wrongErrors = scriptErrors(wrong);
      await wrong.goto(`${stack.url}/app/`);
      await wrong.fill('input[name=api-key]', 'bo1_notarealkeynotarealkeynotarealkey00');
      await wrong.click('section.key-form button[type=submit]');
      // The page retries with it, the API refuses it, and the page asks again.
      await wrong.waitForSelector('main.home .error:has-text("the API key is unknown or revoked")');
      expect(await wrong.locator('section.key-form').count()).toBe(1);
      await wrong.context().close();
      expect(wrongErrors).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
