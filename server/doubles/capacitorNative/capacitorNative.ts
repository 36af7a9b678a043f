import type { PlaudSdkWeb } from '../capacitor/capacitor.js';
import type { DoubleOptions } from '../phone/options.js';
import { installBridgeRuntime } from './capacitorBridgeRuntime.js';
import { corePlugins } from './capacitorCorePlugins.js';
import { type NativeMethod, type NativePlugin, NativeSide } from './capacitorNativeSide.js';
import { plaudSdkPlugin } from './capacitorPlaudPlugin.js';
import type {
  BridgeCall,
  BridgeResult,
  CapacitorGlobal,
  NativePlatform,
  NativeWindow,
} from './capacitorWindow.js';

/**
 * The Capacitor double that stands where a phone's native shell stands. Loaded before
 * @capacitor/core, it injects what the shell injects — the platform's message channel
 * (`window.androidBridge` or `window.webkit.messageHandlers.bridge`), the bridge runtime of
 * native-bridge.js, `Capacitor.PluginHeaders` — and answers the messages as the shell's
 * plugins would. The app's unchanged `registerPlugin('PlaudSdk')` (no web implementation)
 * then reaches a virtual recorder, `isNativePlatform()` is true and `getPlatform()` says
 * `android` or `ios`. Browser-safe: no Node imports.
 */

export type { DoubleOptions } from '../phone/options.js';
export type { NativePlatform } from './capacitorWindow.js';

/** A plugin the partner's shell has installed, by method name; a throw rejects the call. */
export type PluginImplementation = Record<string, NativeMethod>;

export interface CapacitorNativeOptions extends Omit<DoubleOptions, 'platform'> {
  /** Which shell to play (default `ios`). */
  platform?: NativePlatform;
  /**
   * Other native plugins the app calls, as the partner's shell would have them installed.
   * Any other plugin answers as one not installed: "… is not implemented on android".
   */
  plugins?: Record<string, PluginImplementation>;
  /** The WebView's server URL, the base of `convertFileSrc` (default: the page's origin). */
  serverUrl?: string;
}

export interface CapacitorNativeShell {
  platform: NativePlatform;
  /** The PlaudSdk plugin's implementation (the Capacitor adapter), e.g. for its test helpers. */
  plaudSdk: PlaudSdkWeb;
  /** Installs one more plugin; it must come before the app's `registerPlugin` of that name. */
  addPlugin(pluginId: string, methods: PluginImplementation): void;
  /** Sends an event of an added plugin to the page's listeners (Capacitor's `notifyListeners`). */
  notifyListeners(pluginId: string, eventName: string, data?: unknown): void;
}

type Installed = NativeWindow & { __partnerSimCapacitorNative?: CapacitorNativeShell };

export function installCapacitorNative(
  options: CapacitorNativeOptions = {},
): CapacitorNativeShell | undefined {
  const win = globalThis as unknown as Installed;
  if (win.__partnerSimCapacitorNative) return win.__partnerSimCapacitorNative;
  // Inside a real shell (an emulator's WebView), the real bridge is already there: it wins.
  if (win.androidBridge || win.webkit?.messageHandlers?.bridge) return undefined;
  if ((win.Capacitor as { registerPlugin?: unknown } | undefined)?.registerPlugin) {
    throw new Error(
      'partner-sim Capacitor double: @capacitor/core was loaded first; load the double before it (see docs/virtual-devices.md)',
    );
  }
  const platform = options.platform ?? 'ios';
  const serverUrl = options.serverUrl ?? win.location?.origin ?? 'http://localhost';
  // The shell's first injection (Android JSExport, iOS exportCapacitorGlobalJS).
  win.Capacitor = { DEBUG: false, isLoggingEnabled: false, Plugins: {} };
  win.WEBVIEW_SERVER_URL = serverUrl;
  const cap = win.Capacitor as CapacitorGlobal;

  const send = (r: BridgeResult) => {
    const bridge = win.androidBridge;
    if (platform === 'android' && bridge?.onmessage) bridge.onmessage({ data: JSON.stringify(r) });
    else cap.fromNative(r);
  };
  const side = new NativeSide(platform, send);
  const receive = (call: BridgeCall) => side.receive(call);
  if (platform === 'android') {
    win.androidBridge = { postMessage: (json) => receive(JSON.parse(json) as BridgeCall), onmessage: null };
  } else {
    const bridge = { postMessage: (m: BridgeCall) => receive(JSON.parse(JSON.stringify(m)) as BridgeCall) };
    win.webkit = { ...win.webkit, messageHandlers: { ...win.webkit?.messageHandlers, bridge } };
  }
  installBridgeRuntime(win, platform, serverUrl);

  const addPlugin = (pluginId: string, plugin: NativePlugin) => {
    side.register(pluginId, plugin);
    cap.PluginHeaders = side.headers();
    cap.Plugins[pluginId] = legacyPluginObject(cap, pluginId, Object.keys(plugin.methods));
  };
  const fetcher = options.fetch ?? ((...a: Parameters<typeof fetch>) => globalThis.fetch(...a));
  for (const [id, plugin] of Object.entries(corePlugins(win, fetcher))) addPlugin(id, plugin);
  const { plugin, sdk } = plaudSdkPlugin({ ...options, platform }, (e, d) => side.notify('PlaudSdk', e, d));
  addPlugin('PlaudSdk', plugin);
  for (const [id, methods] of Object.entries(options.plugins ?? {})) addPlugin(id, { methods });

  const shell: CapacitorNativeShell = {
    platform,
    plaudSdk: sdk,
    addPlugin: (id, methods) => addPlugin(id, { methods }),
    notifyListeners: (id, eventName, data = {}) => side.notify(id, eventName, data),
  };
  win.__partnerSimCapacitorNative = shell;
  return shell;
}

/** The `Capacitor.Plugins[id]` object a shell injects for apps that predate registerPlugin. */
function legacyPluginObject(
  cap: CapacitorGlobal,
  pluginId: string,
  methods: string[],
): Record<string, unknown> {
  const o: Record<string, unknown> = {
    addListener: (eventName: string, callback: (data: unknown) => void) =>
      cap.addListener?.(pluginId, eventName, callback),
    removeAllListeners: () => cap.nativePromise(pluginId, 'removeAllListeners'),
  };
  for (const m of methods) o[m] = (options?: unknown) => cap.nativePromise(pluginId, m, options);
  return o;
}
