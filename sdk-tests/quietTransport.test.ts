import { afterAll, beforeAll, describe, it } from 'vitest';
import { PartnerClient } from '../server/client/partnerClient.js';
import { startUpload } from '../server/client/steps.js';
import { PlaudSdkWeb } from '../server/doubles/capacitor/capacitor.js';
import { DEMO_US, http } from '../server/testing/http.js';
import { startTestServer, type TestServer } from '../server/testing/testServer.js';

// The transport the Capacitor native-side double runs in a WebView: a WebView logs every
// non-2xx answer as "Failed to load resource" and every answer left unread as
// net::ERR_ABORTED, where a phone's native plugin shows nothing. Through the public demo's
// flow (list on connectState, export, read, putBinary, stop the scan, end) every request the
// double makes must be answered 2xx and read to the end.

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer();
});
afterAll(() => sim.stop());

describe("the native-side double's requests", () => {
  it.concurrent.for(['ios', 'android'] as const)('%s: all answers, all read to the end', async (platform, {
    expect,
  }) => {
    const sn = `8810QUIET000000${platform === 'ios' ? 1 : 2}`;
    expect(
      (await http('POST', `${sim.admin}/recorders/${sn}/arrange`, { json: { case: 'never_paired' } })).status,
    ).toBe(200);
    expect(
      (await http('POST', `${sim.admin}/recorders/${sn}/recordings`, { json: { duration_s: 3 } })).status,
    ).toBe(201);
    const seen: Array<{ call: string; status: number; read: () => boolean }> = [];
    const fetcher = (async (input: string | URL | Request, init?: RequestInit) => {
      const r = await fetch(input, init);
      seen.push({
        call: `${init?.method ?? 'GET'} ${String(input)}`,
        status: r.status,
        read: () => r.body === null || r.bodyUsed,
      });
      return r;
    }) as typeof fetch;
    const sdk = new PlaudSdkWeb({ simulatorUrl: sim.url, platform, fetch: fetcher, onError: () => {} });
    let found = false;
    let files: Array<{ sessionId: number }> | undefined;
    void sdk.addListener('scanResult', (d) => {
      found ||= d.devices.some((x) => x.serialNumber === sn);
    });
    void sdk.addListener('connectState', (s) => {
      if (s.connected) void sdk.getFileList({ startSessionId: 0 });
    });
    void sdk.addListener('fileList', (d) => {
      files = d.files;
    });
    const client = new PartnerClient({ api: sim.api, app: DEMO_US, userId: `quiet-${platform}` });
    const token = await client.userToken();
    await sdk.initSDK({ userAccessToken: token, customDomain: 'platform-us.plaud.ai' });
    await sdk.startScan();
    await expect.poll(() => found, { timeout: 5_000 }).toBe(true);
    await sdk.connectBleDevice({ serialNumber: sn });
    await expect.poll(() => files, { timeout: 5_000 }).toBeDefined();
    const { outputPath } = await sdk.exportAudio({ sessionId: files![0]!.sessionId, format: 'mp3' });
    const { data } = await sdk.readFile({ path: outputPath });
    const session = await startUpload(sim.api, token, Buffer.from(data, 'base64').length, 'mp3');
    const put = await sdk.putBinary({ url: session.Parts[0]!.PresignedUrl, data });
    expect(put.status).toBe(200);
    await sdk.stopScan();
    sdk.dispose();
    await expect
      .poll(() => seen.some((s) => s.call.startsWith('DELETE') && !s.call.endsWith('/scan')))
      .toBe(true);
    await expect.poll(() => seen.filter((s) => !s.read()).map((s) => s.call)).toEqual([]);
    expect(seen.filter((s) => s.status >= 400).map((s) => `${s.status} ${s.call}`)).toEqual([]);
    expect(seen.some((s) => s.call.includes('/recordings?'))).toBe(true);
  });
});
