import { describe, expect, it } from 'vitest';
import { haveChromium, requireChromiumInCi } from '../testing/chromium.js';
import { dashboardUrl, openDashboardBrowser as openBrowser, poll } from '../testing/dashboardPage.js';
import { startTestServer } from '../testing/testServer.js';

// The dashboard behind --admin-token, in Chromium.

requireChromiumInCi('the dashboard admin token test');

describe.skipIf(!haveChromium)('dashboard with --admin-token', () => {
  it('serves the page without the token, asks for it once, then shows data', async () => {
    const sim = await startTestServer({ adminToken: 'dash-secret-token' });
    const browser = await openBrowser();
    try {
      const page = await browser.context.newPage();
      const res = await page.goto(dashboardUrl(sim));
      expect(res?.status()).toBe(200);
      const field = page.getByRole('textbox', { name: 'Admin token' });
      await field.waitFor();
      expect(await page.locator('#apps-body tr').count()).toBe(0);
      // A wrong token is said to be wrong, beside the form.
      await field.fill('not-the-token');
      await page.getByRole('button', { name: 'Use token' }).click();
      const refused = page.locator('#token-panel .notice-error');
      await poll(() => refused.textContent()).toContain('refused this admin token (401)');
      await field.fill('dash-secret-token');
      await page.getByRole('button', { name: 'Use token' }).click();
      await poll(() => page.locator('#apps-body tr').count()).toBeGreaterThan(0);
      expect(
        await page.evaluate(
          // biome-ignore lint/suspicious/noExplicitAny: runs in the page, which has sessionStorage
          () => (globalThis as any).sessionStorage.getItem('partner-sim-admin-token'),
        ),
      ).toBe('dash-secret-token');
    } finally {
      await browser.close();
      await sim.stop();
    }
  }, 60_000);
});
