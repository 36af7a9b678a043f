import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { fromRoot } from '../core/root.js';
import { openChromium } from './chromium.js';
import { startTestServer, type TestServer } from './testServer.js';

// Shared by the dashboard's Chromium test files: each opens one browser context on its own
// simulator, as these helpers set up.

export const REPORTS = fromRoot('reports');
/** The page's address (it polls every 1.5 s, as for a person). */
export const dashboardUrl = (sim: { url: string }) => `${sim.url}/__admin/ui`;
// On a busy CI machine a render can take a few seconds more than a poll.
// Typed by hand: declaration emit cannot name vitest's inferred poll type.
export const poll = <T>(read: () => Promise<T>): ReturnType<typeof expect.poll<T>> =>
  expect.poll(read, { timeout: 8000 });

/**
 * Resolves once `n` whole refreshes of the page ran after the call, each asked for at once as
 * the page does when its tab comes back into view (`visibilitychange`), instead of waiting for
 * the poll timer: measured, waiting for the timer's refreshes (three asks for the app list at a
 * 500 ms poll) took 1-1.5 s a call. The page numbers its refreshes on the status line
 * (`data-refresh-begun`, `data-refresh-ended`); one asked for while another runs starts after
 * it, so the refresh numbered one past those begun before the ask is a whole one after it.
 */
export async function refreshes(page: Page, n = 2): Promise<void> {
  for (let i = 0; i < n; i++) {
    const begun = await page.evaluate<number>(`(() => {
      const begun = Number(document.getElementById('live').dataset.refreshBegun ?? 0);
      document.dispatchEvent(new Event('visibilitychange'));
      return begun;
    })()`);
    // Every 50 ms, not at each animation frame (playwright's default), which keeps Chromium
    // drawing frames of an unchanged page.
    await page.waitForFunction(
      `Number(document.getElementById('live').dataset.refreshEnded ?? 0) > ${begun}`,
      undefined,
      { polling: 50, timeout: 15_000 },
    );
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
  options: { failedResponses?: boolean; prepare?: (d: DashboardSession) => Promise<void> } = {},
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
    await d.page.goto(dashboardUrl(d.sim));
    await options.prepare?.(d);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await d.sim?.stop();
  });
  return d;
}
