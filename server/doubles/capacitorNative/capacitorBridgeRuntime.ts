import { installLegacyHandlers, type LegacyWindow } from './capacitorLegacyHandlers.js';
import type {
  BridgeCall,
  BridgeResult,
  CapacitorGlobal,
  NativePlatform,
  NativeWindow,
} from './capacitorWindow.js';

/**
 * What a phone's native shell defines on `window.Capacitor` before the app's code runs
 * (the job of `native-bridge.js` in @capacitor/android and @capacitor/ios), written from
 * reading it: calls leave through the platform's one message channel as
 * `{callbackId, pluginId, methodName, options}`, answers come back as
 * `{callbackId, pluginId, methodName, success, data | error, save}` and settle the stored
 * promise or callback. @capacitor/core then finds a native platform and uses these.
 * Not included, as on a phone with the default config: the CapacitorHttp / CapacitorCookies
 * patches of fetch and document.cookie (off unless the app's config turns them on).
 */

/** Capacitor's own serialisation of a call leaving for native (Android posts a string). */
function postToNative(win: NativeWindow, platform: NativePlatform): (call: BridgeCall) => void {
  if (platform === 'android') return (call) => win.androidBridge?.postMessage(JSON.stringify(call));
  return (call) => win.webkit?.messageHandlers.bridge.postMessage({ ...call, type: call.type ?? 'message' });
}

/** `/path` and `file://` become the WebView server's `_capacitor_file_` URLs, as on a phone. */
function convertFileSrc(serverUrl: string, filePath: string): string {
  if (typeof filePath !== 'string') return filePath;
  if (filePath.startsWith('/')) return `${serverUrl}/_capacitor_file_${filePath}`;
  if (filePath.startsWith('file://')) return serverUrl + filePath.replace('file://', '/_capacitor_file_');
  if (filePath.startsWith('content://'))
    return serverUrl + filePath.replace('content:/', '/_capacitor_content_');
  return filePath;
}

/** The shell's exception class until @capacitor/core installs its own (same fields). */
class CapacitorException extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

type Stored =
  | { callback: (data: unknown, error?: unknown) => void }
  | { resolve: (data: unknown) => void; reject: (error: unknown) => void };

export function installBridgeRuntime(win: NativeWindow, platform: NativePlatform, serverUrl: string): void {
  const cap = win.Capacitor as CapacitorGlobal;
  const post = postToNative(win, platform);
  const calls = new Map<string, Stored>();
  // Random start, as native-bridge.js: a reload never reuses a live callback id.
  let nextId = Math.floor(Math.random() * 134217728);
  const warn = (m: unknown) => win.console?.warn(m);

  cap.getServerUrl = () => serverUrl;
  cap.convertFileSrc = (filePath: string) => convertFileSrc(serverUrl, filePath);
  cap.getPlatform = () => platform;
  cap.isNativePlatform = () => true;
  cap.isPluginAvailable = (name: string) => Object.hasOwn(cap.Plugins ?? {}, name);
  cap.handleError = (err: unknown) => win.console?.error(err);
  cap.logJs = (msg: unknown, level?: string) => {
    const log = win.console;
    if (level === 'error' || level === 'warn' || level === 'info') log?.[level](msg);
    else log?.log(msg);
  };

  cap.toNative = (pluginId: string, methodName: string, options: unknown, stored?: Stored) => {
    let callbackId = '-1';
    if (stored) {
      callbackId = String(++nextId);
      calls.set(callbackId, stored);
    }
    try {
      post({ callbackId, pluginId, methodName, options: (options ?? {}) as Record<string, unknown> });
    } catch (e) {
      win.console?.error(e);
      return null;
    }
    return callbackId;
  };

  const settle = (result: BridgeResult) => {
    const stored = calls.get(result.callbackId);
    if (stored) {
      // The error becomes Capacitor's exception (the class @capacitor/core installed).
      const error = result.error ? Object.assign(new cap.Exception(''), result.error) : undefined;
      if ('callback' in stored) {
        if (result.success) stored.callback(result.data);
        else stored.callback(null, error);
      } else {
        if (result.success) stored.resolve(result.data);
        else stored.reject(error);
        calls.delete(result.callbackId);
      }
    } else if (!result.success && result.error) warn(result.error);
    if (result.save === false) calls.delete(result.callbackId);
  };
  cap.fromNative = (result: BridgeResult) => {
    try {
      settle(result);
    } catch (e) {
      win.console?.error(e);
    }
  };
  if (win.androidBridge) win.androidBridge.onmessage = (event) => cap.fromNative(JSON.parse(event.data));

  cap.nativeCallback = (pluginId, methodName, options, callback) =>
    cap.toNative(pluginId, methodName, options, { callback: callback ?? (() => undefined) });
  cap.nativePromise = (pluginId, methodName, options) =>
    new Promise((resolve, reject) => {
      cap.toNative(pluginId, methodName, options, { resolve, reject });
    });

  // The legacy per-plugin listener API the shell's plugin objects use.
  cap.addListener = (pluginId: string, eventName: string, callback: (data: unknown) => void) => {
    const callbackId = cap.nativeCallback(pluginId, 'addListener', { eventName }, callback);
    return {
      remove: async () => cap.removeListener?.(pluginId, callbackId, eventName, callback),
    };
  };
  cap.removeListener = (
    pluginId: string,
    callbackId: string | null,
    eventName: string,
    callback: unknown,
  ) => {
    cap.nativeCallback(pluginId, 'removeListener', { callbackId, eventName }, callback as never);
  };
  cap.withPlugin = () => ({});
  cap.Exception = CapacitorException;
  installLegacyHandlers(win as LegacyWindow, cap);
}
