import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { testConfig } from '../server/config.js';
import { startSimulator } from '../server/simulator.js';
import { type Benchmark, fmt, median } from './lib.js';

/** Mean latency of `n` sequential keep-alive requests, in microseconds. */
async function latencyUs(
  url: string,
  opts: { method: string; headers: Record<string, string>; body?: string },
  n: number,
) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const t = process.hrtime.bigint();
      const req = request(url, { method: opts.method, headers: opts.headers, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(Number(process.hrtime.bigint() - t) / 1000));
      });
      req.on('error', reject);
      req.end(opts.body);
    });
  for (let i = 0; i < 200; i++) await once();
  const xs: number[] = [];
  for (let i = 0; i < n; i++) xs.push(await once());
  agent.destroy();
  return median(xs);
}

/**
 * Per-request overhead of the simulator (routing from the spec, auth with cached token claims,
 * ajv validation, response building) over a bare Express 5 app answering the same JSON, both
 * measured here in one process with the same client.
 */
export const requestOverheadBenchmark: Benchmark = {
  name: 'per-request overhead',
  target: 'simulator minus bare Express: tens of microseconds per request',
  async run({ quick }) {
    const n = quick ? 1000 : 5000;
    const bare = express();
    bare.use(express.json());
    bare.post('/x', (_req, res) => {
      res.json({ access_token: 'x'.repeat(300), token_type: 'bearer', expires_in: 86400 });
    });
    const bareServer = bare.listen(0, '127.0.0.1');
    await new Promise((r) => bareServer.once('listening', r));
    const barePort = (bareServer.address() as AddressInfo).port;

    const sim = await startSimulator(testConfig({ validateResponses: false }));
    const basic = Buffer.from('demo-client-us:demo-secret-us-0000').toString('base64');
    const tok = await fetch(`${sim.url}/developer/api/oauth/partner/access-token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}` },
    });
    const partner = ((await tok.json()) as { access_token: string }).access_token;
    const body = JSON.stringify({ user_id: 'bench-user-0001', expires_in: 3600 });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${partner}` };

    const baseUs = await latencyUs(`http://127.0.0.1:${barePort}/x`, { method: 'POST', headers, body }, n);
    const simUs = await latencyUs(
      `${sim.url}/developer/api/open/partner/users/access-token`,
      { method: 'POST', headers, body },
      n,
    );
    bareServer.close();
    await sim.stop();
    const overhead = simUs - baseUs;
    return {
      ok: overhead < 100,
      lines: [
        `bare Express 5 (same body, same client): median ${fmt(baseUs)} us over ${n} requests`,
        `simulator createUserToken:               median ${fmt(simUs)} us (${fmt(simUs / baseUs, 2)}x baseline)`,
        `overhead per request: ${fmt(overhead)} us`,
      ],
    };
  },
};
