import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { STORAGE_PREFIX } from './apiPrefixes.js';
import { s3ErrorXml } from './errorHandler.js';

export interface ConnectionLimits {
  /** Open connections at most; past it idle ones make room, else a new one is refused (503). */
  maxConnections: number;
  /** Time a connection has to send a request's headers, ms. */
  headersTimeoutMs: number;
  /** Longest pause while a request body arrives, ms: then the connection is cut. */
  bodyTimeoutMs: number;
}

/** Refused connections answered with a 503 at once, beyond the cap; past these Node drops them. */
const REFUSED_SLOTS = 256;
/** A refused connection that sends no request is closed after this. */
const REFUSED_GRACE_MS = 2000;
/** Whole-request limit on top of the body timeout: a body trickling a byte at a time ends too. */
const REQUEST_TIMEOUT_MS = 300_000;

/**
 * What a listener that accepts sockets itself (server/net, `--https`) tells the guard, so the
 * cap counts every accepted socket, not only those that reached HTTP: a flood of sockets that
 * never finish a TLS handshake or never send a byte is idle, and churns like any other.
 */
export interface ConnectionGate {
  /** A socket just accepted, nothing known yet of what it speaks: counted, idle. */
  accepted(socket: Socket): void;
  /** From now on `socket`'s connection is served as `inner` (decrypted TLS). */
  servedAs(inner: Socket, socket: Socket): void;
  /** How long a socket may stay silent, or in a TLS handshake, before it is closed. */
  firstByteMs: number;
}

/**
 * Kept on the server under a registry symbol, not in a module's map: the built CLI is one
 * bundle, while `--https` loads server/net from its own files with their own copy of this
 * module, and both must find the same gate.
 */
const GATE = Symbol.for('partner-sim.connectionGate');

/** The guard of a server made by `guardedServer`; undefined for another server. */
export const connectionGate = (server: Server): ConnectionGate | undefined =>
  (server as Server & { [GATE]?: ConnectionGate })[GATE];

/** A silent connection is closed after this at most (sooner with a shorter --headers-timeout). */
const FIRST_BYTE_MS = 10_000;

/**
 * An HTTP server for `app` that a flood cannot take down (issue 20): at most
 * `maxConnections` connections; when full, the oldest connection with no request in progress
 * (an idle keep-alive one, one that never sent a request, or one still in its TLS handshake)
 * is closed to make room, and only when every one is busy is a new connection refused: its
 * request gets a 503 with `Connection: close`. Headers must arrive within `headersTimeoutMs`,
 * and a body must not stall longer than `bodyTimeoutMs` (the connection is cut; a part being
 * uploaded is not stored). So a flood of idle connections churns itself, and new clients get in.
 */
export function guardedServer(
  app: RequestListener,
  limits: ConnectionLimits,
  onRefused: (open: number) => void = () => {},
): Server {
  /** Accepted sockets, oldest first; a request's socket is found here through `rawOf`. */
  const open = new Set<Socket>();
  const rawOf = new WeakMap<Duplex, Socket>();
  const innerOf = new WeakMap<Socket, Duplex>();
  const active = new Map<Socket, IncomingMessage>();
  const refused = new WeakSet<Socket>();
  const raw = (s: Duplex): Socket => rawOf.get(s) ?? (s as Socket);
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: Math.max(REQUEST_TIMEOUT_MS, limits.headersTimeoutMs),
      // Node checks both timeouts on this tick: coarse enough to cost nothing, fine enough to hold them.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    (req, res) => {
      const socket = raw(req.socket);
      if (refused.has(socket)) return refuse(req, res, limits.maxConnections);
      active.set(socket, req);
      const done = () => {
        if (active.get(socket) === req) active.delete(socket);
      };
      res.once('finish', done);
      res.once('close', done);
      if (!req.complete) req.socket.setTimeout(limits.bodyTimeoutMs);
      app(req, res);
    },
  );
  server.maxConnections = limits.maxConnections + REFUSED_SLOTS;
  // Node answers an `Expect` other than 100-continue with a 417 no operation declares; an
  // expectation the server does not know may be ignored (RFC 9110 §10.1.1), so it is.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
    server.emit('request', req, res),
  );
  const admit = (socket: Socket) => {
    if (open.has(socket) || refused.has(socket)) return;
    if (open.size >= limits.maxConnections && !evictIdle(open, active, innerOf)) {
      refused.add(socket);
      socket.setTimeout(REFUSED_GRACE_MS);
      onRefused(open.size);
    } else {
      open.add(socket);
    }
    socket.once('close', () => {
      open.delete(socket);
      active.delete(socket);
    });
  };
  Object.defineProperty(server, GATE, {
    value: {
      accepted: admit,
      servedAs(inner, socket) {
        rawOf.set(inner, socket);
        innerOf.set(socket, inner);
        if (refused.has(socket)) inner.setTimeout(REFUSED_GRACE_MS);
      },
      firstByteMs: Math.min(FIRST_BYTE_MS, limits.headersTimeoutMs),
    } satisfies ConnectionGate,
  });
  server.on('connection', (socket: Socket) => admit(raw(socket)));
  // Any socket timeout: a body that stalled, a refused connection that sent nothing, or an
  // idle keep-alive connection (Node's keepAliveTimeout runs on the socket timer too). A
  // listener here stops Node from closing the socket itself, so each case is decided here.
  server.on('timeout', (socket: Socket) => {
    const req = active.get(raw(socket));
    if (req?.complete) socket.setTimeout(0);
    else socket.destroy();
  });
  return server;
}

/** Close the oldest connection with no request in progress; false when every one is busy. */
function evictIdle(
  open: Set<Socket>,
  active: Map<Socket, IncomingMessage>,
  innerOf: WeakMap<Socket, Duplex>,
): boolean {
  for (const s of open) {
    if (active.has(s)) continue;
    open.delete(s);
    innerOf.get(s)?.destroy();
    s.destroy();
    return true;
  }
  return false;
}

/** The answer on a refused connection: 503 in the surface's form, then close. */
function refuse(req: IncomingMessage, res: ServerResponse, max: number): void {
  const message = `Too many connections (the simulator's cap is ${max}, every one busy); retry shortly`;
  const path = req.url ?? '';
  const storage = path === STORAGE_PREFIX || path.startsWith(`${STORAGE_PREFIX}/`);
  const body = storage
    ? s3ErrorXml('SlowDown', message, '', '0')
    : JSON.stringify({ detail: 'TOO_MANY_CONNECTIONS', message });
  res.shouldKeepAlive = false;
  res.writeHead(503, {
    'Content-Type': storage ? 'application/xml' : 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Retry-After': '1',
    Connection: 'close',
  });
  res.end(body);
}
