import { afterAll, beforeAll, describe, it } from 'vitest';
import { PartnerClient } from '../server/client/partnerClient.js';
import { PlaudSdkWeb } from '../server/doubles/capacitor/capacitor.js';
import { PlaudSdkDouble } from '../server/doubles/reactNative/reactNative.js';
import { DEMO_US, http } from '../server/testing/http.js';
import { startTestServer, type TestServer } from '../server/testing/testServer.js';

// The public demo asks for the file list in its connectState listener: on {connected: true},
// which the SDK sends at the radio link (~400 ms), before the handshake binds (~1 s). On a
// phone the list comes (the SDK answers once connected); the list must show the recorder's
// recordings without the user tapping Refresh. Hardware timing: the window is real.

let sim: TestServer;
let n = 0;
beforeAll(async () => {
  sim = await startTestServer();
});
afterAll(() => sim.stop());

const cases = (['rn', 'capacitor'] as const).flatMap((kind) =>
  (['ios', 'android'] as const).map((platform) => [kind, platform] as const),
);

describe('a file list asked for in the connectState listener', () => {
  it.concurrent.for(cases)('%s %s: answered with the recordings, once bound', async ([kind, platform], {
    expect,
    onTestFinished,
  }) => {
    const sn = `8810LIST${String(++n).padStart(8, '0')}`;
    expect(
      (await http('POST', `${sim.admin}/recorders/${sn}/arrange`, { json: { case: 'never_paired' } })).status,
    ).toBe(200);
    expect(
      (await http('POST', `${sim.admin}/recorders/${sn}/recordings`, { json: { duration_s: 7 } })).status,
    ).toBe(201);
    const options = { simulatorUrl: sim.url, platform, onError: () => {} };
    const sdk = kind === 'rn' ? new PlaudSdkDouble(options) : new PlaudSdkWeb(options);
    onTestFinished(() => sdk.dispose());
    const order: string[] = [];
    let files: Array<{ sn: string; sessionId: number }> | undefined;
    let found = false;
    void sdk.addListener('scanResult', (d: { devices: Array<{ serialNumber: string }> }) => {
      found ||= d.devices.some((x) => x.serialNumber === sn);
    });
    void sdk.addListener('bind', () => order.push('bind'));
    // The demo's listener, shape for shape: a list request on connected.
    void sdk.addListener('connectState', (s: { connected: boolean }) => {
      order.push(`connectState ${s.connected}`);
      if (s.connected) void sdk.getFileList();
    });
    void sdk.addListener('fileList', (d: { files: Array<{ sn: string; sessionId: number }> }) => {
      order.push('fileList');
      files = d.files;
    });
    const client = new PartnerClient({ api: sim.api, app: DEMO_US, userId: `list-${kind}-${platform}` });
    await sdk.initSDK({ userAccessToken: await client.userToken(), customDomain: 'platform-us.plaud.ai' });
    await sdk.startScan();
    await expect.poll(() => found, { timeout: 5_000 }).toBe(true);
    await sdk.connectBleDevice({ serialNumber: sn });
    await expect.poll(() => files, { timeout: 5_000 }).toBeDefined();
    expect(files!.map((f) => f.sn)).toEqual([sn]);
    expect(order).toEqual(['connectState true', 'bind', 'fileList']);
  });
});
