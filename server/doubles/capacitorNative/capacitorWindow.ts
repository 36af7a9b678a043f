/**
 * The few parts of a WebView's `window` that Capacitor's native bridge touches, typed here
 * because the package compiles without the DOM library. Shapes from @capacitor/core's
 * `definitions-internal.d.ts` and the shells' native-bridge.js.
 */

export type NativePlatform = 'android' | 'ios';

/** A call leaving for native. iOS adds `type: 'message'` (also `js.error`, `cordova`). */
export interface BridgeCall {
  callbackId: string;
  pluginId: string;
  methodName: string;
  options: Record<string, unknown>;
  type?: string;
}

/** Capacitor's error payload: Android `{message, code?, data?}`, iOS adds `errorMessage`. */
export interface BridgeError {
  message: string;
  errorMessage?: string;
  code?: string;
  data?: unknown;
}

/** An answer (or one event of a kept call) coming back from native. */
export interface BridgeResult {
  callbackId: string;
  pluginId: string;
  methodName: string;
  success: boolean;
  save?: boolean;
  data?: unknown;
  error?: BridgeError;
}

export interface PluginHeader {
  name: string;
  methods: Array<{ name: string; rtype?: 'promise' | 'callback' }>;
}

type Callback = (data: unknown, error?: unknown) => void;

export interface CapacitorGlobal {
  DEBUG?: boolean;
  isLoggingEnabled?: boolean;
  Plugins: Record<string, unknown>;
  PluginHeaders?: PluginHeader[];
  Exception: new (message: string, code?: string, data?: unknown) => Error;
  getServerUrl(): string;
  convertFileSrc(filePath: string): string;
  getPlatform(): string;
  isNativePlatform(): boolean;
  isPluginAvailable(name: string): boolean;
  handleError(err: unknown): void;
  logJs(msg: unknown, level?: string): void;
  toNative(pluginId: string, methodName: string, options: unknown, stored?: object): string | null;
  fromNative(result: BridgeResult): void;
  nativeCallback(pluginId: string, methodName: string, options?: unknown, callback?: Callback): string | null;
  nativePromise(pluginId: string, methodName: string, options?: unknown): Promise<unknown>;
  addListener?(
    pluginId: string,
    eventName: string,
    callback: (data: unknown) => void,
  ): { remove(): Promise<void> };
  removeListener?(pluginId: string, callbackId: string | null, eventName: string, callback: unknown): void;
  withPlugin?(pluginId: string, fn: unknown): unknown;
}

interface Console {
  log(...a: unknown[]): void;
  info(...a: unknown[]): void;
  warn(...a: unknown[]): void;
  error(...a: unknown[]): void;
}

interface AndroidBridge {
  postMessage(json: string): void;
  onmessage: ((event: { data: string }) => void) | null;
}

export interface NativeWindow {
  Capacitor?: Partial<CapacitorGlobal>;
  WEBVIEW_SERVER_URL?: string;
  androidBridge?: AndroidBridge;
  webkit?: { messageHandlers: { bridge: { postMessage(message: BridgeCall): void } } };
  CapacitorCustomPlatform?: unknown;
  console?: Console;
  location?: { origin: string };
  document?: { cookie: string };
}
