import { mkdir } from 'node:fs/promises';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { fromRoot } from '../core/root.js';
import { openChromium } from './chromium.js';
import { startTestServer, type TestServer } from './testServer.js';

// Shared by the dashboard's Chromium test files: each opens one browser context on its own
// simulator, as these helpers set up.

export const REPORTS = fromRoot('reports');
/**
 * The page's address, polling every `pollMs` (`?poll_ms`) when given, else every 1.5 s as for a
 * person. Only a file that waits for refreshes asks for fast ones: measured, each fast poll
 * costs CPU (the simulator's answers, Chromium's repaint) that a file acting through the page,
 * which refreshes after each action, pays for in wall time on a busy machine.
 */
export const dashboardUrl = (sim: { url: string }, pollMs?: number) =>
  `${sim.url}/__admin/ui${pollMs ? `?poll_ms=${pollMs}` : ''}`;
// On a busy CI machine a render can take a few seconds more than a poll.
// Typed by hand: declaration emit cannot name vitest's inferred poll type.
export const poll = <T>(read: () => Promise<T>): ReturnType<typeof expect.poll<T>> =>
  expect.poll(read, { timeout: 8000 });

/**
 * Resolves once `n` whole refreshes of the page ran after the call. Each refresh asks for the
 * app list first, and the page starts one only after the last has ended: n + 1 new asks for
 * the list mean n refreshes ended, which a fixed sleep could only hope for.
 */
export async function refreshes(page: Page, n = 2): Promise<void> {
  let asked = 0;
  const count = (r: Request) => {
    if (r.method() === 'GET' && new URL(r.url()).pathname === '/__admin/apps') asked++;
  };
  page.on('request', count);
  try {
    await expect.poll(() => asked, { timeout: 15_000 }).toBeGreaterThan(n);
  } finally {
    page.off('request', count);
  }
}

export const A = 'client_user_3f2c8a90-1b2c-4d5e-8f90-123456789abc';
export const B = 'client_user_9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

export const openDashboardBrowser = () =>
  openChromium({
    viewport: { width: 1440, height: 900 },
    // axe-core is injected as an inline script, which the page's CSP rightly refuses.
    bypassCSP: true,
  });

interface DashboardSession {
  sim: TestServer;
  page: Page;
  pageErrors: string[];
}

/**
 * One simulator and one page on its dashboard for the file's tests, opened before them and
 * closed after; `prepare` runs once the page is loaded. The fields are set in beforeAll.
 */
export function useDashboard(
  options: {
    failedResponses?: boolean;
    pollMs?: number;
    prepare?: (d: DashboardSession) => Promise<void>;
  } = {},
): DashboardSession {
  const d = { pageErrors: [] as string[] } as DashboardSession;
  let browser: Awaited<ReturnType<typeof openDashboardBrowser>> | undefined;
  beforeAll(async () => {
    await mkdir(REPORTS, { recursive: true });
    d.sim = await startTestServer();
    browser = await openDashboardBrowser();
    d.page = await browser.context.newPage();
    d.page.on('pageerror', (e) => d.pageErrors.push(String(e)));
    if (options.failedResponses)
      d.page.on('response', (r) => {
        if (r.status() >= 400) d.pageErrors.push(`${r.status()} ${r.request().method()} ${r.url()}`);
      });
    await d.page.goto(dashboardUrl(d.sim, options.pollMs));
    await options.prepare?.(d);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await d.sim?.stop();
  });
  return d;
}
