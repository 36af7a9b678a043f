import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { putPart, startUpload } from '../client/steps.js';
import { fromRoot } from '../core/root.js';
import { haveChromium, requireChromiumInCi } from '../testing/chromium.js';
import { poll, REPORTS, useDashboard } from '../testing/dashboardPage.js';
import { http, userToken } from '../testing/http.js';
import type { TestServer } from '../testing/testServer.js';
import { startReceiver } from '../testing/webhookReceiver.js';
import { verifyWebhook } from '../webhooks/signature.js';

// The dashboard's views of the app in view (ui-app) in Chromium: uploads, tasks, its clock,
// faults, the journal, paged listings and webhooks, then an accessibility check of the page.

requireChromiumInCi('the dashboard app view test');

describe.skipIf(!haveChromium)('dashboard at /__admin/ui in Chromium, viewing an app', () => {
  const d = useDashboard({
    failedResponses: true,
    // ui-app, made and viewed through the page, with a device its user signed and bound.
    prepare: async ({ page }) => {
      await page.getByLabel('New client id (optional)').fill('ui-app');
      await page.getByRole('button', { name: 'Create app' }).click();
      await page.locator('#app-created', { hasText: 'secret_key' }).waitFor();
      await page.getByRole('button', { name: 'View ui-app' }).click();
      await page.locator('#live', { hasText: 'showing ui-app' }).waitFor();
      const sn = '8810UIDASH00003';
      await page.getByRole('textbox', { name: 'Serial number' }).fill(sn);
      const row = page.locator(`tr[data-sn="${sn}"]`);
      await page.getByRole('button', { name: 'Sign', exact: true }).click();
      await row.locator('td.bind-null').waitFor();
      await page.getByRole('button', { name: 'Bind', exact: true }).click();
      await row.locator('td.bind-true').waitFor();
    },
  });
  let sim: TestServer;
  let page: Page;
  const pageErrors = d.pageErrors;
  beforeAll(() => {
    ({ sim, page } = d);
  });

  it('shows an upload session with the parts received, sizes and ETags', async () => {
    const app = (await http('GET', `${sim.admin}/apps`)).body.find(
      (a: { client_id: string }) => a.client_id === 'ui-app',
    );
    const token = (await userToken(sim.api, app, 'ui-uploader')).user;
    const s = await startUpload(sim.api, token, 1000);
    const part = await putPart(s.Parts[0]!.PresignedUrl, Buffer.alloc(1000, 7));
    const list = page.locator('#uploads-list');
    // Made outside the page: it shows at the next poll.
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
      await page.getByLabel('Name (optional)').fill('Transcripts to the CRM');
      await page.getByLabel('Receiver URL').fill(rc.url);
      await page.getByRole('button', { name: 'Register endpoint' }).click();
      const created = page.locator('#endpoint-created');
      await poll(() => created.textContent()).toContain('whsec_');
      const [ep] = (await http('GET', `${sim.admin}/apps/ui-app/webhooks`)).body;
      // Registered as the portal's "Add Subscription" does, with its name, which the list shows.
      expect(ep).toMatchObject({ name: 'Transcripts to the CRM', payload: 'docs' });
      await poll(() => page.locator('#endpoints-body').textContent()).toContain('Transcripts to the CRM');
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
