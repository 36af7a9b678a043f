import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putPart, startUpload } from '../client/steps.js';
import { fromRoot } from '../core/root.js';
import { haveChromium, openChromium, requireChromiumInCi } from '../testing/chromium.js';
import { bearer, DEMO_US, http, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { startReceiver } from '../testing/webhookReceiver.js';
import { verifyWebhook } from '../webhooks/signature.js';

// The dashboard in a real browser: Debian's Chromium driven by playwright-core (no browser
// download). Every arrangement goes through the page; the partner and control APIs are then
// asked whether it took effect.

const REPORTS = fromRoot('reports');
// The page polls every 1.5 s; on a busy CI machine a render can take a few seconds more.
const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 8000 });
const A = 'client_user_3f2c8a90-1b2c-4d5e-8f90-123456789abc';
const B = 'client_user_9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

requireChromiumInCi('the dashboard browser test');

const openBrowser = () =>
  openChromium({
    viewport: { width: 1440, height: 900 },
    // axe-core is injected as an inline script, which the page's CSP rightly refuses.
    bypassCSP: true,
  });

describe.skipIf(!haveChromium)('dashboard at /__admin/ui in Chromium', () => {
  let sim: TestServer;
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await mkdir(REPORTS, { recursive: true });
    sim = await startTestServer();
    browser = await openBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('response', (r) => {
      if (r.status() >= 400) pageErrors.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    await page.goto(`${sim.url}/__admin/ui`);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sim?.stop();
  });

  const user = async () => (await userToken(sim.api, DEMO_US, 'ui-checker')).user;
  const binding = async (sn: string) =>
    http('GET', `${sim.api}/open/partner/sdk/binding?type=notepro&sn=${sn}`, {
      headers: bearer(await user()),
    });

  it('creates an app, shows its credentials once, and scopes the views to it', async () => {
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

  it('shows an upload session with the parts received, sizes and ETags', async () => {
    const app = (await http('GET', `${sim.admin}/apps`)).body.find(
      (a: { client_id: string }) => a.client_id === 'ui-app',
    );
    const token = (await userToken(sim.api, app, 'ui-uploader')).user;
    const s = await startUpload(sim.api, token, 1000);
    const part = await putPart(s.Parts[0]!.PresignedUrl, Buffer.alloc(1000, 7));
    const list = page.locator('#uploads-list');
    // Made outside the page: it shows at the next poll (every 1.5 s).
    await poll(() => list.textContent()).toContain(part.etag!);
    expect(await list.textContent()).toContain('#1: 1000 B');
  });

  it('forces a task to FAILURE and shows it on the timeline', async () => {
    const app = (await http('GET', `${sim.admin}/apps`)).body.find(
      (a: { client_id: string }) => a.client_id === 'ui-app',
    );
    const task = await http('POST', `${sim.api}/open/partner/ai/transcriptions/`, {
      headers: { 'x-client-id': app.client_id, 'x-client-api-key': app.api_key },
      json: { file_url: 'https://example.com/audio/dashboard.mp3' },
    });
    expect(task.status).toBe(200);
    const id = task.body.transcription_id as string;
    await page.getByRole('button', { name: `Force ${id}` }).click();
    await page.getByRole('combobox', { name: 'Status', exact: true }).selectOption('FAILURE');
    await page
      .getByRole('textbox', { name: 'Message', exact: true })
      .first()
      .fill('forced from the dashboard');
    await page.getByRole('button', { name: 'Force status' }).click();
    await poll(() => page.locator(`tr[data-task="${id}"][data-status="FAILURE"]`).count()).toBe(1);
    const polled = await http('GET', `${sim.api}/open/partner/ai/transcriptions/${id}`, {
      headers: { 'x-client-id': app.client_id, 'x-client-api-key': app.api_key },
    });
    expect(polled.body.status).toBe('FAILURE');

    await page.getByRole('button', { name: `Force ${id}` }).click();
    await page.getByRole('combobox', { name: 'Status', exact: true }).selectOption('SUCCESS');
    await page.getByRole('button', { name: 'Force status' }).click();
    await poll(() => page.locator(`tr[data-task="${id}"][data-status="SUCCESS"]`).count()).toBe(1);
    await page.locator(`tr[data-task="${id}"]`).getByRole('button', { name: 'View result' }).click();
    const result = page.locator('#result');
    await poll(() => result.locator('tbody tr').count()).toBeGreaterThan(0);
    expect(await result.locator('th').allTextContents()).toEqual(['Start', 'End', 'Speaker', 'Text']);
    expect(await result.locator('tbody tr td').nth(2).textContent()).not.toBe('');
  });

  it("advances one app's clock by an hour and leaves the instance clock alone", async () => {
    await page.getByRole('combobox', { name: 'Clock', exact: true }).selectOption('ui-app');
    await page.getByRole('button', { name: '+1 h' }).click();
    await poll(() => page.locator('#clock-app [data-offset="3600000"]').count()).toBe(1);
    expect((await http('GET', `${sim.admin}/clock?client_id=ui-app`)).body.offset_ms).toBe(3_600_000);
    expect((await http('GET', `${sim.admin}/clock`)).body.offset_ms).toBe(0);
    expect(await page.locator('#clock-instance [data-offset="0"]').count()).toBe(1);
  });

  it('adds a fault rule from the form, sees it, and removes it', async () => {
    await page
      .getByRole('combobox', { name: 'Operation', exact: true })
      .first()
      .selectOption('getDeviceBinding');
    await page.getByLabel('Answer status').fill('503');
    await page.getByRole('button', { name: 'Add fault rule' }).click();
    const rows = page.locator('#faults-body tr');
    await poll(() => rows.count()).toBe(1);
    const [fault] = (await http('GET', `${sim.admin}/faults?client_id=ui-app`)).body;
    expect(fault).toMatchObject({
      operation: 'getDeviceBinding',
      status: 503,
      match: { client_id: 'ui-app' },
    });
    await page.getByRole('button', { name: `Remove ${fault.id}` }).click();
    await poll(() => rows.count()).toBe(0);
    expect((await http('GET', `${sim.admin}/faults`)).body).toEqual([]);
  });

  it('tails the journal, filters by operation, and opens a redacted entry', async () => {
    await page.getByRole('combobox', { name: 'Operation', exact: true }).last().selectOption('bindDevice');
    const row = page.locator('#journal-body tr[data-operation="bindDevice"]').first();
    // The unfiltered tail held other operations: wait for the filtered list to replace it.
    await poll(() => page.locator('#journal-body tr:not([data-operation="bindDevice"])').count()).toBe(0);
    expect(await row.count()).toBe(1);
    await row.getByRole('button').click();
    const detail = page.locator('#journal-detail');
    await poll(() => detail.textContent()).toContain('[redacted]');
    expect(await detail.textContent()).toContain('/open/partner/sdk/bind');
    await page.screenshot({ path: join(REPORTS, 'dashboard.png'), fullPage: true });
    // docs/dashboard.png (README's picture) is refreshed only on request, so runs leave the tree clean.
    if (process.env.UPDATE_DASHBOARD_SCREENSHOT) {
      await page.evaluate('window.scrollTo(0, 0)');
      await page.screenshot({ path: fromRoot('docs', 'dashboard.png') });
    }
  });

  it('shows one page of each listing, asks only for that page, and pages through devices', async () => {
    const listings =
      /^\/__admin\/(apps|devices|recorders|uploads|transcriptions|transcripts|faults|requests|apps\/[^/]+\/(webhooks|webhook-deliveries))$/;
    const asked: URL[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (r.method() === 'GET' && listings.test(url.pathname)) asked.push(url);
    });
    for (let i = 0; i < 30; i++)
      await http('PUT', `${sim.admin}/devices/8829PAGE${String(i).padStart(5, '0')}`, {
        json: { is_bind: false },
      });
    const total = (await http('GET', `${sim.admin}/devices?limit=1000`)).body.length;
    expect(total).toBeGreaterThan(30);
    const rows = page.locator('#devices-body tr');
    const next = page.getByRole('button', { name: 'Next page of devices' });
    await poll(() => next.isEnabled()).toBe(true);
    expect(await rows.count()).toBe(25);
    await next.click();
    await poll(() => rows.count()).toBe(total - 25);
    expect(await page.locator('#devices-pager').textContent()).toContain('Page 2');
    expect(await next.isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page of devices' }).click();
    await poll(() => rows.count()).toBe(25);
    // Every listing the page polled asked for one page (25 rows, the journal's 50), never all.
    // (The app in view, ui-app, adds its webhook endpoints and deliveries: ten listings.)
    await poll(async () => new Set(asked.map((u) => u.pathname)).size).toBe(10);
    for (const u of asked) expect(u.searchParams.get('limit'), u.href).toMatch(/^(25|50)$/);
  });

  it('registers a webhook endpoint, shows its secret once, sends a test event and redelivers it', async () => {
    const rc = await startReceiver({ status: 500 });
    try {
      await page.getByLabel('Receiver URL').fill(rc.url);
      await page.getByRole('button', { name: 'Register endpoint' }).click();
      const created = page.locator('#endpoint-created');
      await poll(() => created.textContent()).toContain('whsec_');
      const [ep] = (await http('GET', `${sim.admin}/apps/ui-app/webhooks`)).body;
      const secret = /whsec_[0-9a-f]+/.exec((await created.textContent())!)![0];
      expect(await page.locator('#endpoints-body').evaluate((n) => n.outerHTML)).not.toContain(secret);
      await page.getByRole('button', { name: `Send test event to ${ep.id}` }).click();
      await rc.waitFor(1);
      expect(verifyWebhook({ secret, body: rc.got[0]!.body, headers: rc.got[0]!.headers })).toEqual({
        ok: true,
      });
      const row = page.locator('#deliveries-body tr').first();
      await poll(() => row.textContent()).toContain('500');
      const [d] = (await http('GET', `${sim.admin}/apps/ui-app/webhook-deliveries`)).body;
      await page.getByRole('button', { name: `Details of ${d.id}` }).click();
      await poll(() => page.locator('#delivery-detail').textContent()).toContain('plaud-signature');
      rc.behave({ status: 200 });
      await page.getByRole('button', { name: `Redeliver ${d.id}` }).click();
      await rc.waitFor(2);
      await poll(() => page.locator('#deliveries-body tr').first().textContent()).toContain('succeeded');
      await page.getByRole('button', { name: `Pause ${ep.id}` }).click();
      await poll(async () => (await http('GET', `${sim.admin}/apps/ui-app/webhooks`)).body[0].enabled).toBe(
        false,
      );
    } finally {
      await rc.close();
    }
  });

  it('has no serious or critical accessibility violation (axe-core) and no page error', async () => {
    await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
    const violations = await page.evaluate(async () => {
      // biome-ignore lint/suspicious/noExplicitAny: axe is injected into the page at run time
      const g = globalThis as any;
      const result = await g.axe.run(g.document);
      return (result.violations as { id: string; impact: string; nodes: { target: string[] }[] }[]).map(
        (v) => ({
          id: v.id,
          impact: v.impact,
          targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
        }),
      );
    });
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

describe.skipIf(!haveChromium)('dashboard with --admin-token', () => {
  it('serves the page without the token, asks for it once, then shows data', async () => {
    const sim = await startTestServer({ adminToken: 'dash-secret-token' });
    const browser = await openBrowser();
    try {
      const page = await browser.context.newPage();
      const res = await page.goto(`${sim.url}/__admin/ui`);
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

describe.skipIf(!haveChromium)('dashboard feedback in Chromium', () => {
  let sim: TestServer;
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await mkdir(REPORTS, { recursive: true });
    sim = await startTestServer();
    browser = await openBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(`${sim.url}/__admin/ui`);
    await page.getByRole('button', { name: `View ${DEMO_US.client_id}` }).click();
    await page.locator('#live', { hasText: `showing ${DEMO_US.client_id}` }).waitFor();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sim?.stop();
  });

  // Longer than two polls (1.5 s each): an error must survive the refreshes.
  const twoPolls = () => new Promise((r) => setTimeout(r, 3500));

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
    await twoPolls();
    expect(await actionNotice.isVisible()).toBe(true);
  });

  it('keeps a refused action (bad serial, 422) beside its form until dismissed', async () => {
    await page.getByRole('textbox', { name: 'Serial number' }).fill('bad');
    await page.getByRole('button', { name: 'Put device' }).click();
    const notice = page.locator('#device-form + .notice-error');
    await poll(() => notice.textContent()).toContain('Refused (422)');
    await twoPolls();
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
    await twoPolls();
    expect(await page.locator('#device-actions + .notice-error').isVisible()).toBe(true);
  });

  it('keeps an empty fault rule refusal (422) beside the fault form', async () => {
    await page.getByRole('button', { name: 'Add fault rule' }).click();
    const notice = page.locator('#fault-form + .notice-error');
    await poll(() => notice.textContent()).toContain('Refused (422');
    await twoPolls();
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
    await twoPolls();
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
