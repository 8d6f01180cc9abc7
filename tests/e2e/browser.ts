import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser (.ci/run installs it); CHROMIUM_PATH overrides. */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH ?? CANDIDATES.find((p) => existsSync(p));
  if (!path || !existsSync(path)) {
    throw new Error(`no Chromium found (tried ${process.env.CHROMIUM_PATH ?? CANDIDATES.join(', ')}): apt-get install -y chromium, or set CHROMIUM_PATH`);
  }
  return path;
}

/** The system Chromium, headless, through playwright-core (no browser download). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Root in CI and containers: Chromium's sandbox needs user namespaces it may not have.
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}
