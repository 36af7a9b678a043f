import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  type AddressCheck,
  AddressRefused,
  addressClass,
  checkHost,
  guardedLookup,
  isLinkLocalAddress,
  isLoopbackAddress,
} from '../core/addressGuard.js';

/**
 * `--proxy-passthrough`: what the proxy does with a host it does not serve when asked to let
 * it through, as an emulator on a global proxy needs for every other app's traffic. A tunnel
 * (`CONNECT`) is piped to the real host byte for byte, never decrypted; a plain request is
 * forwarded and its answer passed back. Off by default (the proxy refuses such hosts, and
 * nothing leaves the machine); each host let through is logged once, so the log says what
 * left it.
 *
 * Through the address guard (core/addressGuard.ts): the name is resolved once, each address
 * checked and the connection made to the checked one. Never let through: link-local addresses
 * (cloud metadata: a proxy on a cloud VM would hand out its credentials) and this machine's
 * loopback on any port but the simulator's own (a database, another service on 127.0.0.1),
 * for any client, whatever name leads there.
 */
export interface PassThrough {
  /** Pipe a CONNECT tunnel to `host:port`; `fail` answers the client when it cannot be opened. */
  tunnel(socket: Duplex, head: Buffer, to: { host: string; port: number }, fail: Fail): void;
  /** Forward an absolute-URL proxy request; `fail` answers when the host cannot be reached. */
  forward(req: IncomingMessage, res: ServerResponse, url: URL, fail: Fail): void;
}

/** 502: the host could not be reached; 403: the address guard refused where it leads. */
type Fail = (status: 403 | 502, why: string) => void;

export interface PassThroughLog {
  /** The first connection let through to `host` (info: what left the machine). */
  passed(host: string): void;
  /** The first refusal of `host` by the address guard (warn: someone aimed at it). */
  refused(host: string, why: string): void;
}

/** The pass-through's rule for a connection to `port`; `own` is the simulator's port. */
function passCheck(port: number, own: number): AddressCheck {
  return (address) => {
    if (isLinkLocalAddress(address)) return `${addressClass(address)}, never let through`;
    if (isLoopbackAddress(address) && port !== own)
      return `${addressClass(address)} on port ${port}, never let through (only the simulator's own port ${own} is)`;
    return undefined;
  };
}

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

/** Hosts already logged, per kind; bounded, so a client walking many names cannot grow it forever. */
const MAX_LOGGED = 1000;

function once(log: (host: string, why: string) => void): (host: string, why: string) => void {
  const logged = new Set<string>();
  return (host, why) => {
    if (logged.has(host)) return;
    if (logged.size >= MAX_LOGGED) logged.clear();
    logged.add(host);
    log(host, why);
  };
}

const portOf = (url: URL): number => Number(url.port) || (url.protocol === 'https:' ? 443 : 80);

export function passThrough(log: PassThroughLog, ownPort: () => number): PassThrough {
  const passed = once((host) => log.passed(host));
  const refused = once(log.refused);
  /** The address guard's refusal, answered 403; any other failure 502. */
  const failWith = (fail: Fail, host: string, e: Error) => {
    if (!(e instanceof AddressRefused)) return fail(502, `could not be reached: ${e.message}`);
    refused(host, e.message);
    fail(403, `refused: ${e.message}`);
  };
  /** The refusal of an address literal (Node connects to one without a lookup), made here. */
  const literal = (host: string, check: AddressCheck): AddressRefused | undefined => {
    const why = checkHost(host, check);
    return why === undefined ? undefined : new AddressRefused(why);
  };
  return {
    tunnel(socket, head, to, fail) {
      const check = passCheck(to.port, ownPort());
      const refusal = literal(to.host, check);
      if (refusal) return failWith(fail, to.host, refusal);
      const upstream = connect({ host: to.host, port: to.port, lookup: guardedLookup(check) });
      let open = false;
      upstream.once('connect', () => {
        passed(to.host, '');
        open = true;
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', (e) => {
        if (open) socket.destroy();
        else failWith(fail, to.host, e);
      });
      upstream.once('close', () => {
        if (open) socket.destroy();
      });
      socket.once('close', () => upstream.destroy());
    },

    forward(req, res, url, fail) {
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
      const check = passCheck(portOf(url), ownPort());
      const refusal = literal(host, check);
      if (refusal) {
        req.resume();
        return failWith(fail, host, refusal);
      }
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const upstream = send(
        {
          host,
          port: url.port || undefined,
          method: req.method,
          path: `${url.pathname}${url.search}`,
          headers: { ...endToEnd(req.headers), host: url.host },
          lookup: guardedLookup(check),
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
          answer.pipe(res);
        },
      );
      upstream.once('socket', (s) => s.once('connect', () => passed(host, '')));
      upstream.on('error', (e) => {
        if (res.headersSent) res.destroy();
        else failWith(fail, host, e);
      });
      res.once('close', () => upstream.destroy());
      req.pipe(upstream);
    },
  };
}
