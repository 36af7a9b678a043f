import { BridgeCore } from '../phone/core.js';
import { coreOptions, type DoubleOptions } from '../phone/options.js';
import {
  type BridgeMethods,
  type ConnectOptions,
  type EventName,
  type EventPayloads,
  type ExportOptions,
  type InitOptions,
  type ScanDevice,
  SHARED_EVENTS,
} from '../phone/types.js';

/**
 * A drop-in double of the React Native / Expo module `plaud-sdk`: the same exports
 * (`PlaudSdk`, also default, and `isAvailable`), methods, events and coded errors, with a
 * virtual recorder from the simulator behind it. Alias `plaud-sdk` to
 * `partner-sim/doubles/react-native` (Jest moduleNameMapper, Vitest alias, Metro resolver)
 * and set it up once with `configurePlaudSdkDouble`. No Node-only imports: it runs in Node,
 * a browser and a React Native JS engine alike.
 */

export type { DoubleOptions } from '../phone/options.js';
export type * from '../phone/types.js';
export type * from '../phone/wrapperTypes.js';

export interface EventSubscription {
  remove(): void;
}
type Listener<K extends EventName> = (data: EventPayloads[K]) => void;

export class PlaudSdkDouble implements BridgeMethods {
  private core!: BridgeCore;
  private readonly listeners = new Map<string, Set<(data: unknown) => void>>();

  constructor(options: DoubleOptions = {}) {
    this.configure(options);
  }

  /**
   * Android only, as the module defines it: on iOS the method is absent (the wrapper's types
   * say to guard it with `Platform.OS === 'android'`). Granted unless the phone's permissions
   * are arranged denied.
   */
  declare requestPermissions?: () => Promise<{ granted: boolean }>;

  /** (Re)starts the virtual phone: a fresh SDK state, listeners kept. */
  configure(options: DoubleOptions): void {
    this.core?.dispose();
    const o = coreOptions(options, 'react-native');
    // The module declares only the twelve shared events; Android's diagnostics stay unbridged.
    this.core = new BridgeCore(o, (name, data) => {
      if (SHARED_EVENTS.includes(name)) for (const l of [...(this.listeners.get(name) ?? [])]) l(data);
    });
    if (o.platform === 'android')
      this.requestPermissions = async () => ({ granted: await this.core.permissionsGranted() });
    else delete this.requestPermissions;
  }

  /** Synchronous, as Expo's NativeModule: returns a subscription with `remove()`. */
  addListener<K extends EventName>(eventName: K, listener: Listener<K>): EventSubscription {
    const set = this.listeners.get(eventName) ?? new Set();
    this.listeners.set(eventName, set);
    const l = listener as (data: unknown) => void;
    set.add(l);
    return { remove: () => void set.delete(l) };
  }
  removeListener<K extends EventName>(eventName: K, listener: Listener<K>): void {
    this.listeners.get(eventName)?.delete(listener as (data: unknown) => void);
  }
  removeAllListeners(eventName: EventName): void {
    this.listeners.delete(eventName);
  }
  listenerCount(eventName: EventName): number {
    return this.listeners.get(eventName)?.size ?? 0;
  }

  initSDK(o: InitOptions) {
    return this.core.initSDK(o);
  }
  startScan() {
    return this.core.startScan();
  }
  stopScan() {
    return this.core.stopScan();
  }
  connectBleDevice(o: ConnectOptions) {
    return this.core.connectBleDevice(o);
  }
  disconnect() {
    return this.core.disconnect();
  }
  depair(o?: { clear?: boolean }) {
    return this.core.depair(o);
  }
  isConnected() {
    return this.core.isConnected();
  }
  getFileList(o?: { startSessionId?: number }) {
    return this.core.getFileList(o);
  }
  exportAudio(o: ExportOptions) {
    return this.core.exportAudio(o);
  }
  /** NOT in the official wrappers yet: the native SDK's recovery connect (see types.ts). */
  recoveryConnectBleDevice(device: ConnectOptions | ScanDevice, historicalId: string) {
    return this.core.recoveryConnectBleDevice(device, historicalId);
  }
  /**
   * Test helper, not in the module: stops polling the simulator and forgets the virtual phone
   * there (a later initSDK starts a new one), as `configure` does before it starts afresh. For
   * tests that make a double per case with `new PlaudSdkDouble(…)`.
   */
  dispose(): void {
    this.core.dispose();
  }
  /**
   * Test helper, not in the module: the bytes an export wrote (an app reads them with
   * expo-file-system, which a test mocks with this).
   */
  readExport(outputPath: string): Uint8Array | undefined {
    return this.core.readExport(outputPath);
  }
}

/** The module's singleton, as `plaud-sdk` exports it. */
export const PlaudSdk = new PlaudSdkDouble();
/** The double is always callable (the real module: only on a device with the native build). */
export const isAvailable = true;

/** Points the singleton at a simulator and picks the platform and timing; resets its state. */
export function configurePlaudSdkDouble(options: DoubleOptions): PlaudSdkDouble {
  PlaudSdk.configure(options);
  return PlaudSdk;
}

export default PlaudSdk;

/** The wrapper's name for the plugin's type. */
export type PlaudSdkModule = PlaudSdkDouble;
