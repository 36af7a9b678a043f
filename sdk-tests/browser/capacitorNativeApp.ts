import { Capacitor, type PluginListenerHandle, registerPlugin } from '@capacitor/core';
import type { EventName } from '../../server/doubles/phone/types.js';
import type { PlaudSdkMethods } from '../../server/doubles/phone/wrapperTypes.js';

// A Capacitor app page shaped like the public demo (its lib/plaud-sdk.ts and page): the
// plugin registered with no web implementation, every device action behind
// Capacitor.isNativePlatform(). Nothing here knows about partner-sim: the test loads the
// native-side double before this bundle, as a phone's shell is there before the page.

interface PlaudSdkPlugin extends PlaudSdkMethods {
  readFile(o: { path: string }): Promise<{ data: string }>;
  putBinary(o: {
    url: string;
    data: string;
    contentType?: string;
  }): Promise<{ status: number; etag: string | null }>;
  recoveryConnectBleDevice(o: { uuid?: string; serialNumber?: string; historicalId: string }): Promise<void>;
  addListener(eventName: EventName, listener: (data: unknown) => void): Promise<PluginListenerHandle>;
}

// lib/plaud-sdk.ts
const PlaudSdk = registerPlugin<PlaudSdkPlugin>('PlaudSdk');
// Another native plugin the app uses, which this shell does not have installed.
const Camera = registerPlugin<{ getPhoto(o: object): Promise<unknown> }>('Camera');
const Preferences = registerPlugin<{ get(o: { key: string }): Promise<{ value: string | null }> }>(
  'Preferences',
);

const EVENTS: EventName[] = [
  'scanResult',
  'scanTimeout',
  'connectState',
  'connectFail',
  'penState',
  'bind',
  'fileList',
  'exportProgress',
  'recordStart',
  'recordStop',
  'depair',
];

/** What the page hands its test driver (the test plays the app's buttons through it). */
const app = {
  platform: Capacitor.getPlatform(),
  native: Capacitor.isNativePlatform(),
  available: Capacitor.isPluginAvailable('PlaudSdk'),
  ready: false,
  deviceReady: false,
  PlaudSdk,
  Camera,
  Preferences,
  exportedSrc: (outputPath: string) => Capacitor.convertFileSrc(outputPath),
  /** Each list the page showed, in order: what its recordings view held after each fileList. */
  shown: [] as Array<Array<{ sn: string; sessionId: number }>>,
};
(globalThis as unknown as { app: typeof app }).app = app;
const driver = globalThis as unknown as { onPlaudEvent?: (name: string, data: unknown) => void };

// Cordova-era and Ionic code waits for the shell's deviceready.
const page = globalThis as unknown as { document: { addEventListener(name: string, cb: () => void): void } };
page.document.addEventListener('deviceready', () => {
  app.deviceReady = true;
});

if (Capacitor.isNativePlatform()) {
  const handles: PluginListenerHandle[] = [];
  void (async () => {
    for (const name of EVENTS) {
      handles.push(await PlaudSdk.addListener(name, (data) => driver.onPlaudEvent?.(name, data)));
    }
    // The demo's own listeners: on connectState {connected: true} it asks for the file list
    // itself (the user never taps Refresh), and shows what fileList brings.
    handles.push(
      await PlaudSdk.addListener('connectState', (data) => {
        if ((data as { connected?: boolean }).connected) void PlaudSdk.getFileList({ startSessionId: 0 });
      }),
      await PlaudSdk.addListener('fileList', (data) => {
        app.shown.push((data as { files: Array<{ sn: string; sessionId: number }> }).files);
      }),
    );
    app.ready = true;
  })();
}
