import { describe, expect, it } from 'vitest';
import { PlaudSdkWeb } from './capacitor.js';
import type { DeviceLink, HandshakeRequest } from './link.js';
import { PlaudSdkDouble } from './reactNative.js';
import { apiBaseFor, handshakeTokenOf, pinnedToken, sdkApiBase } from './sdkCloud.js';
import type { EventName, Platform } from './types.js';

// The bridge core and its two adapters over an in-memory radio: how each platform shows a
// lock, the coded (React Native) and plain (Capacitor) errors, out-of-order calls. The
// doubles against the real simulator are in sdk-tests/.

const SN = '881000000000001';
const MAC = 'AA:BB:CC:00:00:01';
const jwt = (sub?: string) =>
  `x.${btoa(JSON.stringify(sub ? { sub } : { iss: 'x' }))
    .replace(/=+$/, '')
    .replace(/\+/g, '-')
    .replace(/\//g, '_')}.y`;
const ALICE = 'client_user_3f2c8a90-1b2c-4d5e-8f90-123456789abc';
const BOB = 'client_user_9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

/** One recorder paired to `pairedTo` (a handshake token), and every call the SDK made. */
function fakeRadio(pairedTo: string | null, cloudOk = true) {
  const calls: string[] = [];
  const handshakes: HandshakeRequest[] = [];
  let mac = MAC;
  const link: DeviceLink = {
    genKey: async (api) => {
      calls.push(`gen-key ${api}`);
      return cloudOk ? { ok: true } : { ok: false, status: 401 };
    },
    snSign: async (api, _t, sn) => {
      calls.push(`sn-sign ${api} ${sn}`);
      return { ok: true };
    },
    scan: async () => [{ sn: SN, uuid: mac, name: 'PLAUD NOTE', rssi: -50, supportWiFi: true }],
    handshake: async (r) => {
      handshakes.push(r);
      if (r.uuid !== mac) return { ok: false, reason: 'TIME_OUT' };
      const token = r.pinnedId ? pinnedToken(r.pinnedId) : handshakeTokenOf(r.userToken);
      if (pairedTo && pairedTo !== token) return { ok: false, reason: 'TOKEN_NOT_MARCH' };
      pairedTo = token;
      return { ok: true, sn: r.sn, protVersion: 3 };
    },
    disconnect: async () => {},
    depair: async () => {
      pairedTo = null;
      mac = 'AA:BB:CC:00:00:02';
      return { status: 0 };
    },
    recordings: async () => [
      { sessionId: 1700000000, size: 8000, duration: 1, scene: 1, channels: 1, isOgg: false },
    ],
    exportAudio: async (_sn, _t, id, format) =>
      id === 1700000000 ? { bytes: new Uint8Array([1, 2, 3]), format } : null,
    events: async () => ({ events: [], cursor: '0' }),
  };
  return { link, calls, handshakes };
}

type Bridge = PlaudSdkDouble | PlaudSdkWeb;
function record(sdk: Bridge, names: EventName[]) {
  const seen: Array<[EventName, unknown]> = [];
  for (const n of names) void sdk.addListener(n, (d: unknown) => seen.push([n, d]));
  return seen;
}
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};
const EVENTS: EventName[] = ['scanResult', 'connectState', 'bind', 'connectFail', 'depair', 'scanTimeout'];

async function connectOnce(sdk: Bridge, token: string) {
  const seen = record(sdk, EVENTS);
  await sdk.initSDK({ userAccessToken: token, customDomain: 'platform-us.plaud.ai' });
  await sdk.startScan();
  await until(() => seen.some(([n]) => n === 'scanTimeout'));
  const scan = seen.find(([n]) => n === 'scanResult')![1] as { devices: Array<{ uuid: string }> };
  await sdk.connectBleDevice({ uuid: scan.devices[0]!.uuid });
  await until(() =>
    seen.some(([n, d]) => n === 'bind' || (n === 'connectState' && (d as { state: number }).state !== 1)),
  );
  return { seen, uuid: scan.devices[0]!.uuid };
}

describe('the SDK cloud side', () => {
  it('reads the handshake token from the JWT sub, and none from a token without one', () => {
    expect(handshakeTokenOf(jwt(ALICE))).toBe('3f2c8a901b2c4d5e8f90123456789abc');
    expect(handshakeTokenOf(jwt())).toBe('');
    expect(handshakeTokenOf('not-a-jwt')).toBe('');
  });
  it('maps live hosts onto the simulator, and Android to JP unless repointed', () => {
    const sim = 'http://127.0.0.1:4010';
    expect(apiBaseFor('platform-us.plaud.ai', sim)).toBe(`${sim}/developer/api`);
    expect(apiBaseFor('platform-jp.plaud.ai', sim)).toBe(`${sim}/jp/developer/api`);
    expect(apiBaseFor('127.0.0.1:5000', sim)).toBe('http://127.0.0.1:5000/developer/api');
    expect(sdkApiBase('android', 'platform-us.plaud.ai', sim, 'jp')).toBe(`${sim}/jp/developer/api`);
    expect(sdkApiBase('android', 'platform-us.plaud.ai', sim, 'customDomain')).toBe(`${sim}/developer/api`);
    expect(sdkApiBase('ios', 'platform-us.plaud.ai', sim, 'jp')).toBe(`${sim}/developer/api`);
  });
});

describe.each<Platform>(['ios', 'android'])('a lock on %s', (platform) => {
  it('a matching user connects and gets bind {status: 0}; the uuid has the platform form', async () => {
    const radio = fakeRadio(handshakeTokenOf(jwt(ALICE)));
    const sdk = new PlaudSdkDouble({
      platform,
      timing: 'instant',
      link: radio.link,
      sdkBaseUrl: 'customDomain',
    });
    const { seen, uuid } = await connectOnce(sdk, jwt(ALICE));
    expect(uuid).toMatch(platform === 'ios' ? /^[0-9A-F-]{36}$/ : /^AA:BB:CC:00:00:01$/);
    expect(seen.filter(([n]) => n === 'connectState' || n === 'bind').map(([, d]) => d)).toEqual([
      { connected: true, failed: false, state: 1 },
      { sn: SN, status: 0, protVersion: 3 },
    ]);
    expect(await sdk.isConnected()).toEqual({ connected: true });
    expect(radio.calls).toEqual([
      `gen-key http://127.0.0.1:4010/developer/api`,
      `sn-sign http://127.0.0.1:4010/developer/api ${SN}`,
    ]);
  });

  it('another user is refused as the platform shows it', async () => {
    const sdk = new PlaudSdkWeb({
      platform,
      timing: 'instant',
      link: fakeRadio(handshakeTokenOf(jwt(ALICE))).link,
    });
    const { seen } = await connectOnce(sdk, jwt(BOB));
    await until(() => seen.filter(([n]) => n === 'connectState').length === (platform === 'ios' ? 2 : 1));
    const shown = seen.filter(([n]) => ['connectState', 'bind', 'connectFail'].includes(n));
    expect(shown).toEqual(
      platform === 'ios'
        ? [
            ['connectState', { connected: true, failed: false, state: 1 }],
            ['connectState', { connected: false, failed: false, state: 0 }],
          ]
        : [
            ['connectFail', { mac: MAC, reason: 'TOKEN_NOT_MARCH', code: 3, message: null }],
            ['connectState', { connected: false, failed: true, state: 2 }],
          ],
    );
    expect(await sdk.isConnected()).toEqual({ connected: false });
  });
});

describe('the recovery connect (not in the official wrappers)', () => {
  it('pins a historical id with a forced clear; after depair the old uuid no longer connects', async () => {
    const radio = fakeRadio(handshakeTokenOf(jwt(ALICE)));
    const sdk = new PlaudSdkWeb({ platform: 'android', timing: 'instant', link: radio.link });
    const { seen, uuid } = await connectOnce(sdk, jwt(BOB));
    await until(() => seen.some(([n]) => n === 'connectFail'));
    await sdk.recoveryConnectBleDevice({ uuid }, ALICE);
    await until(() => seen.some(([n]) => n === 'bind'));
    expect(radio.handshakes.at(-1)).toMatchObject({ pinnedId: ALICE, clear: true });
    await sdk.depair({ clear: false });
    await until(() => seen.some(([n]) => n === 'depair'));
    await sdk.disconnect();
    await sdk.connectBleDevice({ uuid });
    await until(() => seen.filter(([n]) => n === 'connectFail').length === 2);
    expect(seen.filter(([n]) => n === 'connectFail').at(-1)![1]).toMatchObject({ reason: 'TIME_OUT' });
    await expect(sdk.recoveryConnectBleDevice({ uuid }, '')).rejects.toThrow('historicalId is required');
  });
});

describe('errors and out-of-order calls, as each bridge answers them', () => {
  it('React Native: coded errors', async () => {
    const sdk = new PlaudSdkDouble({ timing: 'instant', link: fakeRadio(null).link });
    await expect(sdk.initSDK({ userAccessToken: '', customDomain: 'x' })).rejects.toMatchObject({
      code: 'ERR_PLAUD_ARGS',
      message: 'userAccessToken is required',
    });
    await sdk.initSDK({ userAccessToken: jwt(ALICE), customDomain: 'platform-us.plaud.ai' });
    await expect(sdk.connectBleDevice({ uuid: 'nope' })).rejects.toMatchObject({
      code: 'ERR_PLAUD_UNKNOWN_DEVICE',
      message: 'Unknown device — scan first, then connect by uuid or serialNumber',
    });
    await expect(sdk.exportAudio({} as never)).rejects.toMatchObject({ code: 'ERR_PLAUD_ARGS' });
    await expect(sdk.exportAudio({ sessionId: 1 })).rejects.toMatchObject({ code: 'ERR_PLAUD_EXPORT' });
  });

  it('Capacitor: plain message strings, readFile of an export, async remove()', async () => {
    const sdk = new PlaudSdkWeb({ timing: 'instant', link: fakeRadio(null).link });
    const err = await sdk.connectBleDevice({ serialNumber: SN }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toHaveProperty('code');
    expect((err as Error).message).toBe('Unknown device — scan first, then connect by uuid or serialNumber');
    await connectOnce(sdk, jwt(ALICE));
    await expect(sdk.exportAudio({ sessionId: 5 })).rejects.toThrow('recording not found on the device');
    const progress: number[] = [];
    const handle = await sdk.addListener('exportProgress', (d) => progress.push(d.progress));
    const out = await sdk.exportAudio({ sessionId: 1700000000, format: 'wav' });
    expect(out.outputPath).toMatch(/PlaudExports\/881000000000001_1700000000\.wav$/);
    expect(progress).toEqual([0, 25, 50, 75, 100]);
    expect(await sdk.readFile({ path: `file://${out.outputPath}` })).toEqual({ data: btoa('\x01\x02\x03') });
    await expect(handle.remove()).resolves.toBeUndefined();
    await expect(sdk.readFile({ path: '/nope' })).rejects.toThrow('Failed to read file at /nope');
  });

  it('startScan before initSDK ends with bluetoothNotPoweredOn', async () => {
    const sdk = new PlaudSdkDouble({ timing: 'instant', link: fakeRadio(null).link });
    const seen = record(sdk, ['scanTimeout', 'scanResult']);
    await sdk.startScan();
    await until(() => seen.length > 0);
    expect(seen).toEqual([['scanTimeout', { reason: 'bluetoothNotPoweredOn' }]]);
  });

  it('a token without sub fails the handshake with UUID_IS_EMPTY', async () => {
    const sdk = new PlaudSdkWeb({ platform: 'android', timing: 'instant', link: fakeRadio(null).link });
    const { seen } = await connectOnce(sdk, jwt());
    await until(() => seen.some(([n]) => n === 'connectFail'));
    expect(seen.find(([n]) => n === 'connectFail')![1]).toMatchObject({ reason: 'UUID_IS_EMPTY' });
  });

  it('Android with the JP default: a key fetch refused fails every handshake', async () => {
    const radio = fakeRadio(null, false);
    const sdk = new PlaudSdkWeb({
      platform: 'android',
      timing: 'instant',
      link: radio.link,
      sdkBaseUrl: 'jp',
    });
    const { seen } = await connectOnce(sdk, jwt(ALICE));
    await until(() => seen.some(([n]) => n === 'connectFail'));
    expect(radio.calls[0]).toBe('gen-key http://127.0.0.1:4010/jp/developer/api');
    expect(seen.find(([n]) => n === 'connectFail')![1]).toMatchObject({ reason: 'HANDSHAKE_FAIL' });
    expect(radio.handshakes).toEqual([]);
  });
});
