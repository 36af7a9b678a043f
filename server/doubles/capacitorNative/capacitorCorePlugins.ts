import type { NativeMethod, NativePlugin } from './capacitorNativeSide.js';
import type { NativeWindow } from './capacitorWindow.js';

/**
 * The plugins every Capacitor shell has built in (CapacitorCookies, CapacitorHttp, WebView,
 * SystemBars), so the `registerPlugin` calls @capacitor/core makes at start-up find them
 * native, as on a phone. In a desktop page they pass through to what the page has:
 * `document.cookie`, `fetch`; the WebView and system-bar calls have nothing to change.
 */

type Options = Record<string, unknown>;
const str = (o: Options, k: string): string => (typeof o[k] === 'string' ? (o[k] as string) : '');

function cookies(win: NativeWindow): NativePlugin {
  const doc = () => win.document ?? { cookie: '' };
  const read = () => {
    const map: Record<string, string> = {};
    for (const part of doc().cookie.split(';')) {
      const at = part.indexOf('=');
      if (at > 0)
        map[decodeURIComponent(part.slice(0, at).trim())] = decodeURIComponent(part.slice(at + 1).trim());
    }
    return map;
  };
  const expire = (key: string) => {
    doc().cookie = `${encodeURIComponent(key)}=; Max-Age=0; path=/`;
  };
  return {
    methods: {
      getCookies: () => read(),
      setCookie: (o) => {
        const expires = str(o, 'expires') ? `; expires=${str(o, 'expires').replace('expires=', '')}` : '';
        doc().cookie = `${encodeURIComponent(str(o, 'key'))}=${encodeURIComponent(str(o, 'value'))}${expires}; path=${str(o, 'path') || '/'}`;
      },
      deleteCookie: (o) => expire(str(o, 'key')),
      clearCookies: () => Object.keys(read()).forEach(expire),
      clearAllCookies: () => Object.keys(read()).forEach(expire),
    },
  };
}

/** CapacitorHttp's native request: `{url, method, headers, params, data}` → `{data, headers, status, url}`. */
function http(fetcher: typeof fetch): NativePlugin {
  const request = async (o: Options, method?: string) => {
    const url = new URL(str(o, 'url'));
    for (const [k, v] of Object.entries((o.params ?? {}) as Record<string, string | string[]>)) {
      for (const one of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(one));
    }
    const headers = (o.headers ?? {}) as Record<string, string>;
    const body = o.data === undefined || typeof o.data === 'string' ? o.data : JSON.stringify(o.data);
    const r = await fetcher(url.href, {
      method: method ?? (str(o, 'method') || 'GET'),
      headers,
      ...(body === undefined ? {} : { body: body as string }),
    });
    const type = r.headers.get('content-type') ?? '';
    const text = await r.text();
    let data: unknown = text;
    if (type.includes('application/json')) {
      try {
        data = JSON.parse(text);
      } catch {
        data = text;
      }
    }
    const out: Record<string, string> = {};
    r.headers.forEach((v, k) => {
      out[k] = v;
    });
    return { data, headers: out, status: r.status, url: r.url || url.href };
  };
  const methods: Record<string, NativeMethod> = { request: (o) => request(o) };
  for (const m of ['get', 'post', 'put', 'patch', 'delete']) methods[m] = (o) => request(o, m.toUpperCase());
  return { methods };
}

const nothingToDo = (...names: string[]): NativePlugin => ({
  methods: Object.fromEntries(names.map((n) => [n, () => undefined])),
});

export function corePlugins(win: NativeWindow, fetcher: typeof fetch): Record<string, NativePlugin> {
  return {
    CapacitorCookies: cookies(win),
    WebView: {
      methods: {
        ...nothingToDo('setServerAssetPath', 'setServerBasePath', 'persistServerBasePath').methods,
        getServerBasePath: () => ({ path: '' }),
      },
    },
    CapacitorHttp: http(fetcher),
    SystemBars: nothingToDo('setStyle', 'setAnimation', 'show', 'hide'),
  };
}
