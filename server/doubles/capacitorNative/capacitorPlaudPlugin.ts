import { PlaudSdkWeb } from '../capacitor/capacitor.js';
import type { DoubleOptions } from '../phone/options.js';
import type { ConnectOptions, EventName } from '../phone/types.js';
import type { NativeMethod, NativePlugin } from './capacitorNativeSide.js';

/**
 * The `PlaudSdk` plugin as a phone's shell has it installed, answering over the bridge. Each
 * call goes to the Capacitor adapter (capacitor.ts) — the one place that shapes this plugin's
 * payloads, events and rejection messages per platform — so the page sees exactly what the
 * web implementation gives, only reached the way the native plugin is.
 */

/** The methods the official plugin declares (PlaudSdkPlugin.swift / .java), in its order. */
const PLUGIN_METHODS = [
  'initSDK',
  'startScan',
  'stopScan',
  'connectBleDevice',
  'disconnect',
  'depair',
  'isConnected',
  'getFileList',
  'exportAudio',
  'readFile',
  'putBinary',
] as const;

/** The Android plugin's permission aliases (`@CapacitorPlugin(permissions = …)`); iOS declares none. */
const ANDROID_PERMISSIONS = { bluetoothScan: 'granted', bluetoothConnect: 'granted', location: 'granted' };

export function plaudSdkPlugin(
  options: DoubleOptions & { platform: 'android' | 'ios' },
  notify: (eventName: string, data: unknown) => void,
): { plugin: NativePlugin; sdk: PlaudSdkWeb } {
  const sdk = new PlaudSdkWeb(options);
  const call = sdk as unknown as Record<string, (o: unknown) => Promise<unknown>>;
  const methods: Record<string, NativeMethod> = {};
  for (const name of PLUGIN_METHODS) methods[name] = (o) => call[name]!.call(sdk, o);
  // The extension (not in the official plugin yet): one options object, as every plugin call.
  methods.recoveryConnectBleDevice = (o) => {
    const { historicalId, ...device } = o as unknown as ConnectOptions & { historicalId: string };
    return sdk.recoveryConnectBleDevice(device, historicalId);
  };
  if (options.platform === 'android') {
    methods.checkPermissions = () => ({ ...ANDROID_PERMISSIONS });
    methods.requestPermissions = () => ({ ...ANDROID_PERMISSIONS });
  }
  const plugin: NativePlugin = {
    methods,
    listen: (eventName) => void sdk.addListener(eventName as EventName, (data) => notify(eventName, data)),
  };
  return { plugin, sdk };
}
