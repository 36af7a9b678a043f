import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the gateway got it; `headers` may be changed before it is forwarded. */
interface GatewayRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
}

interface GatewayHooks {
  /**
   * Runs before a request is forwarded (it may wait, or add headers); an answer it returns is
   * given instead of forwarding.
   */
  before?: (req: GatewayRequest) => Promise<{ status: number; json: unknown } | undefined>;
  /** The answer's body as the client gets it (default: as the upstream sent it). */
  answer?: (req: GatewayRequest, status: number, body: Buffer) => Buffer;
}

/** Headers a hop sets for itself: framing, and an encoding fetch has already undone. */
const HOP = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'content-encoding',
]);

/**
 * A gateway on loopback in front of a simulator, for tests of a target or an upstream that
 * behaves otherwise than the simulator in one respect (a token refused in another way, an
 * admin token held back from some paths, a field of another type). Everything else passes
 * through unchanged; nothing is forwarded anywhere but `upstream` (a loopback simulator).
 */
export async function startLoopbackGateway(
  upstream: string,
  hooks: GatewayHooks,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (v !== undefined && !HOP.has(k)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      const got: GatewayRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers };
      const early = await hooks.before?.(got);
      if (early) {
        res.writeHead(early.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(early.json));
        return;
      }
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const up = await fetch(upstream + got.path, {
        method: got.method,
        headers: got.headers,
        redirect: 'manual',
        ...(body && got.method !== 'GET' && got.method !== 'HEAD' ? { body } : {}),
      });
      const raw = Buffer.from(await up.arrayBuffer());
      const out = hooks.answer?.(got, up.status, raw) ?? raw;
      const back: Record<string, string> = {};
      up.headers.forEach((v, k) => {
        if (!HOP.has(k)) back[k] = v;
      });
      res.writeHead(up.status, { ...back, 'content-length': String(out.length) });
      res.end(out);
    } catch (e) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'GATEWAY_ERROR', message: (e as Error).message }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
