import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../core/root.js';
import { bundleCapacitorNative } from '../../dev/bundleBrowser.js';
import {
  CAPACITOR_NATIVE_BUNDLE,
  CAPACITOR_NATIVE_PATH,
  capacitorNativeMiddleware,
  capacitorNativeRoute,
  capacitorNativeScript,
  capacitorNativeVite,
} from './capacitorNativeDev.js';

// The ways the native-side double gets into a page before its code: the script (bundle plus
// install call) run in a bare global scope, and the dev-server helpers serving it.

let dir: string;
let bundle: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'partner-sim-capnative-dev-'));
  bundle = join(dir, 'capacitor-native.js');
  await bundleCapacitorNative(fromRoot('server/doubles/capacitorNative/capacitorNativeGlobal.ts'), bundle);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('capacitorNativeScript', () => {
  it('is the package build by default (dist/browser, beside dist/server)', () => {
    expect(CAPACITOR_NATIVE_BUNDLE.replaceAll('\\', '/')).toMatch(/\/browser\/capacitor-native\.js$/);
  });

  it.each([
    'android',
    'ios',
  ] as const)('installs the %s shell in a page with nothing else loaded', async (platform) => {
    const js = await capacitorNativeScript({ platform, simulatorUrl: 'http://127.0.0.1:4010' }, bundle);
    const page: Record<string, unknown> = {
      location: { origin: 'http://localhost:5173' },
      console,
      queueMicrotask,
    };
    runInNewContext(js, page);
    const cap = page.Capacitor as Record<string, (...a: unknown[]) => unknown>;
    expect(cap.getPlatform!()).toBe(platform);
    expect(cap.isNativePlatform!()).toBe(true);
    expect(Boolean(page.androidBridge)).toBe(platform === 'android');
    expect(Boolean((page.webkit as { messageHandlers?: object } | undefined)?.messageHandlers)).toBe(
      platform === 'ios',
    );
    const names = (cap.PluginHeaders as unknown as Array<{ name: string }>).map((h) => h.name);
    expect(names).toEqual(['CapacitorCookies', 'WebView', 'CapacitorHttp', 'SystemBars', 'PlaudSdk']);
  });

  it('installs itself from its <script> tag’s data attributes', async () => {
    const dataset = { platform: 'android', simulatorUrl: 'http://127.0.0.1:4010', timing: 'instant' };
    const page: Record<string, unknown> = {
      location: { origin: 'http://localhost:3000' },
      document: { currentScript: { src: 'http://localhost:3000/capacitor-native.js', dataset } },
      console,
      queueMicrotask,
    };
    runInNewContext(await readFile(bundle, 'utf8'), page);
    expect((page.Capacitor as { getPlatform(): string }).getPlatform()).toBe('android');
    expect(page.androidBridge).toBeTruthy();
  });

  it('names a missing build clearly', async () => {
    await expect(capacitorNativeScript({}, join(dir, 'absent.js'))).rejects.toThrow(/absent\.js/);
  });
});

describe('dev-server helpers', () => {
  const serve = (url: string) =>
    new Promise<{ body?: string; type?: string; next: boolean }>((resolve) => {
      const headers: Record<string, string> = {};
      const res = {
        setHeader: (k: string, v: string) => {
          headers[k] = v;
        },
        end: (body: string) => resolve({ body, type: headers['content-type'], next: false }),
      } as unknown as ServerResponse;
      const mw = capacitorNativeMiddleware({ platform: 'android' }, { bundlePath: bundle });
      mw({ url } as IncomingMessage, res, () => resolve({ next: true }));
    });
  const install = 'PartnerSimCapacitorNative.install({"platform":"android"})';

  it('the middleware answers its path (any query) with the script, and nothing else', async () => {
    expect(await serve('/index.html')).toEqual({ next: true });
    const r = await serve(`${CAPACITOR_NATIVE_PATH}?v=1`);
    expect(r.type).toBe('text/javascript; charset=utf-8');
    expect(r.body).toContain(install);
  });

  it('the Fetch route and the Vite plugin carry the same script', async () => {
    const answer = await capacitorNativeRoute({ platform: 'android' }, { bundlePath: bundle })();
    expect(answer.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await answer.text()).toContain(install);
    const plugin = capacitorNativeVite({ platform: 'ios' }, { bundlePath: bundle });
    expect(plugin).toMatchObject({ name: 'partner-sim-capacitor-native', apply: 'serve' });
    const [tag] = await plugin.transformIndexHtml();
    expect(tag).toMatchObject({ tag: 'script', injectTo: 'head-prepend' });
    expect(tag!.children).not.toMatch(/<\/script/i);
  });
});
