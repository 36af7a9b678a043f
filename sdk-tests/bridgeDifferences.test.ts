import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PartnerClient } from '../server/client/partnerClient.js';
import { PlaudSdkWeb } from '../server/doubles/capacitor/capacitor.js';
import type { DoubleOptions } from '../server/doubles/phone/options.js';
import type { EventName, Platform } from '../server/doubles/phone/types.js';
import { PlaudSdkDouble } from '../server/doubles/reactNative/reactNative.js';
import { DEMO_US, http } from '../server/testing/http.js';
import { startTestServer, type TestServer } from '../server/testing/testServer.js';

// Where the official bridges differ from one another, as their code does it (checked against
// embedded-react-native at b23350e, embedded-capacitor's PlaudSdkPlugin.java, the Capacitor
// iOS plugin of plaud-embedded-capacitor-wrapper at 320b39d):
// - whether a connect stops a running scan: the Capacitor Android plugin stops it first (its
//   comment: the Android SDK's connect does not); the React Native module and the Capacitor
//   iOS plugin only clear their isScanning flag, so the scan's scanTimeout still comes at the
//   end of its window;
// - penState: seven fields on iOS, four on Android;
// - a negative sessionId: React Native refuses it, Capacitor hands it to the SDK.
// On the app's frozen clock.

let sim: TestServer;
let n = 0;
beforeAll(async () => {
  sim = await startTestServer();
});
afterAll(() => sim.stop());

const clock = async (body: object) =>
  expect(
    (await http('POST', `${sim.admin}/clock`, { json: { client_id: DEMO_US.client_id, ...body } })).status,
  ).toBe(200);

/** Scan, connect without stopScan, move the clock past the scan window: the events after the connect. */
async function connectWhileScanning(
  bridge: 'rn' | 'capacitor',
  platform: Platform,
  extra: Pick<DoubleOptions, 'scanOnConnect'> = {},
): Promise<{ after: Array<{ name: EventName; data: unknown }>; sdk: PlaudSdkDouble | PlaudSdkWeb }> {
  const sn = `8810SCAN${String(++n).padStart(8, '0')}`;
  const arranged = await http('POST', `${sim.admin}/recorders/${sn}/arrange`, {
    json: { case: 'never_paired' },
  });
  expect(arranged.status, arranged.text).toBe(200);
  const client = new PartnerClient({ api: sim.api, app: DEMO_US, userId: `scan-on-connect-${n}` });
  const options = { simulatorUrl: sim.url, platform, pollMs: 20, onError: () => {}, ...extra };
  const sdk = bridge === 'rn' ? new PlaudSdkDouble(options) : new PlaudSdkWeb(options);
  onTestFinished(() => sdk.dispose());
  const seen: Array<{ name: EventName; data: unknown }> = [];
  for (const name of ['scanResult', 'scanTimeout', 'connectState', 'penState', 'bind'] as const)
    void sdk.addListener(name, (data: unknown) => seen.push({ name, data }));
  const saw = (name: EventName, from = 0) =>
    expect.poll(() => seen.slice(from).some((e) => e.name === name), { timeout: 8000 }).toBe(true);
  await clock({ freeze: true });
  try {
    await sdk.initSDK({ userAccessToken: await client.userToken(), customDomain: 'platform-us.plaud.ai' });
    await sdk.startScan();
    await clock({ advance_ms: 2_000 });
    await expect
      .poll(() =>
        seen.some(
          (e) =>
            e.name === 'scanResult' &&
            (e.data as { devices: Array<{ serialNumber: string }> }).devices.some(
              (d) => d.serialNumber === sn,
            ),
        ),
      )
      .toBe(true);
    const mark = seen.length;
    await sdk.connectBleDevice({ serialNumber: sn });
    // Past the handshake (~1 s) and the scan's 10 s window: both are due in the same poll.
    await clock({ advance_ms: 9_000 });
    await saw('bind', mark);
    await new Promise((r) => setTimeout(r, 200));
    return { after: seen.slice(mark), sdk };
  } finally {
    await clock({ freeze: false });
  }
}

const names = async (run: ReturnType<typeof connectWhileScanning>) => (await run).after.map((e) => e.name);

describe('a connect during a scan, as each bridge does it', () => {
  it.each([
    ['rn', 'android'],
    ['rn', 'ios'],
    ['capacitor', 'ios'],
  ] as const)('%s on %s: the scan runs on, its scanTimeout comes after the handshake', async (bridge, platform) => {
    const after = await names(connectWhileScanning(bridge, platform));
    expect(after).toContain('bind');
    expect(after.indexOf('scanTimeout')).toBeGreaterThan(after.indexOf('bind'));
  });

  it('capacitor on android: the plugin stops the scan before connecting, no scanTimeout follows', async () => {
    const after = await names(connectWhileScanning('capacitor', 'android'));
    expect(after).toContain('bind');
    expect(after).not.toContain('scanTimeout');
  });

  it('scanOnConnect switches either way: stop on React Native, continue on Capacitor Android', async () => {
    expect(await names(connectWhileScanning('rn', 'android', { scanOnConnect: 'stop' }))).not.toContain(
      'scanTimeout',
    );
    expect(
      await names(connectWhileScanning('capacitor', 'android', { scanOnConnect: 'continue' })),
    ).toContain('scanTimeout');
  });
});

describe('after the handshake', () => {
  it.each([
    [
      'rn',
      'ios',
      ['state', 'privacy', 'keyState', 'uDisk', 'findMyToken', 'hasSndpKey', 'deviceAccessToken'],
    ],
    [
      'capacitor',
      'ios',
      ['state', 'privacy', 'keyState', 'uDisk', 'findMyToken', 'hasSndpKey', 'deviceAccessToken'],
    ],
    ['rn', 'android', ['state', 'privacy', 'keyState', 'uDisk']],
    ['capacitor', 'android', ['state', 'privacy', 'keyState', 'uDisk']],
  ] as const)('%s on %s: penState has the platform fields', async (bridge, platform, fields) => {
    const { after } = await connectWhileScanning(bridge, platform);
    const pen = after.find((e) => e.name === 'penState')?.data as Record<string, unknown>;
    expect(Object.keys(pen ?? {}).sort()).toEqual([...fields].sort());
    for (const f of fields) expect(typeof pen[f], f).toBe('number');
  });

  it('a negative sessionId: React Native refuses it, Capacitor asks the SDK, which has no such recording', async () => {
    const rn = (await connectWhileScanning('rn', 'android')).sdk;
    await expect(rn.exportAudio({ sessionId: -5 })).rejects.toMatchObject({
      code: 'ERR_PLAUD_ARGS',
      message: 'sessionId is required',
    });
    for (const platform of ['ios', 'android'] as const) {
      const cap = (await connectWhileScanning('capacitor', platform)).sdk;
      await expect(cap.exportAudio({ sessionId: -5 })).rejects.toThrow(/^recording not found on the device$/);
    }
  });
});
