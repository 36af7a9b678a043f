import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, requireChromiumInCi } from '../testing/chromium.js';
import { A, poll, REPORTS, refreshes, useDashboard } from '../testing/dashboardPage.js';
import { DEMO_US, http } from '../testing/http.js';
import type { TestServer } from '../testing/testServer.js';

// What the dashboard says back in Chromium: refusals kept beside their forms, outcomes of
// device actions, refreshed results, labels that fit, and a phone-wide layout. A refusal must
// survive the page's refreshes: two whole ones run (refreshes()) before it is looked at again.

requireChromiumInCi('the dashboard feedback test');

describe.skipIf(!haveChromium)('dashboard feedback in Chromium', () => {
  const d = useDashboard({
    // Polling as for a person (1.5 s): refreshes() asks the page for its refreshes instead of
    // waiting for the timer's, and only "View result" waits for a poll. Measured, the 500 ms
    // polls this file used cost more CPU (Chromium's and the simulator's) than they saved.
    prepare: async ({ page }) => {
      await page.getByRole('button', { name: `View ${DEMO_US.client_id}` }).click();
      await page.locator('#live', { hasText: `showing ${DEMO_US.client_id}` }).waitFor();
    },
  });
  let sim: TestServer;
  let page: Page;
  const pageErrors = d.pageErrors;
  beforeAll(() => {
    ({ sim, page } = d);
  });

  it('recorder actions: says when the serial is empty, arranges paired_to_user, keeps a refusal beside the buttons', async () => {
    const serial = page.getByRole('textbox', { name: 'Recorder to arrange (its serial)' });
    const caseNotice = page.locator('#recorder-cases + .notice');
    const actionNotice = page.locator('#recorder-actions + .notice');
    await serial.fill('');
    await page.getByRole('button', { name: 'Press record' }).click();
    await poll(() => actionNotice.textContent()).toContain('serial number first');
    await page.getByRole('button', { name: 'Classic lock', exact: true }).click();
    await poll(() => caseNotice.textContent()).toContain('serial number first');
    const sn = '8820UIREC00002';
    await serial.fill(sn);
    await page.getByRole('textbox', { name: /User it is paired to/ }).fill(A);
    await page.getByRole('button', { name: 'Paired and bound to the user below', exact: true }).click();
    await poll(() => caseNotice.textContent()).toContain('without recovery');
    expect((await http('GET', `${sim.admin}/recorders/${sn}`)).body.paired_to).toBe(A);
    await page.getByRole('button', { name: 'Press resume' }).click();
    await poll(() => actionNotice.textContent()).toContain('Refused (409 NOT_RECORDING)');
    await refreshes(page);
    expect(await actionNotice.isVisible()).toBe(true);
  });

  it('keeps a refused action (bad serial, 422) beside its form until dismissed', async () => {
    await page.getByRole('textbox', { name: 'Serial number' }).fill('bad');
    await page.getByRole('button', { name: 'Put device' }).click();
    const notice = page.locator('#device-form + .notice-error');
    await poll(() => notice.textContent()).toContain('Refused (422)');
    await refreshes(page);
    expect(await notice.isVisible()).toBe(true);
    // Beside the action: its top within the form's reach, not at the bottom of the page.
    const form = (await page.locator('#device-form').boundingBox())!;
    const box = (await notice.boundingBox())!;
    expect(box.y - (form.y + form.height)).toBeLessThan(40);
    await page.screenshot({
      path: join(REPORTS, 'dashboard-error.png'),
      fullPage: false,
      clip: {
        x: 0,
        y: Math.max(0, form.y - 40),
        width: 1440,
        height: form.height + box.height + 120,
      },
    });
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    expect(await notice.count()).toBe(0);
  });

  it('says Sign and Bind worked, and why a bind was refused (403)', async () => {
    const sn = '8810UIFEED00001';
    await page.getByRole('textbox', { name: 'Serial number' }).fill(sn);
    const notice = page.locator('#device-actions + .notice');
    await page.getByRole('button', { name: 'Sign', exact: true }).click();
    await poll(() => notice.textContent()).toContain(
      `Signed ${sn} as user dashboard-user: is_bind is now null`,
    );
    await page.getByRole('button', { name: 'Bind', exact: true }).click();
    await poll(() => notice.textContent()).toContain('Bound');
    expect(await notice.getAttribute('class')).toContain('notice-ok');
    await page.getByRole('button', { name: 'Unbind', exact: true }).click();
    await poll(() => notice.textContent()).toContain('Unbound');
    // Bound to another account: the SDK's bind is refused, and the page says so.
    await http('PUT', `${sim.admin}/devices/${sn}`, {
      json: { is_bind: true, bind_history: [A], owner: { sub: A, client_id: 'someone-else' } },
    });
    await page.getByRole('button', { name: 'Bind', exact: true }).click();
    await poll(() => notice.textContent()).toContain('Refused (403 DEVICE_BOUND)');
    await refreshes(page);
    expect(await page.locator('#device-actions + .notice-error').isVisible()).toBe(true);
  });

  it('keeps an empty fault rule refusal (422) beside the fault form', async () => {
    await page.getByRole('button', { name: 'Add fault rule' }).click();
    const notice = page.locator('#fault-form + .notice-error');
    await poll(() => notice.textContent()).toContain('Refused (422');
    await refreshes(page);
    expect(await notice.isVisible()).toBe(true);
  });

  it('refreshes "View result" after the task is forced to FAILURE', async () => {
    const task = await http('POST', `${sim.api}/open/partner/ai/transcriptions/`, {
      headers: { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.api_key },
      json: { file_url: 'https://example.com/audio/feedback.mp3' },
    });
    const id = task.body.transcription_id as string;
    const row = page.locator(`tr[data-task="${id}"]`);
    await poll(() => row.count()).toBe(1);
    await row.getByRole('button', { name: 'View result' }).click();
    const heading = page.locator('#result h3');
    await poll(() => heading.textContent()).toContain(`Result of ${id}`);
    await http('PUT', `${sim.admin}/transcriptions/${id}`, {
      json: { status: 'FAILURE', message: 'forced' },
    });
    await poll(() => heading.textContent()).toBe(`Result of ${id}: FAILURE`);
    expect(await page.locator('#result').textContent()).toContain('Message: forced');
  });

  it('explains quirks in words and keeps buttons on one line with short labels', async () => {
    // The defaults in words once, under the table; a row names only what it sets otherwise.
    const quirks = page.locator('#apps-body tr').first().locator('td').nth(2);
    expect(await quirks.textContent()).toBe('defaults');
    const legend = await page.locator('#quirks-defaults').textContent();
    expect(legend).toContain('errors as {detail, message}');
    expect(legend).toContain('part ETag quoted as S3 does');
    const heights = await page
      .locator('main button:visible')
      .evaluateAll((bs) => bs.map((b) => ({ text: b.textContent, h: b.getBoundingClientRect().height })));
    const tallest = Math.min(...heights.map((b) => b.h)) * 1.5;
    expect(heights.filter((b) => b.h > tallest)).toEqual([]);
    // Short visible labels: the full id is for screen readers only.
    const force = (await page.locator('[data-force]').first().boundingBox())!;
    expect(force.width).toBeLessThan(100);
  });

  it('does not overflow at 390 px wide', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await refreshes(page);
    const wide = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(wide).toBeLessThanOrEqual(390);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(REPORTS, 'dashboard-390.png'), fullPage: false });
    await page.locator('#devices-h').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(REPORTS, 'dashboard-390-devices.png'), fullPage: false });
    await page.setViewportSize({ width: 1440, height: 900 });
    expect(pageErrors).toEqual([]);
  });
});
