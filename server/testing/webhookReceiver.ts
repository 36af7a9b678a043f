import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  /** Real time it arrived. */
  at: number;
}

/** How the receiver answers the next request: a status, or misbehaviour. */
export type Behaviour =
  | { status: number; body?: string; headers?: Record<string, string> }
  | { hang: true }
  /** 200 and the first bytes of its body, then nothing more. */
  | { stallBody: true }
  | { reset: true }
  | { hugeMb: number };

/**
 * A webhook receiver on 127.0.0.1 for tests: keeps every request (raw body and headers) and
 * answers as told (`behave`), hostile ways included.
 */
export async function startReceiver(initial: Behaviour = { status: 200 }) {
  const got: Received[] = [];
  let behaviour: Behaviour = initial;
  const waiters: Array<() => void> = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      for (const w of waiters.splice(0)) w();
      const b = behaviour;
      if ('hang' in b) {
        open.add(res);
        return;
      }
      if ('stallBody' in b) {
        open.add(res);
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
        res.write('ok');
        return;
      }
      if ('reset' in b) {
        req.socket.destroy();
        return;
      }
      if ('hugeMb' in b) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        let left = b.hugeMb * 16;
        const more = () => {
          while (left > 0) {
            left--;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end();
        };
        res.on('error', () => {});
        more();
        return;
      }
      res.writeHead(b.status, { 'content-type': 'text/plain', ...b.headers });
      res.end(b.body ?? 'ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    behave(b: Behaviour) {
      behaviour = b;
    },
    /** Resolves once `n` requests arrived in all. */
    async waitFor(n: number, timeoutMs = 10_000): Promise<Received[]> {
      const end = Date.now() + timeoutMs;
      while (got.length < n) {
        if (Date.now() > end) throw new Error(`receiver got ${got.length} of ${n} requests`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
      }
      return got;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** `receiver()` starts one; each is closed after the test that started it. */
export function useReceivers(): (
  ...args: Parameters<typeof startReceiver>
) => ReturnType<typeof startReceiver> {
  const started: Array<Awaited<ReturnType<typeof startReceiver>>> = [];
  afterEach(async () => {
    for (const r of started.splice(0)) await r.close();
  });
  return async (...args) => {
    const r = await startReceiver(...args);
    started.push(r);
    return r;
  };
}
