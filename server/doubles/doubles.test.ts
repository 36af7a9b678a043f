import { describe, expect, it } from 'vitest';
import { PlaudSdkWeb } from './capacitor/capacitor.js';
import { apiBaseFor, deviceMountFor, sdkHostFor } from './phone/sdkCloud.js';
import type { EventName } from './phone/types.js';
import { PlaudSdkDouble } from './reactNative/reactNative.js';

// What the doubles answer before any device is involved: where a phone's calls go, the coded
// (React Native) and plain (Capacitor) errors of calls out of order. The doubles against a
// running simulator, every lock case included, are in sdk-tests/.

const SIM = 'http://127.0.0.1:4010';
// Nothing here may reach a simulator: a fetch that fails loudly proves it.
const offline = (() => Promise.reject(new Error('no network in this test'))) as typeof fetch;
const quiet = { timing: 'instant' as const, fetch: offline, onError: () => {} };

describe('where the SDK sends its calls', () => {
  it('maps live hosts onto the simulator, any other host literally', () => {
    expect(apiBaseFor('platform-us.plaud.ai', SIM)).toBe(`${SIM}/developer/api`);
    expect(apiBaseFor('platform-jp.plaud.ai', SIM)).toBe(`${SIM}/jp/developer/api`);
    expect(apiBaseFor('127.0.0.1:5000', SIM)).toBe('http://127.0.0.1:5000/developer/api');
    expect(deviceMountFor('platform-jp.plaud.ai', SIM)).toBe(`${SIM}/jp/__device`);
    expect(deviceMountFor('127.0.0.1:5000', SIM)).toBe('http://127.0.0.1:5000/__device');
  });
  it("sends Android's key fetch to JP unless the app repoints it; iOS follows customDomain", () => {
    expect(deviceMountFor(sdkHostFor('android', 'platform-us.plaud.ai', 'jp'), SIM)).toBe(
      `${SIM}/jp/__device`,
    );
    expect(sdkHostFor('android', 'platform-us.plaud.ai', 'customDomain')).toBe('platform-us.plaud.ai');
    expect(sdkHostFor('ios', 'platform-us.plaud.ai', 'jp')).toBe('platform-us.plaud.ai');
  });
});

describe('calls out of order, as each bridge answers them', () => {
  it("React Native: coded errors with the wrappers' messages", async () => {
    const sdk = new PlaudSdkDouble(quiet);
    await expect(sdk.initSDK({ userAccessToken: '', customDomain: 'x' })).rejects.toMatchObject({
      code: 'ERR_PLAUD_ARGS',
      message: 'userAccessToken is required',
    });
    await expect(sdk.initSDK({ userAccessToken: 't', customDomain: '' })).rejects.toMatchObject({
      code: 'ERR_PLAUD_ARGS',
      message: 'customDomain is required (domain only, no https://)',
    });
    await expect(sdk.connectBleDevice({ uuid: 'nope' })).rejects.toMatchObject({
      code: 'ERR_PLAUD_UNKNOWN_DEVICE',
      message: 'Unknown device — scan first, then connect by uuid or serialNumber',
    });
    await expect(sdk.exportAudio({} as never)).rejects.toMatchObject({
      code: 'ERR_PLAUD_ARGS',
      message: 'sessionId is required',
    });
    // The module's Record defaults a missing id to -1 and refuses any negative one.
    await expect(sdk.exportAudio({ sessionId: -1 })).rejects.toMatchObject({
      code: 'ERR_PLAUD_ARGS',
      message: 'sessionId is required',
    });
    await expect(sdk.exportAudio({ sessionId: 1 })).rejects.toMatchObject({ code: 'ERR_PLAUD_EXPORT' });
    await expect(sdk.recoveryConnectBleDevice({ uuid: 'x' }, '')).rejects.toMatchObject({
      code: 'ERR_PLAUD_ARGS',
    });
    expect(await sdk.isConnected()).toEqual({ connected: false });
    sdk.configure(quiet);
  });

  it('React Native: requestPermissions exists on Android only, as the module defines it', () => {
    const sdk = new PlaudSdkDouble(quiet);
    expect('requestPermissions' in sdk).toBe(false);
    expect(sdk.requestPermissions).toBeUndefined();
    sdk.configure({ ...quiet, platform: 'android' });
    expect(typeof sdk.requestPermissions).toBe('function');
    sdk.configure(quiet);
    expect('requestPermissions' in sdk).toBe(false);
  });

  it('Capacitor: plain message strings, no code; readFile and putBinary check their input', async () => {
    const sdk = new PlaudSdkWeb(quiet);
    const err = await sdk.connectBleDevice({ serialNumber: '881000000000001' }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toHaveProperty('code');
    expect((err as Error).message).toBe('Unknown device — scan first, then connect by uuid or serialNumber');
    // Only a missing or non-integer id is the plugins' own refusal; a negative one goes to the SDK.
    await expect(sdk.exportAudio({} as never)).rejects.toThrow(/^sessionId is required$/);
    await expect(sdk.exportAudio({ sessionId: 1.5 })).rejects.toThrow(/^sessionId is required$/);
    await expect(sdk.exportAudio({ sessionId: -1 })).rejects.toThrow(/^device not connected$/);
    await expect(sdk.readFile({ path: '' })).rejects.toThrow('path is required');
    // The path as the plugin resolves it, then the platform's own reason.
    await expect(
      sdk.readFile({ path: 'capacitor://localhost/_capacitor_file_/x/a%20b.mp3' }),
    ).rejects.toThrow(
      /^Failed to read file at \/x\/a b\.mp3: The file “a b\.mp3” couldn’t be opened because there is no such file\.$/,
    );
    const android = new PlaudSdkWeb({ ...quiet, platform: 'android' });
    await expect(android.readFile({ path: 'file:///data/x.mp3' })).rejects.toThrow(
      /^Failed to read file at \/data\/x\.mp3: \/data\/x\.mp3 \(No such file or directory\)$/,
    );
    await expect(android.exportAudio({ sessionId: -1 })).rejects.toThrow(/^device not connected$/);
    await expect(sdk.putBinary({ url: '', data: '' })).rejects.toThrow('url is required');
    await expect(sdk.putBinary({ url: 'http://x', data: '%%' })).rejects.toThrow(
      'data (base64-encoded body) is required',
    );
    await expect(sdk.putBinary({ url: 'http://x', data: 'AAAA' })).rejects.toThrow(
      'PUT failed: no network in this test',
    );
  });

  it('Capacitor listeners: addListener resolves to a handle whose remove() is async', async () => {
    const sdk = new PlaudSdkWeb(quiet);
    const got: unknown[] = [];
    const handle = await sdk.addListener('depair', (d) => got.push(d));
    sdk.notifyListeners('depair', { status: 0 });
    await expect(handle.remove()).resolves.toBeUndefined();
    sdk.notifyListeners('depair', { status: 0 });
    expect(got).toEqual([{ status: 0 }]);
  });

  it.each([
    'rn',
    'capacitor',
  ])('%s: startScan before initSDK ends with bluetoothNotPoweredOn', async (kind) => {
    const sdk = kind === 'rn' ? new PlaudSdkDouble(quiet) : new PlaudSdkWeb(quiet);
    const seen: Array<[EventName, unknown]> = [];
    for (const n of ['scanTimeout', 'scanResult'] as const)
      void sdk.addListener(n, (d: unknown) => seen.push([n, d]));
    await sdk.startScan();
    await expect.poll(() => seen.length).toBe(1);
    expect(seen).toEqual([['scanTimeout', { reason: 'bluetoothNotPoweredOn' }]]);
  });
});
