import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  /** Requests sent to each upstream, in the order the upstreams were given. */
  readonly counts: number[];
  close(): Promise<void>;
}

/**
 * A load balancer for tests of many instances: every REQUEST (not every connection, so a
 * keep-alive client is spread too) goes to the next upstream in turn, bodies streamed both
 * ways, headers passed as they came — Host included, as `proxy_set_header Host $http_host`
 * does in nginx, so presigned URLs the instances make point back at the proxy.
 */
export async function startRoundRobinProxy(upstreams: string[]): Promise<RoundRobinProxy> {
  if (upstreams.length === 0) throw new Error('a proxy needs at least one upstream');
  const targets = upstreams.map((u) => new URL(u));
  const agents = targets.map(() => new Agent({ keepAlive: true, maxSockets: 256 }));
  const counts = targets.map(() => 0);
  let next = 0;
  const server: Server = createServer((req, res) => {
    const i = next;
    next = (next + 1) % targets.length;
    counts[i]!++;
    const target = targets[i]!;
    const out = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent: agents[i],
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.rawHeaders);
        up.pipe(res);
      },
    );
    out.on('error', (e) => {
      if (res.headersSent) {
        res.destroy(e);
        return;
      }
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'PROXY_UPSTREAM_ERROR', message: `${target.origin}: ${e.message}` }));
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const a of agents) a.destroy();
    },
  };
}
