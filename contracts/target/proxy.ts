import { request } from 'node:http';
import { connect } from 'node:tls';
import type { ControlClient } from '../../server/embed/controlClient.js';
import { ControlError } from '../../server/embed/controlClient.js';
import type { Connect } from './types.js';

/**
 * Connections that are `CONNECT` tunnels through an HTTP proxy, TLS inside them checked against
 * `ca` alone. The scenarios send through pactum (node:https, whose agents do not speak to
 * proxies on Node 20), which takes this as the request's `createConnection`.
 */
function tunnel(proxy: { host: string; port: number }, ca: string): Connect {
  return (options, done) => {
    const o = options as Record<string, unknown>;
    const host = String(o.hostname ?? o.host);
    const authority = `${host.includes(':') ? `[${host}]` : host}:${o.port ?? 443}`;
    const req = request({ ...proxy, method: 'CONNECT', path: authority, headers: { host: authority } });
    req.once('connect', (res, socket, head) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        done(
          new Error(`the simulator's proxy answered CONNECT ${authority} with HTTP ${res.statusCode}`),
          undefined as never,
        );
        return;
      }
      if (head.length > 0) socket.unshift(head);
      done(null, connect({ socket, ca, servername: host, ALPNProtocols: ['http/1.1'] }));
    });
    // Node's own callback takes no stream with an error; the type insists on one.
    req.once('error', (e) => done(e, undefined as never));
    req.end();
    return undefined;
  };
}

/**
 * How this run reaches the hosts a simulator intercepts (`--https`: the live hosts, the
 * `--storage-host` of presigned URLs): asked of the instance itself (`GET /__admin/proxy`),
 * then every request to one of them goes through the simulator's own proxy (the port of
 * `root`), trusting the CA the instance names, as an app behind HTTPS_PROXY does. Nothing for
 * the user to set, and no name is ever resolved. Returns how a URL's connection is made, or undefined
 * where the URL is reached directly.
 */
export async function interceptedRoute(
  control: ControlClient,
  root: string,
): Promise<(url: string) => Connect | undefined> {
  const direct = () => undefined;
  let info: Awaited<ReturnType<ControlClient['proxy']>>;
  try {
    info = await control.proxy();
  } catch (e) {
    // An instance older than the operation: it intercepts nothing the suite relies on.
    if (e instanceof ControlError && e.status === 404) return direct;
    throw e;
  }
  if (!info.https || !info.ca_certificate || info.intercepted_hosts.length === 0) return direct;
  const at = new URL(root);
  const hosts = new Set(info.intercepted_hosts.map((h) => h.toLowerCase()));
  hosts.delete(at.hostname.toLowerCase());
  const through = tunnel(
    {
      host: at.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(at.port) || (at.protocol === 'https:' ? 443 : 80),
    },
    info.ca_certificate,
  );
  return (url) => {
    const u = new URL(url);
    return u.protocol === 'https:' && hosts.has(u.hostname.toLowerCase()) ? through : undefined;
  };
}
