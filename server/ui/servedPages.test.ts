import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, openChromium, requireChromiumInCi } from '../testing/chromium.js';
import { REPORTS } from '../testing/dashboardPage.js';
import { startTestServer, type TestServer, tempDataDir } from '../testing/testServer.js';

// Every page the simulator serves to a browser, in Debian's Chromium at a phone's 390 px and a
// laptop's 1280 px, under the pages' own Content-Security-Policy (the other dashboard tests
// bypass it to inject axe-core): nothing in the console, and on the dashboard each table
// scrolls sideways in its own box while sections and forms stay still, and the section bar
// shows (a fade at the cut edge) that it hides links.

requireChromiumInCi('the served pages test');

/** Every HTML page: `/ca` with --https (without it, a 404 by design), `/__admin` redirects. */
const PAGES = ['/', '/docs', '/__admin', '/__admin/ui', '/ca'];
const WIDTHS = [390, 1280];

/** What the layout checks read of an element (the tests compile without the DOM's types). */
interface Box {
  scrollWidth: number;
  clientWidth: number;
  scrollLeft: number;
  parentElement: Box & { classList: { contains(c: string): boolean } };
  closest(selector: string): Box | null;
  getBoundingClientRect(): { left: number; right: number };
  checkVisibility(): boolean;
  dataset: Record<string, string | undefined>;
  id: string;
}

describe.skipIf(!haveChromium)('pages served to a browser, in Chromium', () => {
  let sim: TestServer;
  let tmp: Awaited<ReturnType<typeof tempDataDir>>;
  let browser: Awaited<ReturnType<typeof openChromium>>;

  beforeAll(async () => {
    await mkdir(REPORTS, { recursive: true });
    tmp = await tempDataDir();
    sim = await startTestServer({ https: true, caDir: join(tmp.dir, 'ca') });
    browser = await openChromium({ viewport: { width: 1280, height: 800 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sim?.stop();
    await tmp?.cleanup();
  });

  /** A page at `width`, with every console error, uncaught error and failed load it logged. */
  async function open(path: string, width: number): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width, height: 844 });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e}`));
    page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
    const answer = await page.goto(`${sim.url}${path}`, { waitUntil: 'load' });
    expect(answer?.status(), path).toBe(200);
    return { page, problems };
  }

  for (const width of WIDTHS)
    it(`at ${width} px: no page logs an error in the console`, async () => {
      for (const path of PAGES) {
        const { page, problems } = await open(path, width);
        if (path === '/docs') await page.locator('.opblock').first().waitFor();
        // A whole refresh of the dashboard's listings (not refreshes(): its waitForFunction
        // evaluates a string, which this page's CSP rightly refuses).
        if (path.startsWith('/__admin')) await page.locator('#live[data-refresh-ended]').waitFor();
        // Late logs (a refused icon, an asset) come after load: one more round trip settles them.
        await page.evaluate('new Promise((r) => setTimeout(r, 200))');
        expect(problems, `${path} at ${width} px`).toEqual([]);
        await page.close();
      }
    }, 60_000);

  it('at 390 px: each dashboard table scrolls in its own box, sections and forms never sideways', async () => {
    const { page, problems } = await open('/__admin/ui', 390);
    await page.locator('#devices-body tr').first().waitFor();
    await page.locator('#live[data-refresh-ended]').waitFor();
    const layout = await page.locator('body').evaluate((body) => {
      const all = (s: string) => [
        ...(body as unknown as { querySelectorAll(s: string): Box[] }).querySelectorAll(s),
      ];
      const scrolls = (b: Box) => b.scrollWidth > b.clientWidth;
      const tables = all('table').filter((t) => t.checkVisibility());
      return {
        tables: tables.length,
        // A table's box is its own: the wrapper that scrolls, holding the table alone.
        unboxed: tables.filter((t) => !t.parentElement.classList.contains('scroll-x')).length,
        scrollingBoxes: tables.filter((t) => scrolls(t.parentElement)).map((t) => t.closest('section')?.id),
        scrollingCards: all('.card')
          .filter(scrolls)
          .map((c) => c.id),
        wideForms: all('form')
          .filter((f) => f.checkVisibility())
          .filter((f) => {
            const card = f.closest('.card') ?? f;
            return scrolls(f) || f.getBoundingClientRect().right > card.getBoundingClientRect().right + 0.5;
          })
          .map((f) => f.id),
      };
    });
    expect(layout.tables).toBeGreaterThan(3);
    expect(layout.unboxed).toBe(0);
    // The wide tables (devices, recorders, journal: at least 40rem) are wider than a phone: they scroll.
    expect(layout.scrollingBoxes).toEqual(expect.arrayContaining(['devices', 'journal']));
    expect(layout.scrollingCards).toEqual([]);
    expect(layout.wideForms).toEqual([]);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  /** Whether the fade at each end of the section bar shows. */
  const fades = (page: Page) =>
    page.evaluate<{ start: boolean; end: boolean }>(`(() => {
      const bar = document.getElementById('sections');
      const shows = (at) => {
        const s = getComputedStyle(bar, at);
        return s.content !== 'none' && s.content !== 'normal' && Number(s.opacity) > 0 && parseFloat(s.width) > 0;
      };
      return { start: shows('::before'), end: shows('::after') };
    })()`);

  it('at 390 px the section bar shows it hides links, at whichever end; at 1280 px it shows none', async () => {
    const { page, problems } = await open('/__admin/ui', 390);
    await page.locator('#apps-body tr').first().waitFor();
    const list = page.locator('#sections ul');
    expect(
      await list.evaluate((ul) => (ul as unknown as Box).scrollWidth > (ul as unknown as Box).clientWidth),
    ).toBe(true);
    await expect.poll(() => fades(page)).toEqual({ start: false, end: true });
    await page.screenshot({ path: join(REPORTS, 'dashboard-nav-fade-390.png') });
    // Swiped to the end: the last link shows, the first ones hide.
    await list.evaluate((ul) => {
      const box = ul as unknown as Box;
      box.scrollLeft = box.scrollWidth;
    });
    await expect.poll(() => fades(page)).toEqual({ start: true, end: false });
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect.poll(() => fades(page)).toEqual({ start: false, end: false });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
