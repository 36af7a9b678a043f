import { errorCodeOf } from '../client/http.js';
import { deviceTypeOf } from '../client/recovery.js';
import type { CloudOutcome, DeviceLink } from './link.js';

/**
 * The double's radio and cloud over HTTP: the SDK's cloud calls go to the partner API as the
 * SDK makes them, the radio is the simulator's device protocol. fetch only, so it runs in
 * Node and in a browser.
 */
export interface HttpLinkOptions {
  simulatorUrl: string;
  fetch?: typeof fetch | undefined;
}

export function httpLink(o: HttpLinkOptions): DeviceLink {
  const f: typeof fetch = o.fetch ?? ((...a) => globalThis.fetch(...a));
  const cloud = async (url: string, token: string, body: unknown): Promise<CloudOutcome> => {
    const r = await f(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await r.text();
    if (r.ok) return { ok: true };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const code = errorCodeOf(parsed);
    return code ? { ok: false, status: r.status, code } : { ok: false, status: r.status };
  };
  const notYet = (): never => {
    throw new Error('device protocol not wired yet');
  };
  return {
    genKey: (api, token) => cloud(`${api}/open/partner/sdk/gen-key`, token, {}),
    snSign: (api, token, sn) =>
      cloud(`${api}/open/partner/sdk/sn-sign`, token, { type: deviceTypeOf(sn), sn }),
    scan: async () => notYet(),
    handshake: async () => notYet(),
    disconnect: async () => notYet(),
    depair: async () => notYet(),
    recordings: async () => notYet(),
    exportAudio: async () => notYet(),
    events: async () => notYet(),
  };
}
