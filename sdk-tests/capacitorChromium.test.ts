import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from '../server/client/partnerClient.js';
import { completeUpload, md5hex, startUpload } from '../server/client/steps.js';
import { fromRoot } from '../server/core/root.js';
import type { PlaudSdkWeb } from '../server/doubles/capacitor/capacitor.js';
import type { Timing } from '../server/doubles/phone/timing.js';
import { bundlePage, haveChromium, openChromium, requireChromiumInCi } from '../server/testing/chromium.js';
import { DEMO_US, http } from '../server/testing/http.js';
import { startTestServer, type TestServer } from '../server/testing/testServer.js';

// A Capacitor web app in Debian's Chromium (playwright-core, no browser download) with the
// Capacitor double installed both documented ways, driving a virtual recorder: init, scan,
// connect, list, a recording made on the device, export, readFile, putBinary of the upload
// parts; its backend (this test) presigns, completes and transcribes with the partner client.

/** What the app page exposes to this driver (sdk-tests/browser/capacitorApp.ts). */
type AppPage = { PlaudSdk: PlaudSdkWeb; events: Array<{ name: string; data: Record<string, unknown> }> };

requireChromiumInCi('the Capacitor double browser test');

/**
 * Waits for the page's events look every 50 ms, not at each animation frame (playwright's
 * default): measured, frame-driven polling kept the renderer and the compositor drawing frames
 * of an unchanged page, ~0.1 s of Chromium CPU per second of waiting (the hardware timings'
 * scan and handshake are seconds of it), about half of it at an interval.
 */
const EVERY_50_MS = { polling: 50 };

describe.skipIf(!haveChromium)('the Capacitor double in Chromium', () => {
  let sim: TestServer;
  let browser: Awaited<ReturnType<typeof openChromium>>;
  let context: BrowserContext;
  let app: string;

  beforeAll(async () => {
    // Still pending at the first poll, done a few fast polls later: the partner's poll loop runs
    // without the test sleeping through back-off steps sized for a real service.
    sim = await startTestServer({ transcriptionDelay: 300 });
    app = await bundlePage(fromRoot('sdk-tests/browser/capacitorApp.ts'), {
      'partner-sim/doubles/capacitor': fromRoot('server/doubles/capacitor/capacitor.ts'),
    });
    browser = await openChromium();
    context = browser.context;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sim?.stop();
  });

  /** The app page, served at the simulator's origin as a deployed web app would be. */
  async function openApp(
    install: 'preregister' | 'loader',
    platform: 'ios' | 'android',
    timing: Timing,
  ): Promise<Page> {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const url = `${sim.url}/__test-app/${install}.html`;
    await page.route(url, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><title>app</title><script>window.__DOUBLE__=${JSON.stringify({ simulatorUrl: sim.url, platform, install, timing })}</script><script type="module">${app.replace(/<\/script/g, '<\\/script')}</script>`,
      }),
    );
    await page.goto(url);
    await page.waitForFunction(() => 'PlaudSdk' in globalThis, undefined, EVERY_50_MS);
    expect(errors).toEqual([]);
    return page;
  }

  const until = (page: Page, name: string, match: Record<string, unknown> = {}) =>
    page
      .waitForFunction(
        ([n, m]) =>
          (globalThis as unknown as AppPage).events.find(
            (e) =>
              e.name === n &&
              Object.entries(m).every(([k, v]) => JSON.stringify(e.data[k]) === JSON.stringify(v)),
          )?.data,
        [name, match] as const,
        { timeout: 15_000, ...EVERY_50_MS },
      )
      .then((h) => h.jsonValue() as Promise<Record<string, unknown>>);

  // One install plays the phone's own timings (scan, handshake, file list, export steps), the
  // other waits for none: both ways run in Chromium, and the file waits for the hardware once.
  it.each([
    ['preregister', 'android', 'hardware'],
    ['loader', 'ios', 'instant'],
  ] as const)(
    'installed by %s on %s: pairs, syncs a device recording, uploads it with putBinary, transcribes',
    async (install, platform, timing) => {
      const sn = install === 'loader' ? '8810WEB000000001' : '8820WEB000000002';
      const userId = `web-${install}`;
      const client = new PartnerClient({ api: sim.api, app: DEMO_US, userId });
      expect(
        (await http('POST', `${sim.admin}/recorders/${sn}/arrange`, { json: { case: 'never_paired' } }))
          .status,
      ).toBe(200);
      const page = await openApp(install, platform, timing);
      const token = await client.userToken();

      const device = await page.evaluate(
        async ([t, s]) => {
          const sdk = (globalThis as unknown as AppPage).PlaudSdk;
          await sdk.initSDK({ userAccessToken: t, customDomain: 'platform-us.plaud.ai' });
          await sdk.startScan();
          return s;
        },
        [token, sn] as const,
      );
      const scan = (await page
        .waitForFunction(
          (s) =>
            (globalThis as unknown as AppPage).events
              .flatMap((e) =>
                e.name === 'scanResult' ? (e.data.devices as Array<{ serialNumber: string }>) : [],
              )
              .find((d) => d.serialNumber === s),
          device,
          { timeout: 15_000, ...EVERY_50_MS },
        )
        .then((h) => h.jsonValue())) as { uuid: string };
      expect(scan.uuid).toMatch(
        platform === 'android' ? /^([0-9A-F]{2}:){5}[0-9A-F]{2}$/ : /^[0-9A-Fa-f-]{36}$/,
      );

      await page.evaluate(
        (uuid) => (globalThis as unknown as AppPage).PlaudSdk.connectBleDevice({ uuid }),
        scan.uuid,
      );
      expect(await until(page, 'bind')).toMatchObject({ sn, status: 0 });
      await client.bind(sn);

      await http('POST', `${sim.admin}/recorders/${sn}/record`, { json: { action: 'start' } });
      const started = await until(page, 'recordStart');
      await http('POST', `${sim.admin}/recorders/${sn}/record`, { json: { action: 'stop', duration_s: 3 } });
      await until(page, 'recordStop', { sessionId: started.sessionId });
      await page.evaluate(() => (globalThis as unknown as AppPage).PlaudSdk.getFileList());
      const list = (await until(page, 'fileList')) as { files: Array<{ sessionId: number }> };
      expect(list.files.map((f) => f.sessionId)).toEqual([started.sessionId]);

      // The app's export, read back through the bridge as the official demo does.
      const b64 = await page.evaluate(async (sessionId) => {
        const sdk = (globalThis as unknown as AppPage).PlaudSdk;
        const { outputPath } = await sdk.exportAudio({ sessionId, format: 'mp3' });
        return (await sdk.readFile({ path: outputPath })).data;
      }, started.sessionId as number);
      const audio = Buffer.from(b64, 'base64');
      expect(audio.length).toBeGreaterThan(1000);

      // Backend presigns; the page PUTs each part natively (putBinary); backend completes.
      const session = await startUpload(sim.api, token, audio.length, 'mp3');
      const parts = session.Parts.map((p) => ({
        n: p.PartNumber,
        url: p.PresignedUrl,
        data: audio
          .subarray((p.PartNumber - 1) * session.ChunkSize, p.PartNumber * session.ChunkSize)
          .toString('base64'),
      }));
      const puts = await page.evaluate(async (ps) => {
        const sdk = (globalThis as unknown as AppPage).PlaudSdk;
        return Promise.all(
          ps.map(async (p) => ({ n: p.n, ...(await sdk.putBinary({ url: p.url, data: p.data })) })),
        );
      }, parts);
      expect(puts.every((p) => p.status === 200 && p.etag)).toBe(true);
      const done = await completeUpload(sim.api, token, {
        file_id: session.FileId,
        upload_id: session.UploadId,
        part_list: puts.map((p) => ({ PartNumber: p.n, ETag: p.etag! })),
        file_md5: md5hex(audio),
      });
      expect(done.status, done.text).toBe(200);
      const task = await client.transcribe((done.body as { DownloadUrl: string }).DownloadUrl);
      const { task: finished } = await client.poll(task.transcription_id, {
        deadlineMs: 20_000,
        backoff: { baseMs: 100, capMs: 400 },
      });
      expect(finished.status).toBe('SUCCESS');

      await client.unbind(sn);
      await page.evaluate(() =>
        (globalThis as unknown as AppPage).PlaudSdk.depair({
          clear: true,
        }),
      );
      expect(await until(page, 'depair')).toEqual({ status: 0 });
      await page.close();
    },
    60_000,
  );
});
