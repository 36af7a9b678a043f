import { join } from 'node:path';
import type { Page, Route } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, requireChromiumInCi } from '../testing/chromium.js';
import { A, B, poll, REPORTS, refreshes, useDashboard } from '../testing/dashboardPage.js';
import { bearer, DEMO_US, http, userToken } from '../testing/http.js';
import type { TestServer } from '../testing/testServer.js';

// The dashboard in a real browser: Debian's Chromium driven by playwright-core (no browser
// download). Every arrangement goes through the page; the partner and control APIs are then
// asked whether it took effect.
// This file: apps, devices, recorders and phones; dashboardAppView.test.ts goes on with the
// views of one app, dashboardFeedback.test.ts with what the page says, dashboardToken.test.ts
// with --admin-token.

requireChromiumInCi('the dashboard browser test');

describe.skipIf(!haveChromium)('dashboard at /__admin/ui in Chromium', () => {
  const d = useDashboard();
  let sim: TestServer;
  let page: Page;
  beforeAll(() => {
    ({ sim, page } = d);
  });

  const user = async () => (await userToken(sim.api, DEMO_US, 'ui-checker')).user;
  const binding = async (sn: string) =>
    http('GET', `${sim.api}/open/partner/sdk/binding?type=notepro&sn=${sn}`, {
      headers: bearer(await user()),
    });

  it('polls at the interval its address asks for (1.5 s by default, kept within 100 ms and a minute), refreshes at once when asked (back in view), creates an app, shows its credentials once, and scopes the views to it', async () => {
    const other = await page.context().newPage();
    for (const [query, ms] of [
      ['', '1500'],
      ['?poll_ms=250', '250'],
      ['?poll_ms=5', '100'],
      ['?poll_ms=soon', '1500'],
      ['?poll_ms=999999', '60000'],
    ]) {
      // The interval is read as the page's script runs, before DOMContentLoaded: the next
      // address need not wait for the page's first refresh.
      await other.goto(`${sim.url}/__admin/ui${query}`, { waitUntil: 'domcontentloaded' });
      expect(await other.locator('#live').getAttribute('data-poll-ms'), query).toBe(ms);
    }
    // Polling once a minute, the page still refreshes at once when its tab comes back into
    // view: the first refresh, then the two asked for, each whole.
    await refreshes(other);
    expect(await other.locator('#live').getAttribute('data-refresh-ended')).toBe('3');
    await other.close();

    await page.getByLabel('New client id (optional)').fill('ui-app');
    await page.getByRole('button', { name: 'Create app' }).click();
    const created = page.locator('#app-created');
    await poll(() => created.textContent()).toContain('secret_key');
    const app = (await http('GET', `${sim.admin}/apps`)).body.find(
      (a: { client_id: string }) => a.client_id === 'ui-app',
    );
    expect(await created.textContent()).toContain(app.secret_key);
    // The table never shows secrets.
    expect(await page.locator('#apps-body').textContent()).not.toContain(app.secret_key);
    // …nor holds them in its markup (attributes included), for any app.
    const markup = await page.locator('#apps-body').evaluate((n) => n.outerHTML);
    for (const secret of [app.secret_key, app.api_key, 'demo-secret-us-0000'])
      expect(markup).not.toContain(secret);
    await page.getByRole('button', { name: 'View ui-app' }).click();
    await poll(() => page.locator('#live').textContent()).toContain('showing ui-app');
    // The row of the app in view is marked at once, though the app list itself did not change.
    await poll(() => page.locator('#apps-body tr.chosen').textContent()).toContain('ui-app');
  });

  it('puts a device into each is_bind state through the form, and the partner API answers it', async () => {
    const sn = '8810UIDASH00001';
    const cases: [string, string, boolean | null, string][] = [
      ['true', A, true, 'owner must unbind first'],
      ['false', `${B}\n${A}\n${B}`, false, 'try these accounts'],
      ['null', '', null, 'no bind history'],
    ];
    for (const [radio, history, expected, plan] of cases) {
      await page.getByRole('textbox', { name: 'Serial number' }).fill(sn);
      await page.locator(`input[name="is_bind"][value="${radio}"]`).check();
      await page.getByLabel('Bind history, newest first, one account per line').fill(history);
      await page.getByRole('button', { name: 'Put device' }).click();
      await poll(() => page.locator(`tr[data-sn="${sn}"] td.bind-${radio}`).count()).toBe(1);
      const b = await binding(sn);
      expect(b.status).toBe(200);
      expect(b.body.is_bind).toBe(expected);
      await poll(() => page.locator('#recovery').textContent()).toContain(plan);
    }
    await page.screenshot({ path: join(REPORTS, 'dashboard-devices.png'), fullPage: true });
  });

  it('signs, binds and unbinds as the chosen app user, and the history counts repeats', async () => {
    const sn = '8810UIDASH00002';
    await page.getByRole('textbox', { name: 'Serial number' }).fill(sn);
    const row = page.locator(`tr[data-sn="${sn}"]`);
    await page.getByRole('button', { name: 'Sign', exact: true }).click();
    await poll(() => row.locator('td.bind-null').count()).toBe(1);
    await page.getByRole('button', { name: 'Bind', exact: true }).click();
    await page.getByRole('button', { name: 'Bind', exact: true }).click();
    await poll(() => row.locator('td.bind-true').count()).toBe(1);
    await poll(() => row.textContent()).toContain('×2');
    await page.getByRole('button', { name: 'Unbind', exact: true }).click();
    await poll(() => row.locator('td.bind-false').count()).toBe(1);
    expect((await binding(sn)).body.is_bind).toBe(false);
  });

  it('arranges every device-lock case with one button each, and presses record and stop', async () => {
    const sn = '8820UIREC00001';
    const cases: [string, string][] = [
      ['Classic lock', 'unlocked'],
      ['Cloud true, another account', 'owner must unbind it first'],
      ['Paired to a user not in history', 'none of the previous accounts'],
      ['Right id behind 55 duplicates', 'unlocked'],
      ['Right id as the 6th distinct id', 'none of the previous accounts'],
      ['Never paired, never signed', 'without recovery'],
      ['Out of range', 'not found by the scan'],
      ['Battery low', 'without recovery'],
      ['Recording in progress', 'is recording'],
    ];
    const caseNotice = page.locator('#recorder-cases + .notice');
    await page.getByRole('textbox', { name: 'Recorder to arrange (its serial)' }).fill(sn);
    // The outcome shows as soon as the control API answered: a refresh held up does not hold it.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const appList = /\/__admin\/apps\?/;
    const hold = async (route: Route) => {
      await held;
      await route.continue();
    };
    await page.route(appList, hold);
    try {
      await page.getByRole('button', { name: 'Classic lock', exact: true }).click();
      await poll(() => caseNotice.textContent()).toContain('unlocked');
    } finally {
      release();
      // The page's only route: gone once the requests it holds went on.
      await page.unrouteAll({ behavior: 'wait' });
    }
    for (const [button, ends] of cases) {
      await page.getByRole('button', { name: button, exact: true }).click();
      await poll(() => caseNotice.textContent()).toContain(ends);
    }
    await poll(() => page.locator(`tr[data-recorder="${sn}"]`).textContent()).toContain('recording since');
    await page.getByRole('button', { name: 'Press stop' }).click();
    await poll(async () => (await http('GET', `${sim.admin}/recorders/${sn}`)).body.recordings.length).toBe(
      1,
    );
    await page.getByRole('button', { name: 'Press record' }).click();
    await poll(async () => (await http('GET', `${sim.admin}/recorders/${sn}`)).body.recording !== null).toBe(
      true,
    );
    await page.screenshot({ path: join(REPORTS, 'dashboard-recorders.png'), fullPage: true });
  });

  it("switches a phone's Bluetooth and permissions, and the device protocol refuses its scan", async () => {
    const made = await http('POST', `${sim.url}/__device/phones`, {
      headers: bearer(await user()),
      json: { timing: 'instant' },
    });
    const id = made.body.phone_id;
    const row = page.locator(`tr[data-phone="${id}"]`);
    await poll(() => row.count()).toBe(1);
    await row.getByRole('button', { name: /^Bluetooth on/ }).click();
    await poll(
      async () => (await http('POST', `${sim.url}/__device/phones/${id}/scan`, { json: {} })).body.detail,
    ).toBe('BLUETOOTH_OFF');
    await row.getByRole('button', { name: /^Permissions granted/ }).click();
    await poll(
      async () => (await http('POST', `${sim.url}/__device/phones/${id}/scan`, { json: {} })).body.detail,
    ).toBe('PERMISSION_DENIED');
  });
});
