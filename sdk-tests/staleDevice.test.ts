import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PartnerClient } from '../server/client/partnerClient.js';
import { PlaudSdkWeb } from '../server/doubles/capacitor/capacitor.js';
import type { EventName, Platform } from '../server/doubles/phone/types.js';
import { PlaudSdkDouble } from '../server/doubles/reactNative/reactNative.js';
import { DEMO_US, http } from '../server/testing/http.js';
import { startTestServer, type TestServer } from '../server/testing/testServer.js';

// The official plugins never clear their scanned-device maps (Swift `scannedDevices`, Java
// `LinkedHashMap`, Kotlin `linkedMapOf`): a device an earlier scan showed is still known
// after it left range, so connecting to it by its remembered uuid resolves and the SDK then
// reports a failed connection, as the handshake table's `unreachable` row says.

let sim: TestServer;
let n = 0;
beforeAll(async () => {
  sim = await startTestServer();
});
afterAll(() => sim.stop());

// How it goes: arranged `out_of_range` (a fresh radio id, so the radio never finds the
// remembered one), or out of range under the same id while the app starts a new SDK session
// (initSDK again: the plugin's map outlives it).
const cases = (['rn', 'capacitor'] as const).flatMap((kind) =>
  (['ios', 'android'] as const).flatMap((platform) =>
    (['arranged', 'initSDK again'] as const).map((how) => [kind, platform, how] as const),
  ),
);

describe('a remembered device, now out of range', () => {
  it.for(cases)('%s %s, %s: the connect resolves, then fails as unreachable', async ([
    kind,
    platform,
    how,
  ]) => {
    const sn = `8810STALE${String(++n).padStart(7, '0')}`;
    expect(
      (await http('POST', `${sim.admin}/recorders/${sn}/arrange`, { json: { case: 'never_paired' } })).status,
    ).toBe(200);
    const options = {
      simulatorUrl: sim.url,
      platform: platform as Platform,
      timing: 'instant' as const,
      onError: () => {},
    };
    const sdk = kind === 'rn' ? new PlaudSdkDouble(options) : new PlaudSdkWeb(options);
    onTestFinished(() => sdk.dispose());
    const seen: Array<{ name: EventName; data: Record<string, unknown> }> = [];
    for (const name of ['scanResult', 'scanTimeout', 'connectState', 'bind', 'connectFail'] as const)
      void sdk.addListener(name, (data: unknown) => seen.push({ name, data: data as never }));
    const client = new PartnerClient({ api: sim.api, app: DEMO_US, userId: `stale-${kind}-${platform}` });
    await sdk.initSDK({ userAccessToken: await client.userToken(), customDomain: 'platform-us.plaud.ai' });
    const shows = (d: Record<string, unknown>) =>
      (d.devices as Array<{ serialNumber: string }>).some((x) => x.serialNumber === sn);
    await sdk.startScan();
    await expect.poll(() => seen.some((e) => e.name === 'scanResult' && shows(e.data))).toBe(true);
    const uuid = (
      seen.find((e) => e.name === 'scanResult' && shows(e.data))!.data.devices as Array<{
        serialNumber: string;
        uuid: string;
      }>
    ).find((d) => d.serialNumber === sn)!.uuid;
    await sdk.stopScan();

    // The recorder leaves range; the app rescans and it is not shown.
    const rec = (await http('GET', `${sim.admin}/recorders/${sn}`)).body;
    const left =
      how === 'arranged'
        ? await http('POST', `${sim.admin}/recorders/${sn}/arrange`, { json: { case: 'out_of_range' } })
        : await http('PUT', `${sim.admin}/recorders/${sn}`, {
            json: { in_range: false, uuid: rec.uuid, paired_to: rec.paired_to, rssi: rec.rssi },
          });
    expect(left.status, left.text).toBe(200);
    if (how === 'initSDK again')
      await sdk.initSDK({ userAccessToken: await client.userToken(), customDomain: 'platform-us.plaud.ai' });
    seen.length = 0;
    await sdk.startScan();
    await expect.poll(() => seen.some((e) => e.name === 'scanTimeout' || e.name === 'scanResult')).toBe(true);
    expect(seen.some((e) => e.name === 'scanResult' && shows(e.data))).toBe(false);

    // The app connects by the uuid it remembered: the plugin still has it.
    seen.length = 0;
    await expect(sdk.connectBleDevice({ uuid })).resolves.toBeUndefined();
    await expect.poll(() => seen.some((e) => e.name === 'connectState' && e.data.failed === true)).toBe(true);
    expect(seen.find((e) => e.name === 'connectState')!.data).toMatchObject({
      connected: false,
      failed: true,
      state: -1,
    });
    expect(seen.some((e) => e.name === 'bind')).toBe(false);
    // The React Native module bridges no connectFail; the Capacitor Android plugin does.
    if (platform === 'android' && kind === 'capacitor')
      await expect
        .poll(() => seen.find((e) => e.name === 'connectFail')?.data.reason)
        .toBe('BLE_CONNECT_FAILED');
    else expect(seen.some((e) => e.name === 'connectFail')).toBe(false);
  });
});
