import { describe, expect, it } from 'vitest';
import { installBridgeRuntime } from './capacitorBridgeRuntime.js';
import { NativeSide } from './capacitorNativeSide.js';
import type { BridgeCall, BridgeResult, NativePlatform, NativeWindow } from './capacitorWindow.js';

// The shell's two halves without a browser: the bridge runtime a page gets, wired to the
// native side through the platform's channel, answering as each shell answers.

const settle = () => new Promise((r) => setTimeout(r, 0));

function shell(platform: NativePlatform) {
  const sent: BridgeResult[] = [];
  const win: NativeWindow = {
    Capacitor: { Plugins: {} },
    console: { log() {}, info() {}, warn() {}, error() {} },
  };
  const side = new NativeSide(platform, (r) => {
    sent.push(r);
    if (platform === 'android') win.androidBridge?.onmessage?.({ data: JSON.stringify(r) });
    else win.Capacitor?.fromNative?.(r);
  });
  const posted: BridgeCall[] = [];
  const receive = (c: BridgeCall) => {
    posted.push(c);
    side.receive(c);
  };
  if (platform === 'android')
    win.androidBridge = { postMessage: (j) => receive(JSON.parse(j)), onmessage: null };
  else win.webkit = { messageHandlers: { bridge: { postMessage: (m) => receive(m) } } };
  installBridgeRuntime(win, platform, 'http://localhost');
  const notified: string[] = [];
  side.register('Echo', {
    methods: {
      echo: (o) => ({ got: o }),
      nothing: () => undefined,
      fail: () => {
        throw Object.assign(new Error('it failed'), { code: 'E_FAIL' });
      },
    },
    listen: (e) => notified.push(e),
  });
  return {
    cap: win.Capacitor as Required<NativeWindow>['Capacitor'] & Record<string, never>,
    side,
    sent,
    posted,
    notified,
  };
}

describe.each(['android', 'ios'] as const)('on %s', (platform) => {
  it('answers a promise call with its data, and a void one with none', async () => {
    const { cap, sent, posted } = shell(platform);
    await expect(cap.nativePromise!('Echo', 'echo', { a: 1 })).resolves.toEqual({ got: { a: 1 } });
    await expect(cap.nativePromise!('Echo', 'nothing')).resolves.toBeUndefined();
    expect(posted[0]).toMatchObject({ pluginId: 'Echo', methodName: 'echo', options: { a: 1 } });
    expect(posted[0]!.type).toBe(platform === 'ios' ? 'message' : undefined);
    expect(sent[1]).toEqual({
      callbackId: posted[1]!.callbackId,
      pluginId: 'Echo',
      methodName: 'nothing',
      save: false,
      success: true,
    });
  });

  it("rejects with the shell's error shape: a Capacitor exception with message and code", async () => {
    const { cap, sent } = shell(platform);
    const e = (await cap.nativePromise!('Echo', 'fail').catch((x) => x)) as Record<string, unknown>;
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toBe('it failed');
    expect(e.code).toBe('E_FAIL');
    expect(sent[0]!.error).toEqual(
      platform === 'ios'
        ? { message: 'it failed', errorMessage: 'it failed', code: 'E_FAIL' }
        : { message: 'it failed', code: 'E_FAIL' },
    );
  });

  it('keeps a listener call open: every event resolves it again, until removed', async () => {
    const { cap, side, notified } = shell(platform);
    const got: unknown[] = [];
    const id = cap.nativeCallback!('Echo', 'addListener', { eventName: 'tick' }, (d) => got.push(d));
    await settle();
    expect(notified).toEqual(['tick']);
    side.notify('Echo', 'tick', { n: 1 });
    side.notify('Echo', 'other', { n: 0 });
    side.notify('Echo', 'tick', { n: 2 });
    expect(got).toEqual([{ n: 1 }, { n: 2 }]);
    cap.nativeCallback!('Echo', 'removeListener', { eventName: 'tick', callbackId: id });
    await settle();
    side.notify('Echo', 'tick', { n: 3 });
    expect(got).toHaveLength(2);
  });

  it('removeAllListeners resolves and drops every kept call', async () => {
    const { cap, side } = shell(platform);
    const got: unknown[] = [];
    cap.nativeCallback!('Echo', 'addListener', { eventName: 'tick' }, (d) => got.push(d));
    await expect(cap.nativePromise!('Echo', 'removeAllListeners')).resolves.toBeUndefined();
    side.notify('Echo', 'tick', {});
    expect(got).toEqual([]);
  });

  it('an unknown plugin: Android answers "unable to find plugin", iOS never settles', async () => {
    const { cap } = shell(platform);
    const outcome = await Promise.race([
      cap.nativePromise!('Nope', 'x').catch((e: Error) => e.message),
      settle()
        .then(settle)
        .then(() => 'pending'),
    ]);
    expect(outcome).toBe(platform === 'android' ? 'unable to find plugin : Nope' : 'pending');
  });

  it('declares base methods and the plugin methods as promise headers', () => {
    const { side } = shell(platform);
    const [header] = side.headers();
    expect(header!.name).toBe('Echo');
    expect(header!.methods.slice(0, 2)).toEqual([{ name: 'addListener' }, { name: 'removeListener' }]);
    expect(header!.methods).toContainEqual({ name: 'echo', rtype: 'promise' });
  });
});
