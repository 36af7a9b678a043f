import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createSecureContext, createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { regionsWith } from '../core/regions.js';
import type { Region } from '../domain/apps.js';
import { connectionGate } from '../http/connectionGuard.js';
import { isCaPath } from '../tls/caFiles.js';
import type { KeyPair } from '../tls/certificates.js';
import { hostName, InterceptTable, type Route } from './interceptTable.js';
import type { PassThrough } from './passThrough.js';

/**
 * One port, three ways in: plain HTTP (as without --https), TLS (told apart by the first
 * byte, a handshake record is 0x16), and an HTTP proxy: `CONNECT host:port` to a host the
 * simulator serves is answered 200 and the tunnel is served like a new connection (TLS with
 * the local CA's leaf, or plain); an absolute-URL request (`GET http://host/…`) likewise.
 * Every other host is refused with 403 before anything about it is looked up: the simulator
 * never opens a connection of its own, so nothing leaves the machine (unless
 * --proxy-passthrough asks for other hosts to be let through, passThrough.ts).
 *
 * Decrypted connections go to the HTTP server's own connection handling, so timeouts,
 * keep-alive, `closeAllConnections` and the app are the same as for plain HTTP.
 */
export interface SecureListenerOptions {
  table: InterceptTable;
  leaf: KeyPair;
  /** `--https-only`: a direct plain-HTTP request is answered 400 (proxy requests still work). */
  httpsOnly: boolean;
  /** `--proxy-passthrough`: hosts not served are let through to the real host instead of refused. */
  passThrough?: PassThrough | undefined;
  /** Where handshake failures and refusals are told (debug level: clients cause them). */
  log: (msg: string, detail: Record<string, unknown>) => void;
}

/** Sockets of CONNECT tunnels: plain HTTP inside one is routed by its Host, as TLS is. */
const tunnels = new WeakSet<object>();

/** A JSON error in the spec's `{detail, message}` form, the connection closed after it. */
function rawAnswer(socket: Duplex, status: number, reason: string, detail: string, message: string): void {
  const body = JSON.stringify({ detail, message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Why a host is refused and what would serve it. The hints name the host alone: --tls-hosts
 * takes names, and many clients ignore a port in NO_PROXY.
 */
const refusal = (shown: string, name: string): string =>
  `partner-sim does not serve ${shown} and forwards nothing off this machine: the proxy serves only the live API hosts, the storage host and the simulator's own names. To serve ${name} as the simulator, start it with --tls-hosts ${name}; to reach the real ${name}, leave it out of the proxy (NO_PROXY=${name}) or start the simulator with --proxy-passthrough, which lets every host it does not serve through unchanged.`;

/**
 * A live host of a region not enabled: on live its name does not resolve, so the proxy fails
 * it as a pass-through fails a name that does not resolve (502), having looked nothing up.
 */
const unresolved = (shown: string, name: string, region: Region, enabled: readonly Region[]): string =>
  `${shown} could not be reached: getaddrinfo ENOTFOUND ${name}. Live lists the ${region.toUpperCase()} region as Coming soon and its host does not resolve; start the simulator with --regions ${regionsWith(enabled, region)} to serve it.`;

/** The error code of a pass-through that could not be made (see passThrough.ts). */
const passFailure = { 403: 'PROXY_ADDRESS_REFUSED', 502: 'PROXY_UPSTREAM_FAILED' } as const;

function answer(res: ServerResponse, status: number, detail: string, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' });
  res.end(JSON.stringify({ detail, message }));
}

/** The request handler in front of the app: proxy requests and hosts served as the live ones. */
export function routeRequests(app: RequestListener, opts: SecureListenerOptions): RequestListener {
  const { table } = opts;
  return (req: IncomingMessage, res: ServerResponse) => {
    const target = req.url ?? '/';
    if (target.startsWith('/')) {
      if ((req.socket as TLSSocket).encrypted || tunnels.has(req.socket)) {
        const host = req.headers.host ?? (req.socket as TLSSocket).servername;
        const route: Route = host ? table.hostRoute(hostName(host)) : { kind: 'self' };
        req.url = InterceptTable.path(route, target);
      } else if (opts.httpsOnly && !isCaPath(target)) {
        // The CA page stays plain: a device fetches it before it trusts the CA.
        return answer(
          res,
          400,
          'HTTPS_REQUIRED',
          `this port answers HTTPS and proxy requests only (--https-only): use https://${req.headers.host ?? 'localhost'}${target}`,
        );
      }
      return app(req, res);
    }
    // An absolute URL: a request sent to a proxy (HTTP_PROXY) for a plain-http address.
    let url: URL;
    try {
      url = new URL(target);
      if (!/^https?:$/.test(url.protocol)) throw new Error('not http');
    } catch {
      return answer(
        res,
        400,
        'BAD_REQUEST',
        `not a request target a proxy can serve: ${target.slice(0, 200)}`,
      );
    }
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const closed = table.unresolved(url.hostname);
    if (closed) {
      opts.log('proxy refused a request', { host: url.host });
      return answer(
        res,
        502,
        'PROXY_UPSTREAM_FAILED',
        unresolved(url.host, hostName(url.host), closed, table.regions),
      );
    }
    const route = table.proxyRoute(url.hostname, port);
    if (!route && opts.passThrough) {
      return opts.passThrough.forward(req, res, url, (status, why) =>
        answer(res, status, passFailure[status], `--proxy-passthrough: ${url.host} ${why}`),
      );
    }
    if (!route) {
      opts.log('proxy refused a request', { host: url.host });
      return answer(res, 403, 'PROXY_HOST_REFUSED', refusal(url.host, hostName(url.host)));
    }
    req.url = InterceptTable.path(route, `${url.pathname}${url.search}`);
    return app(req, res);
  };
}

/** `host:port` of a CONNECT, IPv6 in brackets; undefined when malformed. */
function connectTarget(raw: string): { host: string; port: number } | undefined {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/.exec(raw);
  const port = Number(m?.[2]);
  return m && port > 0 && port < 65536 ? { host: hostName(m[1]!), port } : undefined;
}

/** Turn `server` (not yet listening, built on `routeRequests`) into the TLS/proxy listener. */
export function acceptTlsAndProxy(server: Server, opts: SecureListenerOptions): void {
  const { table } = opts;
  // The cap counts sockets from their acceptance: one in its handshake, or silent, is idle.
  const gate = connectionGate(server);
  const firstByteMs = gate?.firstByteMs ?? (server.headersTimeout || 60_000);
  /** Accepted sockets handed to TLS, by peer: what a decrypted connection is carried by. */
  const inHandshake = new Map<string, Socket>();
  const peer = (s: Socket) => `${s.remoteAddress}|${s.remotePort}`;
  const plain = server.listeners('connection') as ((socket: Duplex) => void)[];
  server.removeAllListeners('connection');
  const serveHttp = (socket: Duplex) => {
    for (const l of plain) l.call(server, socket);
  };
  const context = createSecureContext({ key: opts.leaf.keyPem, cert: opts.leaf.certPem });
  const tls = createTlsServer({
    key: opts.leaf.keyPem,
    cert: opts.leaf.certPem,
    ALPNProtocols: ['http/1.1'],
    // A name the certificate does not cover fails the handshake here, with an alert, rather
    // than later in the client with a hostname mismatch nobody can trace.
    SNICallback: (name, cb) =>
      table.covers(name) ? cb(null, context) : cb(new Error(`no certificate for ${name}`)),
    handshakeTimeout: firstByteMs,
  });
  tls.on('secureConnection', (secure: TLSSocket) => {
    const carrier = inHandshake.get(peer(secure));
    if (carrier) gate?.servedAs(secure, carrier);
    serveHttp(secure);
  });
  tls.on('tlsClientError', (err, socket) => {
    opts.log('TLS handshake failed', { err: err.message });
    socket.destroy();
  });

  // Sockets in a handshake, or carrying a tunnel, are not the HTTP server's connections:
  // closing all connections at shutdown must end them too.
  const open = new Set<Duplex>();
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeAll();
    for (const s of open) s.destroy();
  };

  /** Tell TLS from plain HTTP by the first byte, then hand the socket on, that byte unread. */
  const sniff = (socket: Duplex) => {
    gate?.accepted(socket as Socket);
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    // A connection that never says anything is closed as the HTTP server closes one that
    // never completes its headers.
    const silent = setTimeout(() => socket.destroy(), firstByteMs);
    silent.unref();
    socket.once('close', () => clearTimeout(silent));
    socket.once('data', (chunk: Buffer) => {
      clearTimeout(silent);
      socket.pause();
      socket.unshift(chunk);
      // TLS reads what is buffered itself; the HTTP server needs the stream flowing again.
      if (chunk[0] === 0x16) {
        const key = peer(socket as Socket);
        inHandshake.set(key, socket as Socket);
        socket.once('close', () => inHandshake.delete(key));
        tls.emit('connection', socket);
      } else {
        serveHttp(socket);
        socket.resume();
      }
    });
  };
  server.on('connection', sniff);

  server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const to = connectTarget(req.url ?? '');
    if (!to) {
      rawAnswer(
        socket,
        400,
        'Bad Request',
        'BAD_REQUEST',
        `CONNECT needs host:port, got ${JSON.stringify((req.url ?? '').slice(0, 200))}`,
      );
      return;
    }
    const shown = to.host.includes(':') ? `[${to.host}]:${to.port}` : `${to.host}:${to.port}`;
    const closed = table.unresolved(to.host);
    if (closed) {
      opts.log('proxy refused a tunnel', { host: shown });
      rawAnswer(
        socket,
        502,
        'Bad Gateway',
        'PROXY_UPSTREAM_FAILED',
        unresolved(shown, to.host, closed, table.regions),
      );
      return;
    }
    if (!table.proxyRoute(to.host, to.port) && opts.passThrough) {
      opts.passThrough.tunnel(socket, head, to, (status, why) =>
        rawAnswer(
          socket,
          status,
          status === 403 ? 'Forbidden' : 'Bad Gateway',
          passFailure[status],
          `--proxy-passthrough: ${shown} ${why}`,
        ),
      );
      return;
    }
    if (!table.proxyRoute(to.host, to.port)) {
      opts.log('proxy refused a tunnel', { host: shown });
      rawAnswer(socket, 403, 'Forbidden', 'PROXY_HOST_REFUSED', refusal(shown, to.host));
      return;
    }
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) socket.unshift(head);
    tunnels.add(socket);
    sniff(socket);
  });
}
