import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putPart, startUpload } from '../client/steps.js';
import { haveChromium, openChromium, requireChromiumInCi } from '../testing/chromium.js';
import { dashboardUrl, poll, REPORTS } from '../testing/dashboardPage.js';
import { DEMO_US, http, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// Finding one's way on the dashboard, in Debian's Chromium at a laptop's 1280 px and a
// phone's 390 px: the section bar stays in reach and marks where one is, empty sections take
// one line, the quirks are explained once, secrets shown once can be copied, and action
// buttons carry their action's name, not a record's id.

requireChromiumInCi('the dashboard navigation test');

describe.skipIf(!haveChromium)('dashboard navigation and layout in Chromium', () => {
  let sim: TestServer;
  let browser: Awaited<ReturnType<typeof openChromium>>;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await mkdir(REPORTS, { recursive: true });
    sim = await startTestServer();
    browser = await openChromium({ viewport: { width: 1280, height: 800 } });
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sim.url });
    page = await browser.context.newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(dashboardUrl(sim));
    await page.locator('#apps-body tr').first().waitFor();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await sim?.stop();
  });

  const bar = () => page.getByRole('navigation', { name: 'Sections' });
  const current = () => bar().locator('a[aria-current="location"]').textContent();

  /** What the swipe and the tap use of a link (the tests compile without the DOM's types). */
  interface Swipeable {
    offsetLeft: number;
    closest(selector: string): { scrollLeft: number; offsetLeft: number };
    getBoundingClientRect(): { left: number; top: number; width: number; height: number };
    contains(other: unknown): boolean;
  }

  /** Jump with the bar to `name`: the bar stays at the top, the section's heading lands under it. */
  async function jump(name: string, heading: string) {
    const link = bar().getByRole('link', { name, exact: true });
    // As a person does on a phone: swipe the bar sideways to the link, then tap it. Left to
    // playwright, bringing a link of a sticky bar into view can also move the window under it.
    // (A function, not a string: a string is evaluated as an expression, so it never ran.)
    await link.evaluate((a) => {
      const el = a as unknown as Swipeable;
      const list = el.closest('ul');
      list.scrollLeft = el.offsetLeft - list.offsetLeft - 16;
    });
    // Then tap the link where it now is, once it is what a tap there reaches: link.click() may
    // first scroll a sticky bar's link "into view", moving the window; the bar then follows
    // the sections passed on the way, and the tap lands on another link.
    const spot = () =>
      link.evaluate((a) => {
        const el = a as unknown as Swipeable;
        const r = el.getBoundingClientRect();
        const x = r.left + r.width / 2;
        const y = r.top + r.height / 2;
        const hit = (
          globalThis as unknown as { document: { elementFromPoint(x: number, y: number): unknown } }
        ).document.elementFromPoint(x, y);
        return hit && el.contains(hit) ? { x, y } : null;
      });
    await expect.poll(spot).not.toBeNull();
    const at = (await spot())!;
    await page.mouse.click(at.x, at.y);
    await poll(current).toBe(name);
    const barBox = (await bar().boundingBox())!;
    expect(barBox.y).toBe(0);
    // Under the bar, and at its top unless the page ends before the section could get there.
    const h = (await page.getByRole('heading', { name: heading, exact: true }).boundingBox())!;
    expect(h.y).toBeGreaterThanOrEqual(barBox.height - 1);
    const atEnd = await page.evaluate<boolean>(
      'innerHeight + scrollY >= document.documentElement.scrollHeight - 2',
    );
    if (!atEnd) expect(h.y).toBeLessThan(barBox.height + 60);
    expect(h.y + h.height).toBeLessThanOrEqual(page.viewportSize()!.height);
  }

  it('at 1280 px: the bar jumps to every section, stays at the top and marks the one in view', async () => {
    const links = await bar().getByRole('link').allTextContents();
    expect(links).toEqual([
      'Apps',
      'Clock',
      'Devices',
      'Recorders',
      'Uploads',
      'Tasks',
      'Faults',
      'Webhooks',
      'Journal',
    ]);
    expect(await current()).toBe('Apps');
    await jump('Faults', 'Fault rules');
    expect(new URL(page.url()).hash).toBe('#faults');
    await jump('Devices', 'Devices');
    await page.screenshot({ path: join(REPORTS, 'dashboard-nav-1280.png') });
    // Scrolled by hand to the end, the last section is the current one.
    await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    await poll(current).toBe('Journal');
  });

  it('collapses an empty listing to one line, keeps its form, and opens when a row arrives', async () => {
    const uploads = page.locator('#uploads');
    await poll(() => uploads.locator('.empty-note').isVisible()).toBe(true);
    expect(await page.locator('#uploads-list').isVisible()).toBe(false);
    expect(await bar().getByRole('link', { name: 'Uploads' }).getAttribute('class')).toContain('empty');
    // Fault rules: no table, the form to add the first rule still there.
    expect(await page.locator('#faults table').isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Add fault rule' }).isVisible()).toBe(true);
    const token = (await userToken(sim.api, DEMO_US, 'nav-uploader')).user;
    const s = await startUpload(sim.api, token, 100);
    await putPart(s.Parts[0]!.PresignedUrl, Buffer.alloc(100, 1));
    await poll(() => page.locator('#uploads-list').isVisible()).toBe(true);
    expect(await uploads.locator('.empty-note').isVisible()).toBe(false);
  });

  it('explains the quirks once, naming per app only what differs', async () => {
    await http('POST', `${sim.admin}/apps`, { json: { client_id: 'nav-live-errors', error_shape: 'live' } });
    const body = page.locator('#apps-body');
    await poll(() => body.textContent()).toContain('Errors as {code, message}');
    const text = (await page.locator('main').textContent())!;
    expect(text.match(/part ETag quoted/gi)).toHaveLength(1);
    expect(
      await page.locator('#apps-body tr', { hasText: DEMO_US.client_id }).locator('td').nth(2).textContent(),
    ).toBe('defaults');
  });

  it('puts a copy button beside each credential shown once', async () => {
    await page.getByLabel('New client id (optional)').fill('nav-copy');
    await page.getByRole('button', { name: 'Create app' }).click();
    const created = page.locator('#app-created');
    await poll(() => created.getByRole('button').count()).toBe(3);
    const app = (await http('GET', `${sim.admin}/apps`)).body.find(
      (a: { client_id: string }) => a.client_id === 'nav-copy',
    );
    const copy = created.locator('button.copy').nth(1);
    expect(await copy.getAttribute('class')).toContain('copy');
    await created.getByRole('button', { name: 'Copy secret_key' }).click();
    await poll(() => copy.textContent()).toContain('Copied');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(app.secret_key);
  });

  /** What a sighted user reads on a button: its text without the screen-reader-only part. */
  interface Shown {
    childNodes: Iterable<{ textContent: string | null; classList?: { contains(c: string): boolean } }>;
  }
  const visible = (b: unknown) =>
    [...(b as Shown).childNodes]
      .filter((n) => !n.classList?.contains('sr-only'))
      .map((n) => n.textContent)
      .join('');

  it('labels row buttons by their action, so tables fit their card', async () => {
    const open = page.locator('#journal-body button[data-open]').first();
    await open.waitFor();
    expect(await open.evaluate(visible)).toBe('Open');
    expect(await open.textContent()).toMatch(/^Open \S+$/);
    expect((await open.boundingBox())!.width).toBeLessThan(80);
    await page.getByRole('button', { name: 'View nav-copy' }).click();
    await http('POST', `${sim.admin}/apps/nav-copy/webhooks`, { json: { url: 'http://127.0.0.1:9/hook' } });
    const send = page.locator('#endpoints-body button[data-test]');
    await poll(() => send.count()).toBe(1);
    expect(await send.evaluate(visible)).toBe('Send test');
    for (const id of ['journal', 'webhooks', 'faults', 'tasks']) {
      const fits = await page.locator(`#${id}`).evaluate((card) => card.scrollWidth <= card.clientWidth);
      expect(fits, id).toBe(true);
    }
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(REPORTS, 'dashboard-1280.png'), fullPage: true });
  });

  it('at 390 px: the bar stays in reach, scrolls to show the current section, and nothing overflows', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate('window.scrollTo(0, 0)');
    await jump('Journal', 'Request journal');
    // The current link is inside the bar's visible width, though the bar scrolls sideways.
    const link = (await bar().locator('a[aria-current="location"]').boundingBox())!;
    expect(link.x).toBeGreaterThanOrEqual(0);
    expect(link.x + link.width).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(REPORTS, 'dashboard-nav-390.png') });
    await jump('Apps', 'Apps');
    await jump('Webhooks', 'Webhooks');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const height = await page.evaluate<number>('document.documentElement.scrollHeight');
    process.stdout.write(`dashboard height at 390 px: ${height} px\n`);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(REPORTS, 'dashboard-390-top.png') });
    expect(pageErrors).toEqual([]);
  });
});
