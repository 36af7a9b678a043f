import { registerPlugin } from '@capacitor/core';
import { installPlaudSdkDouble, type PlaudSdkWeb } from 'partner-sim/doubles/capacitor';

// A Capacitor web app's entry, bundled for Chromium by sdk-tests/capacitorChromium.test.ts.
// It installs the double one of the two documented ways, then registers the plugin as the
// official wrapper's lib/plaud-sdk.ts does, and hands the page's test driver the plugin.

interface PageConfig {
  simulatorUrl: string;
  platform: 'ios' | 'android';
  install: 'preregister' | 'loader';
  timing: 'hardware' | 'instant';
}
const page = globalThis as unknown as { __DOUBLE__: PageConfig; PlaudSdk: PlaudSdkWeb; events: unknown[] };
const { install, ...options } = page.__DOUBLE__;

let PlaudSdk: PlaudSdkWeb;
if (install === 'preregister') {
  // Before app code: Capacitor keeps the first registration, the app's own call gets it.
  installPlaudSdkDouble(registerPlugin, options);
  PlaudSdk = registerPlugin<PlaudSdkWeb>('PlaudSdk');
} else {
  // The one-line web loader in the app's registerPlugin call.
  PlaudSdk = registerPlugin<PlaudSdkWeb>('PlaudSdk', {
    web: () => import('partner-sim/doubles/capacitor').then((m) => m.createPlaudSdkWeb(options)),
  });
}

page.events = [];
for (const name of [
  'scanResult',
  'connectState',
  'bind',
  'connectFail',
  'fileList',
  'exportProgress',
  'recordStart',
  'recordStop',
  'depair',
] as const) {
  void PlaudSdk.addListener(name, (data: unknown) => page.events.push({ name, data }));
}
page.PlaudSdk = PlaudSdk;
