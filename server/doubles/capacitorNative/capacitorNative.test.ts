import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCapacitorNative } from './capacitorNative.js';

// The double installed into this process's global scope before the real @capacitor/core is
// imported (one platform per file: core binds to the global it finds once). What the app
// sees at start-up, plugins other than PlaudSdk, and the core plugins a shell has built in.

type Core = typeof import('@capacitor/core');
const g = globalThis as Record<string, unknown>;
let core: Core;
const logged: unknown[][] = [];
const original = { warn: console.warn, error: console.error };

beforeAll(async () => {
  console.warn = (...a: unknown[]) => void logged.push(['warn', ...a]);
  console.error = (...a: unknown[]) => void logged.push(['error', ...a]);
  installCapacitorNative({
    platform: 'android',
    simulatorUrl: 'http://127.0.0.1:9',
    timing: 'instant',
    serverUrl: 'https://localhost',
    plugins: { Device: { getId: () => ({ identifier: 'sim-device' }) } },
    onError: () => undefined,
  });
  core = await import('@capacitor/core');
});
afterAll(() => {
  Object.assign(console, original);
  for (const k of ['Capacitor', 'androidBridge', 'WEBVIEW_SERVER_URL', '__partnerSimCapacitorNative'])
    delete g[k];
});

describe('installed before @capacitor/core', () => {
  it('the app sees a native Android platform', () => {
    const { Capacitor } = core;
    expect(Capacitor.getPlatform()).toBe('android');
    expect(Capacitor.isNativePlatform()).toBe(true);
    expect(Capacitor.isPluginAvailable('PlaudSdk')).toBe(true);
    expect(Capacitor.isPluginAvailable('Camera')).toBe(false);
    expect(Capacitor.convertFileSrc('/data/x.mp3')).toBe('https://localhost/_capacitor_file_/data/x.mp3');
    expect(g.CapacitorCustomPlatform).toBeUndefined();
  });

  it('PlaudSdk has no web implementation and still answers, with the plugin’s messages', async () => {
    const sdk = core.registerPlugin<{
      initSDK(o: object): Promise<void>;
      checkPermissions(): Promise<unknown>;
    }>('PlaudSdk');
    await expect(sdk.initSDK({})).rejects.toMatchObject({ message: 'userAccessToken is required' });
    await expect(sdk.checkPermissions()).resolves.toEqual({
      bluetoothScan: 'granted',
      bluetoothConnect: 'granted',
      location: 'granted',
    });
  });

  it('a plugin the shell lacks rejects as on a phone; one the partner passes answers', async () => {
    const camera = core.registerPlugin<{ getPhoto(): Promise<unknown> }>('Camera');
    await expect(camera.getPhoto()).rejects.toMatchObject({
      message: '"Camera" plugin is not implemented on android',
      code: 'UNIMPLEMENTED',
    });
    const device = core.registerPlugin<{ getId(): Promise<unknown> }>('Device');
    await expect(device.getId()).resolves.toEqual({ identifier: 'sim-device' });
  });

  it('the built-in plugins answer natively (WebView, SystemBars, CapacitorHttp)', async () => {
    const { WebView } = core as unknown as { WebView: { getServerBasePath(): Promise<unknown> } };
    await expect(WebView.getServerBasePath()).resolves.toEqual({ path: '' });
    await expect(core.SystemBars.hide()).resolves.toBeUndefined();
    await expect(core.CapacitorHttp.get({ url: 'http://127.0.0.1:9/x' })).rejects.toBeInstanceOf(Error);
  });

  it('CapacitorHttp passes a request through to fetch and answers as the native plugin', async () => {
    const server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, url: req.url }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const r = await core.CapacitorHttp.post({
        url: `http://127.0.0.1:${port}/p`,
        params: { a: '1' },
        data: { x: 1 },
      });
      expect(r).toMatchObject({ status: 200, data: { method: 'POST', url: '/p?a=1' } });
      expect(r.headers['content-type']).toBe('application/json');
    } finally {
      server.close();
    }
  });

  it('start-up and these calls logged nothing', () => {
    expect(logged).toEqual([]);
  });

  it('installing again returns the same shell; after core it refuses clearly', () => {
    const shell = installCapacitorNative();
    expect(shell?.platform).toBe('android');
    const saved = g.__partnerSimCapacitorNative;
    delete g.__partnerSimCapacitorNative;
    const bridge = g.androidBridge;
    delete g.androidBridge;
    try {
      expect(() => installCapacitorNative()).toThrow(/@capacitor\/core was loaded first/);
    } finally {
      g.androidBridge = bridge;
      g.__partnerSimCapacitorNative = saved;
    }
  });

  it('steps aside where a real shell injected its bridge', () => {
    const saved = g.__partnerSimCapacitorNative;
    delete g.__partnerSimCapacitorNative;
    try {
      expect(installCapacitorNative()).toBeUndefined();
    } finally {
      g.__partnerSimCapacitorNative = saved;
    }
  });
});
