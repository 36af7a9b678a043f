import type { CapacitorGlobal } from './capacitorWindow.js';

/**
 * The rest of what a shell's native-bridge.js sets up for older and Ionic code, so such an
 * app behaves as in the shell: `window.cordova` defined and `deviceready` handlers called at
 * once (Ionic's `platform.ready()` waits for that event whenever `cordova` exists),
 * `navigator.app.exitApp`, `Ionic.WebView`, and `Capacitor.createEvent` / `triggerEvent`.
 */

interface DomEvent {
  initEvent(name: string, bubbles: boolean, cancelable: boolean): void;
}
interface DomTarget {
  dispatchEvent(e: DomEvent): boolean;
}
interface LegacyDocument extends DomTarget {
  addEventListener(name: string, handler: unknown, ...rest: unknown[]): void;
  createEvent(kind: string): DomEvent;
  querySelector(selector: string): DomTarget | null;
}
export interface LegacyWindow {
  cordova?: { fireDocumentEvent?(name: string, data: object): void };
  navigator?: { app?: { exitApp?(): void } };
  Ionic?: { WebView?: Record<string, unknown> };
  document?: Partial<LegacyDocument>;
  dispatchEvent?(e: DomEvent): boolean;
  console?: { warn(...a: unknown[]): void };
}

type Cap = CapacitorGlobal & {
  createEvent?: (name: string, data?: object) => DomEvent | null;
  triggerEvent?: (name: string, target: string, data?: object) => boolean;
};

export function installLegacyHandlers(win: LegacyWindow, cap: Cap): void {
  const doc = win.document;
  cap.createEvent = (name, data) => {
    if (!doc?.createEvent) return null;
    const ev = doc.createEvent('Events');
    ev.initEvent(name, false, false);
    if (data && typeof data === 'object') Object.assign(ev, data);
    return ev;
  };
  cap.triggerEvent = (name, target, data = {}) => {
    const ev = cap.createEvent?.(name, data);
    if (!ev) return false;
    if (target === 'document') {
      if (win.cordova?.fireDocumentEvent) {
        win.cordova.fireDocumentEvent(name, data);
        return true;
      }
      return doc?.dispatchEvent?.(ev) ?? false;
    }
    if (target === 'window') return win.dispatchEvent?.(ev) ?? false;
    return doc?.querySelector?.(target)?.dispatchEvent(ev) ?? false;
  };

  win.cordova = win.cordova || {};
  if (win.navigator) {
    win.navigator.app = win.navigator.app || {};
    win.navigator.app.exitApp = () => {
      if (cap.Plugins.App) cap.nativeCallback('App', 'exitApp', {});
      else win.console?.warn('App plugin not installed');
    };
  }
  const add = doc?.addEventListener;
  if (doc && add) {
    doc.addEventListener = (name: string, handler: unknown, ...rest: unknown[]) => {
      // The shell is ready before the page: a deviceready handler runs as soon as it is added.
      if (name === 'deviceready' && typeof handler === 'function')
        void Promise.resolve().then(() => handler());
      return add.call(doc, name, handler, ...rest);
    };
  }

  const webView = (method: string, options?: object) =>
    cap.Plugins.WebView ? cap.nativePromise('WebView', method, options) : Promise.resolve(undefined);
  win.Ionic = win.Ionic || {};
  const Ionic = win.Ionic;
  Ionic.WebView = {
    ...Ionic.WebView,
    getServerBasePath: (callback: (path: string) => void) =>
      void webView('getServerBasePath').then((r) => callback((r as { path: string }).path)),
    setServerAssetPath: (path: string) => void webView('setServerAssetPath', { path }),
    setServerBasePath: (path: string) => void webView('setServerBasePath', { path }),
    persistServerBasePath: () => void webView('persistServerBasePath'),
    convertFileSrc: (url: string) => cap.convertFileSrc(url),
  };
}
