import { exportFilePath } from '../phone/audioExport.js';
import { BridgeCore } from '../phone/core.js';
import { BridgeError } from '../phone/errors.js';
import { coreOptions, type DoubleOptions } from '../phone/options.js';
import type {
  BridgeMethods,
  ConnectOptions,
  EventName,
  EventPayloads,
  ExportOptions,
  InitOptions,
  Platform,
  ScanDevice,
} from '../phone/types.js';
import { capacitorEvent, readFileMissing } from './capacitorShape.js';

/**
 * A web implementation of the Capacitor plugin `PlaudSdk`, backed by a virtual recorder from
 * the simulator. It behaves as Capacitor's WebPlugin does (listeners by event name,
 * `addListener` resolving to a handle whose `remove()` is async, `removeAllListeners`), and
 * as the official plugin does on a phone: rejections carry the plugin's message strings,
 * `readFile` returns an export's bytes in base64, `putBinary` PUTs bytes with fetch.
 * No dependency on @capacitor/core: the app's own `registerPlugin` is handed in or calls it.
 */

export type { DoubleOptions } from '../phone/options.js';
export type * from '../phone/types.js';
export type * from '../phone/wrapperTypes.js';

export interface PluginListenerHandle {
  remove(): Promise<void>;
}
type Listener<K extends EventName> = (data: EventPayloads[K]) => void;

/** Capacitor rejects with the plugin's message alone: no wrapper error codes. */
const plain = async <T>(run: () => Promise<T>): Promise<T> => {
  try {
    return await run();
  } catch (e) {
    throw e instanceof BridgeError ? new Error(e.message) : e;
  }
};

const toBase64 = (bytes: Uint8Array): string => {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
};
const fromBase64 = (data: string): Uint8Array => Uint8Array.from(atob(data), (c) => c.charCodeAt(0));

export class PlaudSdkWeb implements BridgeMethods {
  private readonly core: BridgeCore;
  private readonly listeners: Record<string, Array<(data: unknown) => void>> = {};
  private readonly fetcher: typeof fetch;
  private readonly platform: Platform;

  constructor(options: DoubleOptions = {}) {
    const platform = options.platform ?? 'ios';
    this.platform = platform;
    // Each platform's plugin payloads (Android: diagnostics, macAddress, connectFail details).
    this.core = new BridgeCore(coreOptions(options, 'capacitor'), (name, data) => {
      const shaped = capacitorEvent(platform, name, data);
      if (shaped !== undefined) this.notifyListeners(name, shaped);
    });
    this.fetcher = options.fetch ?? ((...a) => globalThis.fetch(...a));
  }

  async addListener<K extends EventName>(eventName: K, listener: Listener<K>): Promise<PluginListenerHandle> {
    const l = listener as (data: unknown) => void;
    const list = this.listeners[eventName] ?? [];
    this.listeners[eventName] = list;
    list.push(l);
    return { remove: async () => this.removeListener(eventName, listener) };
  }
  async removeListener<K extends EventName>(eventName: K, listener: Listener<K>): Promise<void> {
    const list = this.listeners[eventName];
    const i = list?.indexOf(listener as (data: unknown) => void) ?? -1;
    if (list && i >= 0) list.splice(i, 1);
  }
  async removeAllListeners(): Promise<void> {
    for (const k of Object.keys(this.listeners)) delete this.listeners[k];
  }
  notifyListeners(eventName: string, data: unknown): void {
    for (const l of [...(this.listeners[eventName] ?? [])]) l(data);
  }

  initSDK(o: InitOptions) {
    return plain(() => this.core.initSDK(o));
  }
  startScan() {
    return plain(() => this.core.startScan());
  }
  stopScan() {
    return plain(() => this.core.stopScan());
  }
  connectBleDevice(o: ConnectOptions) {
    return plain(() => this.core.connectBleDevice(o));
  }
  disconnect() {
    return plain(() => this.core.disconnect());
  }
  depair(o?: { clear?: boolean }) {
    return plain(() => this.core.depair(o));
  }
  isConnected() {
    return plain(() => this.core.isConnected());
  }
  getFileList(o?: { startSessionId?: number }) {
    return plain(() => this.core.getFileList(o));
  }
  exportAudio(o: ExportOptions) {
    return plain(() => this.core.exportAudio(o));
  }
  /** NOT in the official wrappers yet: the native SDK's recovery connect (see types.ts). */
  recoveryConnectBleDevice(device: ConnectOptions | ScanDevice, historicalId: string) {
    return plain(() => this.core.recoveryConnectBleDevice(device, historicalId));
  }

  /**
   * Test helper, not in the plugin: stops polling the simulator and forgets the virtual phone
   * there (a later initSDK starts a new one). A page keeps its one plugin for its life; a test
   * that makes one per case disposes each, or its phone's event polling goes on (less and less
   * often) after the simulator stopped.
   */
  dispose(): void {
    this.core.dispose();
  }

  async readFile(o: { path: string }): Promise<{ data: string }> {
    if (!o?.path) throw new Error('path is required');
    const bytes = this.core.readExport(o.path);
    if (!bytes) throw new Error(readFileMissing(this.platform, exportFilePath(o.path)));
    return { data: toBase64(bytes) };
  }

  async putBinary(o: {
    url: string;
    data: string;
    contentType?: string;
  }): Promise<{ status: number; etag: string | null }> {
    if (!o?.url) throw new Error('url is required');
    let body: Uint8Array;
    try {
      body = fromBase64(o.data);
    } catch {
      throw new Error('data (base64-encoded body) is required');
    }
    try {
      const r = await this.fetcher(o.url, {
        method: 'PUT',
        body: body as unknown as ArrayBuffer,
        ...(o.contentType ? { headers: { 'content-type': o.contentType } } : {}),
      });
      // Read to the end: a WebView logs an answer left unread as net::ERR_ABORTED.
      await r.arrayBuffer();
      return { status: r.status, etag: r.headers.get('etag') };
    } catch (e) {
      throw new Error(`PUT failed: ${(e as Error).message}`);
    }
  }
}

let shared: PlaudSdkWeb | undefined;
/**
 * The `web` entry of a `registerPlugin('PlaudSdk', { web: … })` call: the page's one plugin.
 * Capacitor calls a lazy loader once per method call until the first load finishes, so
 * early concurrent calls (listeners registered at start-up) would otherwise each get a
 * phone of their own. `new PlaudSdkWeb(options)` makes an independent one.
 */
export const createPlaudSdkWeb = (options: DoubleOptions = {}): PlaudSdkWeb => {
  shared ??= new PlaudSdkWeb(options);
  return shared;
};

type RegisterPlugin = <T>(name: string, implementations: { web: unknown }) => T;

/**
 * Pre-registration: call before the app's own `registerPlugin('PlaudSdk')` runs, with
 * Capacitor's `registerPlugin`. Capacitor keeps the first registration of a name, so the
 * app's later call gets this double (and logs that the plugin was already registered).
 */
export function installPlaudSdkDouble<T = PlaudSdkWeb>(
  registerPlugin: RegisterPlugin,
  options: DoubleOptions = {},
): T {
  return registerPlugin<T>('PlaudSdk', { web: new PlaudSdkWeb(options) });
}

/** The wrapper's name for the plugin's type. */
export type PlaudSdkPlugin = PlaudSdkWeb;
