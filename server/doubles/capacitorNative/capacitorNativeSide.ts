import type {
  BridgeCall,
  BridgeError,
  BridgeResult,
  NativePlatform,
  PluginHeader,
} from './capacitorWindow.js';

/**
 * The native half of a Capacitor shell: the installed plugins, each call dispatched to its
 * method and answered as the shell answers (Android `Bridge`/`MessageHandler`, iOS
 * `CapacitorBridge`), and listeners as calls kept open that every event resolves again.
 */

/** A plugin method: `options` in, the resolved data out (undefined: resolved with none); a throw rejects. */
export type NativeMethod = (options: Record<string, unknown>) => unknown;

/**
 * A native plugin as the double installs it: its methods by name, and `listen(eventName)`,
 * called once per event name the page first listens to (the plugin then calls `notify`).
 */
export interface NativePlugin {
  methods: Record<string, NativeMethod>;
  listen?(eventName: string): void;
}

/** Every shell plugin inherits these (Capacitor's `Plugin` / `CAPPlugin` base class). */
const BASE_METHODS: PluginHeader['methods'] = [
  { name: 'addListener' },
  { name: 'removeListener' },
  { name: 'removeAllListeners', rtype: 'promise' },
  { name: 'checkPermissions', rtype: 'promise' },
  { name: 'requestPermissions', rtype: 'promise' },
];

export class NativeSide {
  private readonly plugins = new Map<string, NativePlugin>();
  /** pluginId → event name → the kept addListener calls. */
  private readonly listeners = new Map<string, Map<string, Set<string>>>();
  private readonly listening = new Map<string, Set<string>>();

  constructor(
    private readonly platform: NativePlatform,
    private readonly send: (result: BridgeResult) => void,
  ) {}

  register(pluginId: string, plugin: NativePlugin): void {
    this.plugins.set(pluginId, plugin);
  }

  /** The `Capacitor.PluginHeaders` the shell injects: base methods, then the plugin's (promise). */
  headers(): PluginHeader[] {
    return [...this.plugins].map(([name, p]) => ({
      name,
      methods: [
        ...BASE_METHODS,
        ...Object.keys(p.methods)
          .filter((m) => !BASE_METHODS.some((b) => b.name === m))
          .map((m) => ({ name: m, rtype: 'promise' as const })),
      ],
    }));
  }

  /** One message from the page. Native answers on its own thread: never within the call. */
  receive(call: BridgeCall): void {
    if (call.type && call.type !== 'message') return; // js.error, cordova: logged natively only
    queueMicrotask(() => void this.dispatch(call));
  }

  private async dispatch(call: BridgeCall): Promise<void> {
    const plugin = this.plugins.get(call.pluginId);
    if (!plugin) {
      // Android answers an unknown plugin id; iOS only logs it, and the call never settles.
      if (this.platform === 'android')
        this.reject(call, { message: `unable to find plugin : ${call.pluginId}` });
      return;
    }
    const options = call.options ?? {};
    if (call.methodName === 'addListener') return this.addListener(call, plugin);
    if (call.methodName === 'removeListener') {
      const { eventName, callbackId } = options as { eventName?: string; callbackId?: string };
      this.listeners.get(call.pluginId)?.get(String(eventName))?.delete(String(callbackId));
      return;
    }
    if (call.methodName === 'removeAllListeners') {
      this.listeners.delete(call.pluginId);
      if (!plugin.methods.removeAllListeners) return this.resolve(call, undefined);
    }
    const method =
      plugin.methods[call.methodName] ??
      (BASE_METHODS.some((b) => b.name === call.methodName) ? () => undefined : undefined);
    // A method the plugin lacks: both shells log it and never answer.
    if (!method) return;
    try {
      this.resolve(call, await method(options));
    } catch (e) {
      this.reject(call, errorOf(e));
    }
  }

  private addListener(call: BridgeCall, plugin: NativePlugin): void {
    const eventName = String((call.options as { eventName?: unknown }).eventName);
    const byEvent = this.listeners.get(call.pluginId) ?? new Map<string, Set<string>>();
    this.listeners.set(call.pluginId, byEvent);
    const ids = byEvent.get(eventName) ?? new Set<string>();
    byEvent.set(eventName, ids);
    ids.add(call.callbackId);
    const heard = this.listening.get(call.pluginId) ?? new Set<string>();
    this.listening.set(call.pluginId, heard);
    if (!heard.has(eventName)) {
      heard.add(eventName);
      plugin.listen?.(eventName);
    }
  }

  /** A plugin's event: every kept listener call resolves again (`save: true`); none, dropped. */
  notify(pluginId: string, eventName: string, data: unknown): void {
    for (const callbackId of [...(this.listeners.get(pluginId)?.get(eventName) ?? [])]) {
      this.send({
        callbackId,
        pluginId,
        methodName: 'addListener',
        save: true,
        success: true,
        data: copy(data),
      });
    }
  }

  private resolve(call: BridgeCall, data: unknown): void {
    this.send({
      callbackId: call.callbackId,
      pluginId: call.pluginId,
      methodName: call.methodName,
      save: false,
      success: true,
      ...(data === undefined ? {} : { data: copy(data) }),
    });
  }

  private reject(call: BridgeCall, error: BridgeError): void {
    // iOS repeats the message as `errorMessage`; Android sends message (and code) only.
    const payload = this.platform === 'ios' ? { ...error, errorMessage: error.message } : error;
    this.send({
      callbackId: call.callbackId,
      pluginId: call.pluginId,
      methodName: call.methodName,
      save: false,
      success: false,
      error: payload,
    });
  }
}

function errorOf(e: unknown): BridgeError {
  const err = e as { message?: unknown; code?: unknown; data?: unknown };
  return {
    message: typeof err?.message === 'string' ? err.message : String(e),
    ...(typeof err?.code === 'string' ? { code: err.code } : {}),
    ...(err?.data !== undefined ? { data: err.data } : {}),
  };
}

/** What crosses the bridge is JSON: no shared objects, no undefined fields, no functions. */
const copy = (data: unknown): unknown => (data === undefined ? undefined : JSON.parse(JSON.stringify(data)));
