import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PartnerClient } from '../server/client/partnerClient.js';
import { TokenService } from '../server/domain/tokens.js';
import { PlaudSdkWeb } from '../server/doubles/capacitor/capacitor.js';
import type { EventName } from '../server/doubles/phone/types.js';
import { PlaudSdkDouble } from '../server/doubles/reactNative/reactNative.js';
import { DEMO_US, http } from '../server/testing/http.js';
import { startTestServer, type TestServer } from '../server/testing/testServer.js';

// What an Android app's code reads (embedded-capacitor PlaudSdkPlugin.java, embedded-react-native
// PlaudSdkModule.kt): Capacitor's scanResult `macAddress` and connectFail details, whole-second
// durations, and the answers of a phone whose user turned Bluetooth off or denied the
// permissions, arranged per phone through the control API.

let sim: TestServer;
let n = 0;
beforeAll(async () => {
  sim = await startTestServer();
});
afterAll(() => sim.stop());

type Sdk = PlaudSdkWeb | PlaudSdkDouble;
async function phoneOf(kind: 'rn' | 'capacitor', userId = `android-${kind}-${++n}`) {
  const client = new PartnerClient({ api: sim.api, app: DEMO_US, userId });
  const options = {
    simulatorUrl: sim.url,
    platform: 'android' as const,
    timing: 'instant' as const,
    onError: () => {},
  };
  const sdk: Sdk = kind === 'rn' ? new PlaudSdkDouble(options) : new PlaudSdkWeb(options);
  onTestFinished(() => sdk.dispose()); // its phone's event polling stops with the test
  const seen: Array<{ name: EventName; data: unknown }> = [];
  for (const name of [
    'scanResult',
    'scanTimeout',
    'connectState',
    'bind',
    'fileList',
    'connectFail',
  ] as const)
    void sdk.addListener(name, (data: unknown) => seen.push({ name, data }));
  await sdk.initSDK({ userAccessToken: await client.userToken(), customDomain: 'platform-us.plaud.ai' });
  const sub = TokenService.userSub(DEMO_US.client_id, userId);
  let phoneId = '';
  await expect
    .poll(async () => {
      const list = await http('GET', `${sim.admin}/phones?client_id=${DEMO_US.client_id}&limit=500`);
      phoneId = list.body.find((p: { sub: string }) => p.sub === sub)?.phone_id ?? '';
      return phoneId;
    })
    .not.toBe('');
  const arrange = async (json: object) => {
    const r = await http('PATCH', `${sim.admin}/phones/${phoneId}`, { json });
    expect(r.status, r.text).toBe(200);
    return r.body;
  };
  const event = async (name: EventName, ok: (d: never) => boolean = () => true) => {
    let hit: unknown;
    await expect
      .poll(() => {
        hit = seen.find((e) => e.name === name && ok(e.data as never))?.data;
        return hit !== undefined;
      })
      .toBe(true);
    return hit as never;
  };
  return { sdk, seen, arrange, event };
}
const arrangeRecorder = async (sn: string, kase: string) =>
  expect((await http('POST', `${sim.admin}/recorders/${sn}/arrange`, { json: { case: kase } })).status).toBe(
    200,
  );

describe('Capacitor on Android: payloads as PlaudSdkPlugin.java sends them', () => {
  it('scanResult devices carry macAddress; durations are whole seconds; connectFail has code and message', async () => {
    const sn = '8810ANDR00000001';
    await arrangeRecorder(sn, 'never_paired');
    await http('POST', `${sim.admin}/recorders/${sn}/recordings`, { json: { duration_s: 4.6 } });
    const { sdk, event, seen } = await phoneOf('capacitor');
    await sdk.startScan();
    const scan = await event('scanResult', (d: { devices: Array<{ serialNumber: string }> }) =>
      d.devices.some((x) => x.serialNumber === sn),
    );
    const device = (scan as { devices: Array<Record<string, unknown>> }).devices.find(
      (d) => d.serialNumber === sn,
    )!;
    expect(device.macAddress).toBe(device.uuid);
    expect(Object.keys(device)).toEqual([
      'name',
      'uuid',
      'macAddress',
      'serialNumber',
      'rssi',
      'supportWiFi',
    ]);
    await sdk.connectBleDevice({ serialNumber: sn });
    await event('bind');
    await sdk.getFileList();
    const list = (await event('fileList')) as { files: Array<{ duration: number }> };
    expect(list.files.map((f) => f.duration)).toEqual([4]);

    const locked = '8810ANDR00000002';
    await arrangeRecorder(locked, 'classic_lock');
    await sdk.startScan();
    await event('scanResult', (d: { devices: Array<{ serialNumber: string }> }) =>
      d.devices.some((x) => x.serialNumber === locked),
    );
    await sdk.connectBleDevice({ serialNumber: locked });
    const fail = await event('connectFail', (d: { reason: string }) => d.reason === 'TOKEN_NOT_MARCH');
    expect(fail).toEqual({
      mac: expect.stringMatching(/^([0-9A-F]{2}:){5}[0-9A-F]{2}$/),
      reason: 'TOKEN_NOT_MARCH',
      code: expect.any(Number),
      message: expect.any(String),
    });
    expect(seen.filter((e) => e.name === 'connectFail')).toHaveLength(1);
  });

  it('iOS sends no macAddress and whole-and-fractional durations as the SDK has them', async () => {
    const sn = '8810ANDR00000003';
    await arrangeRecorder(sn, 'never_paired');
    await http('POST', `${sim.admin}/recorders/${sn}/recordings`, { json: { duration_s: 2.5 } });
    const client = new PartnerClient({ api: sim.api, app: DEMO_US, userId: 'ios-shape-user' });
    const sdk = new PlaudSdkWeb({
      simulatorUrl: sim.url,
      platform: 'ios',
      timing: 'instant',
      onError: () => {},
    });
    onTestFinished(() => sdk.dispose());
    const seen: Array<{ name: string; data: Record<string, unknown> }> = [];
    for (const name of ['scanResult', 'bind', 'fileList'] as const)
      void sdk.addListener(name, (data) => seen.push({ name, data: data as never }));
    await sdk.initSDK({ userAccessToken: await client.userToken(), customDomain: 'platform-us.plaud.ai' });
    await sdk.startScan();
    await expect.poll(() => seen.some((e) => e.name === 'scanResult')).toBe(true);
    const devices = seen.find((e) => e.name === 'scanResult')!.data.devices as Array<Record<string, unknown>>;
    expect(devices.every((d) => !('macAddress' in d))).toBe(true);
    await sdk.connectBleDevice({ serialNumber: sn });
    await expect.poll(() => seen.some((e) => e.name === 'bind')).toBe(true);
    await sdk.getFileList();
    await expect.poll(() => seen.some((e) => e.name === 'fileList')).toBe(true);
    expect(seen.find((e) => e.name === 'fileList')!.data.files).toEqual([
      expect.objectContaining({ duration: 2.5 }),
    ]);
  });
});

describe("recordings sized as the recorder's Opus", () => {
  // The recorder stores Opus, 20 ms frames of 80 bytes per channel, and the Kotlin module
  // lists `duration` as BleFile.calculateOpusDuration(size, channels) / 1000: an mp3-sized
  // 7 s recording (112,128 bytes) read as 28 s there. The app's own arithmetic on `size`
  // must give the recorded length, and the double's `duration` must be that.
  const kotlinDuration = (size: number, channels: number) =>
    Math.floor((Math.floor(size / (80 * channels)) * 20) / 1000);

  it('React Native Android: the module arithmetic on size gives the recorded seconds', async () => {
    const sn = '8810ANDR00000005';
    await arrangeRecorder(sn, 'never_paired');
    for (const duration_s of [7, 12.5, 3599.99])
      await http('POST', `${sim.admin}/recorders/${sn}/recordings`, { json: { duration_s } });
    const { sdk, event } = await phoneOf('rn');
    await sdk.startScan();
    await event('scanResult', (d: { devices: Array<{ serialNumber: string }> }) =>
      d.devices.some((x) => x.serialNumber === sn),
    );
    await sdk.connectBleDevice({ serialNumber: sn });
    await event('bind');
    await sdk.getFileList();
    const { files } = (await event('fileList')) as {
      files: Array<{ size: number; channels: number; duration: number }>;
    };
    expect(files.map((f) => kotlinDuration(f.size, f.channels)).sort((a, b) => a - b)).toEqual([7, 12, 3599]);
    for (const f of files) expect(f.duration).toBe(kotlinDuration(f.size, f.channels));
    // 350 frames of 80 bytes, one channel: 32 kbit/s.
    expect(files.find((f) => f.duration === 7)!.size).toBe(28_000);
  });
});

describe("a phone's Bluetooth and permissions, arranged through the control API", () => {
  it('Capacitor Android: denied permissions reject the scan after scanTimeout permissionDenied; Bluetooth off rejects a connect', async () => {
    const sn = '8810ANDR00000004';
    await arrangeRecorder(sn, 'never_paired');
    const { sdk, arrange, event } = await phoneOf('capacitor');
    expect(await arrange({ permissions: 'denied' })).toMatchObject({
      permissions: 'denied',
      bluetooth: 'on',
    });
    const err = await sdk.startScan().catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('Bluetooth permissions denied');
    expect(err).not.toHaveProperty('code');
    expect(await event('scanTimeout')).toEqual({ reason: 'permissionDenied' });

    await arrange({ permissions: 'granted' });
    await sdk.startScan();
    await event('scanResult', (d: { devices: Array<{ serialNumber: string }> }) =>
      d.devices.some((x) => x.serialNumber === sn),
    );
    await arrange({ bluetooth: 'off' });
    await expect(sdk.connectBleDevice({ serialNumber: sn })).rejects.toThrow(/^Bluetooth is off$/);
    await arrange({ permissions: 'denied' });
    await expect(sdk.connectBleDevice({ serialNumber: sn })).rejects.toThrow(
      'BLUETOOTH_CONNECT permission denied — cannot open a connection',
    );
    expect(await event('connectFail')).toEqual({ reason: 'permissionDenied' });
    // The plugin asks for the permission before it looks the device up.
    await expect(sdk.connectBleDevice({ serialNumber: '8810ANDRFFFFFFFF' })).rejects.toThrow(
      'BLUETOOTH_CONNECT permission denied — cannot open a connection',
    );
  });

  it('React Native Android: ERR_PLAUD_PERMISSIONS on a scan, requestPermissions false, Bluetooth off times the scan out at once', async () => {
    const { sdk, arrange, event } = await phoneOf('rn');
    const rn = sdk as PlaudSdkDouble;
    expect(await rn.requestPermissions!()).toEqual({ granted: true });
    await arrange({ permissions: 'denied' });
    expect(await rn.requestPermissions!()).toEqual({ granted: false });
    await expect(rn.startScan()).rejects.toMatchObject({
      code: 'ERR_PLAUD_PERMISSIONS',
      message: 'Bluetooth permissions were denied — scanning is not possible',
    });
    await arrange({ permissions: 'granted', bluetooth: 'off' });
    await rn.startScan();
    expect(await event('scanTimeout')).toEqual({ reason: 'bluetoothNotPoweredOn' });
  });

  it('the device protocol answers 409 PERMISSION_DENIED before BLUETOOTH_OFF; bad arrangements are clear 4xx', async () => {
    const token = await new PartnerClient({
      api: sim.api,
      app: DEMO_US,
      userId: 'raw-radio-user',
    }).userToken();
    const created = await http('POST', `${sim.url}/__device/phones`, {
      headers: { authorization: `Bearer ${token}` },
      json: { timing: 'instant', bluetooth: 'off', permissions: 'denied' },
    });
    expect(created.body).toMatchObject({ bluetooth: 'off', permissions: 'denied' });
    const id = created.body.phone_id;
    const scan = () => http('POST', `${sim.url}/__device/phones/${id}/scan`, { json: {} });
    expect([(await scan()).status, (await scan()).body.detail]).toEqual([409, 'PERMISSION_DENIED']);
    await http('PATCH', `${sim.admin}/phones/${id}`, { json: { permissions: 'granted' } });
    expect((await scan()).body.detail).toBe('BLUETOOTH_OFF');
    const gone = await http('PATCH', `${sim.admin}/phones/ph_${'0'.repeat(32)}`, {
      json: { bluetooth: 'off' },
    });
    expect([gone.status, gone.body.detail]).toEqual([404, 'PHONE_NOT_FOUND']);
    expect((await http('PATCH', `${sim.admin}/phones/${id}`, { json: {} })).status).toBe(422);
    expect((await http('PATCH', `${sim.admin}/phones/${id}`, { json: { bluetooth: 'maybe' } })).status).toBe(
      422,
    );
  });
});
