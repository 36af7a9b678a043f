import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { isLoopbackAddress } from '../core/addressGuard.js';

/**
 * `--proxy-passthrough`: what the proxy does with a host it does not serve when asked to let
 * it through, as an emulator on a global proxy needs for every other app's traffic. A tunnel
 * (`CONNECT`) is piped to the real host byte for byte, never decrypted; a plain request is
 * forwarded and its answer passed back. Off by default (the proxy refuses such hosts, and
 * nothing leaves the machine); each host is logged once, so the log says what left it.
 */
export interface PassThrough {
  /** Pipe a CONNECT tunnel to `host:port`; `fail` answers the client when it cannot be opened. */
  tunnel(socket: Duplex, head: Buffer, to: { host: string; port: number }, fail: Fail): void;
  /** Forward an absolute-URL proxy request; `fail` answers when the host cannot be reached. */
  forward(req: IncomingMessage, res: ServerResponse, url: URL, fail: Fail): void;
}

/** 502: the host could not be reached; 403: a client from elsewhere asked for this machine itself. */
type Fail = (status: 403 | 502, why: string) => void;

// The address guard's one notion of "this machine" (any 127/8, ::1, IPv4-mapped, unspecified).
const isLocal = (address: string | undefined): boolean => address !== undefined && isLoopbackAddress(address);

/**
 * A client on another machine (a phone on the LAN with --host 0.0.0.0) must not reach this
 * machine's own services (a database on 127.0.0.1) through the proxy. Judged on the address
 * actually connected to, so no name that resolves to loopback gets round it.
 */
class IntoLoopback extends Error {
  constructor() {
    super("is this machine's own address, and pass-through lets no client on another machine reach it");
  }
}

function guardLoopback(client: Duplex, upstream: Socket): boolean {
  if (isLocal((client as Socket).remoteAddress) || !isLocal(upstream.remoteAddress)) return false;
  upstream.destroy(new IntoLoopback());
  return true;
}

const failWith = (fail: Fail, e: Error) =>
  e instanceof IntoLoopback ? fail(403, e.message) : fail(502, `could not be reached: ${e.message}`);

/** Headers of one hop only (RFC 9110 §7.6.1), and the proxy's own: never passed on. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase()),
  );
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !HOP.has(k) && !named.has(k)));
}

/** Hosts already logged; bounded, so a client walking many names cannot grow it forever. */
const MAX_LOGGED = 1000;

export function passThrough(logFirst: (host: string) => void): PassThrough {
  const logged = new Set<string>();
  const note = (host: string) => {
    if (logged.has(host)) return;
    if (logged.size >= MAX_LOGGED) logged.clear();
    logged.add(host);
    logFirst(host);
  };
  return {
    tunnel(socket, head, to, fail) {
      note(to.host);
      const upstream = connect({ host: to.host, port: to.port });
      let open = false;
      upstream.once('connect', () => {
        if (guardLoopback(socket, upstream)) return;
        open = true;
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', (e) => {
        if (open) socket.destroy();
        else failWith(fail, e);
      });
      upstream.once('close', () => {
        if (open) socket.destroy();
      });
      socket.once('close', () => upstream.destroy());
    },

    forward(req, res, url, fail) {
      note(url.hostname.replace(/^\[(.*)\]$/, '$1'));
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const upstream = send(
        {
          host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: url.port || undefined,
          method: req.method,
          path: `${url.pathname}${url.search}`,
          headers: { ...endToEnd(req.headers), host: url.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
          answer.pipe(res);
        },
      );
      upstream.once('socket', (s) => s.once('connect', () => guardLoopback(req.socket, s)));
      upstream.on('error', (e) => {
        if (res.headersSent) res.destroy();
        else failWith(fail, e);
      });
      res.once('close', () => upstream.destroy());
      req.pipe(upstream);
    },
  };
}
