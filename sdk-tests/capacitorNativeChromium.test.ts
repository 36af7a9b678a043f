import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from '../server/client/partnerClient.js';
import { completeUpload, md5hex, startUpload } from '../server/client/steps.js';
import { fromRoot } from '../server/core/root.js';
import { bundleCapacitorNative } from '../server/dev/bundleBrowser.js';
import { TokenService } from '../server/domain/tokens.js';
import { capacitorNativeScript } from '../server/doubles/capacitorNative/capacitorNativeDev.js';
import type { EventName, EventPayloads, ScanDevice } from '../server/doubles/phone/types.js';
import { bundlePage, haveChromium, openChromium, requireChromiumInCi } from '../server/testing/chromium.js';
import { DEMO_US, http } from '../server/testing/http.js';
import { startTestServer, type TestServer } from '../server/testing/testServer.js';
import { type Bridge, connectWithRecovery } from './partnerRecovery.js';

// An unchanged Capacitor page (the real @capacitor/core, the plugin registered with no web
// implementation, everything behind isNativePlatform()) in Debian's Chromium, with the
// native-side double loaded first by playwright's addInitScript, as a phone's shell is there
// before the page. On each platform: scan → lock → recovery → re-pair → a recording made on
// the device → export → readFile → putBinary of the upload parts → transcription.

requireChromiumInCi('the Capacitor native-side double browser test');

type PageApp = { app: Record<string, never> & { ready: boolean } };
const call = (page: Page, target: string, method: string, options?: unknown) =>
  page.evaluate(
    ([t, m, o]) => {
      const plugin = (
        globalThis as unknown as Record<string, Record<string, Record<string, (o: unknown) => unknown>>>
      ).app![t]!;
      return plugin[m]!(o);
    },
    [target, method, options] as const,
  );

/** The partner's recovery (sdk-tests/partnerRecovery.ts) driving the page's own plugin object. */
function pageBridge(page: Page, heard: Array<{ name: string; data: unknown }>) {
  const listeners = new Set<{ name: string; cb: (d: unknown) => void }>();
  const bridge: Bridge = {
    addListener: async <K extends EventName>(name: K, cb: (d: EventPayloads[K]) => void) => {
      const l = { name, cb: cb as (d: unknown) => void };
      listeners.add(l);
      return { remove: () => listeners.delete(l) };
    },
    initSDK: (o) => call(page, 'PlaudSdk', 'initSDK', o) as Promise<void>,
    startScan: () => call(page, 'PlaudSdk', 'startScan') as Promise<void>,
    stopScan: () => call(page, 'PlaudSdk', 'stopScan') as Promise<void>,
    connectBleDevice: (o) => call(page, 'PlaudSdk', 'connectBleDevice', o) as Promise<void>,
    recoveryConnectBleDevice: (d: ScanDevice, historicalId: string) =>
      call(page, 'PlaudSdk', 'recoveryConnectBleDevice', { uuid: d.uuid, historicalId }) as Promise<void>,
    disconnect: () => call(page, 'PlaudSdk', 'disconnect') as Promise<void>,
    depair: (o) => call(page, 'PlaudSdk', 'depair', o) as Promise<void>,
  };
  const deliver = (name: string, data: unknown) => {
    heard.push({ name, data });
    for (const l of [...listeners]) if (l.name === name) l.cb(data);
  };
  return { bridge, deliver };
}

describe.skipIf(!haveChromium)('an unchanged Capacitor page over the native-side double, in Chromium', () => {
  let sim: TestServer;
  let browser: Awaited<ReturnType<typeof openChromium>>;
  let context: BrowserContext;
  let app: string;
  let dir: string;
  let serial = 0;

  beforeAll(async () => {
    // Still pending at the first poll, done a few fast polls later: the partner's poll loop runs
    // without the test sleeping through back-off steps sized for a real service.
    sim = await startTestServer({ transcriptionDelay: 300 });
    dir = await mkdtemp(join(tmpdir(), 'partner-sim-capnative-'));
    await bundleCapacitorNative(
      fromRoot('server/doubles/capacitorNative/capacitorNativeGlobal.ts'),
      join(dir, 'native.js'),
    );
    app = await bundlePage(fromRoot('sdk-tests/browser/capacitorNativeApp.ts'));
    browser = await openChromium();
    context = browser.context;
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await sim?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each([
    'ios',
    'android',
  ] as const)('%s: the page sees a phone and runs the whole partner flow', async (platform) => {
    const n = ++serial;
    const sn = `881NAT00000000${n}${platform === 'ios' ? 1 : 2}`;
    const userId = `native-${platform}`;
    const client = new PartnerClient({ api: sim.api, app: DEMO_US, userId });
    const sub = TokenService.userSub(DEMO_US.client_id, userId);
    const arranged = await http('POST', `${sim.admin}/recorders/${sn}/arrange`, {
      json: { case: 'classic_lock', user: { sub, client_id: DEMO_US.client_id } },
    });
    expect(arranged.status, arranged.text).toBe(200);

    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e}`));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    const heard: Array<{ name: string; data: unknown }> = [];
    const { bridge, deliver } = pageBridge(page, heard);
    await page.exposeFunction('onPlaudEvent', deliver);
    await page.addInitScript({
      content: await capacitorNativeScript(
        { platform, simulatorUrl: sim.url, timing: 'instant' },
        join(dir, 'native.js'),
      ),
    });
    // The partner's own shell has a Preferences plugin: the documented hook installs it.
    await page.addInitScript(() => {
      const g = globalThis as unknown as {
        PartnerSimCapacitorNative: { install(): { addPlugin(id: string, m: object): void } };
      };
      g.PartnerSimCapacitorNative.install().addPlugin('Preferences', {
        get: (o: { key: string }) => ({ value: `stored ${o.key}` }),
      });
    });
    const url = `${sim.url}/__test-app/native.html`;
    await page.route(url, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><title>app</title><script type="module">${app.replace(/<\/script/g, '<\\/script')}</script>`,
      }),
    );
    await page.goto(url);
    // Every 50 ms, not at each animation frame (playwright's default), which keeps Chromium
    // drawing frames of an unchanged page while the app starts.
    await page.waitForFunction(() => (globalThis as unknown as PageApp).app?.ready, undefined, {
      polling: 50,
    });
    expect(
      await page.evaluate(() => {
        const a = (globalThis as unknown as { app: Record<string, unknown> }).app;
        return { platform: a.platform, native: a.native, available: a.available };
      }),
    ).toEqual({ platform, native: true, available: true });

    // Another plugin: Capacitor's answer for one not installed; an installed one answers.
    const camera = await page.evaluate(() =>
      (
        globalThis as unknown as { app: { Camera: { getPhoto(o: object): Promise<unknown> } } }
      ).app.Camera.getPhoto({}).then(
        () => 'resolved',
        (e: { message: string; code: string }) => ({ message: e.message, code: e.code }),
      ),
    );
    expect(camera).toEqual({
      message: `"Camera" plugin is not implemented on ${platform}`,
      code: 'UNIMPLEMENTED',
    });
    expect(await call(page, 'Preferences', 'get', { key: 'k' })).toEqual({ value: 'stored k' });
    const noSession = await page.evaluate(() =>
      (
        globalThis as unknown as { app: { PlaudSdk: { exportAudio(o: object): Promise<unknown> } } }
      ).app.PlaudSdk.exportAudio({}).catch((e: Error) => e.message),
    );
    expect(noSession).toBe('sessionId is required');

    // Scan → lock → recovery → re-pair, as the partner's recovery code does it.
    const token = await client.userToken();
    await bridge.initSDK({ userAccessToken: token, customDomain: 'platform-us.plaud.ai', userId });
    const run = await connectWithRecovery(bridge, client, sn, async () => undefined);
    expect(run.outcome, run.message).toBe('unlocked');
    expect(run.tried.length).toBe(2);
    expect(heard.some((e) => e.name === 'connectFail')).toBe(platform === 'android');
    expect(await call(page, 'PlaudSdk', 'isConnected')).toEqual({ connected: true });

    // A recording made on the device, listed, exported and read back through the bridge.
    await http('POST', `${sim.admin}/recorders/${sn}/record`, { json: { action: 'start' } });
    await expect.poll(() => heard.find((e) => e.name === 'recordStart')).toBeTruthy();
    const { sessionId } = heard.find((e) => e.name === 'recordStart')!.data as { sessionId: number };
    await http('POST', `${sim.admin}/recorders/${sn}/record`, { json: { action: 'stop', duration_s: 3 } });
    await expect.poll(() => heard.some((e) => e.name === 'recordStop')).toBe(true);
    // The page's own list on connect came before this recording: the one asked for now has it.
    await call(page, 'PlaudSdk', 'getFileList', { startSessionId: 0 });
    const listed = () =>
      heard.some(
        (e) =>
          e.name === 'fileList' &&
          (e.data as { files: Array<{ sessionId: number }> }).files.some((f) => f.sessionId === sessionId),
      );
    await expect.poll(listed).toBe(true);
    const { outputPath } = (await call(page, 'PlaudSdk', 'exportAudio', { sessionId, format: 'mp3' })) as {
      outputPath: string;
    };
    expect(heard.filter((e) => e.name === 'exportProgress').length).toBeGreaterThan(0);
    const src = (await page.evaluate(
      (p) => (globalThis as unknown as { app: { exportedSrc(p: string): string } }).app.exportedSrc(p),
      outputPath,
    )) as string;
    expect(src).toBe(`${sim.url}/_capacitor_file_${outputPath}`);
    const { data } = (await call(page, 'PlaudSdk', 'readFile', { path: src })) as { data: string };
    const audio = Buffer.from(data, 'base64');
    expect(audio.length).toBeGreaterThan(1000);

    // Backend presigns; the page PUTs each part natively (putBinary); backend completes.
    const session = await startUpload(sim.api, token, audio.length, 'mp3');
    const puts: Array<{ PartNumber: number; ETag: string }> = [];
    for (const p of session.Parts) {
      const part = audio.subarray((p.PartNumber - 1) * session.ChunkSize, p.PartNumber * session.ChunkSize);
      const put = (await call(page, 'PlaudSdk', 'putBinary', {
        url: p.PresignedUrl,
        data: part.toString('base64'),
      })) as { status: number; etag: string | null };
      expect(put.status).toBe(200);
      puts.push({ PartNumber: p.PartNumber, ETag: put.etag! });
    }
    const done = await completeUpload(sim.api, token, {
      file_id: session.FileId,
      upload_id: session.UploadId,
      part_list: puts,
      file_md5: md5hex(audio),
    });
    expect(done.status, done.text).toBe(200);
    const task = await client.transcribe((done.body as { DownloadUrl: string }).DownloadUrl);
    const { task: finished } = await client.poll(task.transcription_id, {
      deadlineMs: 20_000,
      backoff: { baseMs: 100, capMs: 400 },
    });
    expect(finished.status).toBe('SUCCESS');

    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
