import { Agent, request } from 'node:http';
import express, { type RequestHandler } from 'express';
import { jsonBody } from '../server/http/jsonBody.js';
import { MAX_BODY_DEPTH } from '../server/spec/jsonLimits.js';
import { prunedTooDeep } from '../server/spec/jsonPrune.js';
import { hugeJsonBodies, manyKeyBody } from '../server/testing/hostileBodies.js';
import { parsedBody } from '../server/testing/parsedBody.js';
import { type Benchmark, cpuUs, DEMO_BASIC, fmt, spawnBareExpress, spawnSimulator } from './lib.js';

/** CPU µs of this process per parse of `body` by `parser`, over `n` parses. */
async function parseCpuUs(parser: RequestHandler, body: string, n: number): Promise<number> {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await parsedBody(parser, body);
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / n;
}

/** CPU µs per call of `f`, the least of 5 rounds of `n` calls. */
function cpuPer(f: () => unknown, n: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 5; r++) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < n; i++) f();
    const t = process.cpuUsage(t0);
    best = Math.min(best, (t.user + t.system) / n);
  }
  return best;
}

/** `n` sequential keep-alive POSTs of `body`; the server's CPU µs per request. */
async function postCpuUs(url: string, pid: number, headers: Record<string, string>, body: string, n: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
  await once();
  const before = cpuUs(pid);
  for (let i = 0; i < n; i++) if ((await once()) !== 422) throw new Error(`${url}: not refused with 422`);
  const used = cpuUs(pid) - before;
  agent.destroy();
  return used / n;
}

/**
 * Issue 33: a body nested 100,000 deep cost the simulator a full JSON.parse (~70 ms) before
 * `too_deep` refused it. In process: the simulator's JSON body parser against express.json
 * (the full parse it replaced), per body, alternating; end to end: the simulator refusing the
 * deep body against a bare Express route that only parses it with express.json.
 */
export const deepBodiesBenchmark: Benchmark = {
  name: 'deep bodies',
  target:
    'body nested 100,000 deep: parse <= 0.3x express.json CPU, refused end to end <= 0.35x what a bare express.json route pays; bodies within the limit: the added check <= 10% of their JSON.parse (one of 400 brackets printed, not held to it)',
  async run({ quick }) {
    const [deepField, deep] = [`{"user_id":${hugeJsonBodies()[0]}}`, hugeJsonBodies()[1]!];
    // Bodies of the documented operations hold a few brackets (skipped by a count); one of 10 kB
    // with 400 is the worst case of the scan that bodies within the limit pay.
    const typical = JSON.stringify({
      user_id: 'u-1',
      metadata: Object.fromEntries(
        Array.from({ length: 40 }, (_, i) => [`field_${i}`, `value ${i} `.repeat(8)]),
      ),
    });
    const brackets = JSON.stringify(
      Array.from({ length: 200 }, (_, i) => ({ id: `rec-${i}`, tags: ['a', 'b'], n: i, ok: true })),
    );
    const deepCases: [string, string, number][] = [
      [`100,000 deep (${fmt(deep.length / 1024, 0)} kB)`, deep, 20],
      ['a field nested 5,000 deep', deepField, 200],
    ];
    const [old, now] = [express.json({ limit: '1mb' }), jsonBody({ limit: '1mb' })];
    const lines = [
      `in process, CPU per parse, express.json (full parse) vs jsonBody (depth limit ${MAX_BODY_DEPTH}):`,
    ];
    const ratios: number[] = [];
    for (const [name, body, runs] of deepCases) {
      const n = quick ? Math.ceil(runs / 4) : runs;
      const o: number[] = [];
      const w: number[] = [];
      for (let r = 0; r < 5; r++) {
        o.push(await parseCpuUs(old, body, n));
        w.push(await parseCpuUs(now, body, n));
      }
      const [a, b] = [Math.min(...o), Math.min(...w)];
      ratios.push(b / a);
      lines.push(`  ${name.padEnd(42)} ${fmt(a / 1000, 2)} ms -> ${fmt(b / 1000, 2)} ms (${fmt(b / a, 2)}x)`);
    }
    // Within the limit the parse is the same JSON.parse as before; what is added is the check
    // (a count of brackets, a scan when there are more than the limit), measured beside it:
    // at 10-20 µs a request, whole-middleware timings would be mostly noise.
    lines.push('within the limit, the added check against JSON.parse of the same body:');
    const within: [string, string][] = [
      [`typical (${fmt(typical.length / 1024, 1)} kB, few brackets)`, typical],
      ['85,000 keys (1 MB)', manyKeyBody()],
      [`400 brackets (${fmt(brackets.length / 1024, 1)} kB)`, brackets],
    ];
    const shares: number[] = [];
    for (const [name, body] of within) {
      const n = Math.max(5, Math.round((quick ? 2e6 : 2e7) / body.length));
      const [check, parse] = [cpuPer(() => prunedTooDeep(body), n), cpuPer(() => JSON.parse(body), n)];
      shares.push(check / parse);
      lines.push(
        `  ${name.padEnd(42)} ${fmt(check, 2)} µs vs ${fmt(parse, 1)} µs (+${fmt((100 * check) / parse, 1)}%)`,
      );
    }

    const sim = await spawnSimulator();
    const bare = await spawnBareExpress(
      `a.post('/x',e.json({limit:'1mb'}),(q,r)=>r.status(422).json({detail:[]}))`,
    );
    try {
      const n = quick ? 5 : 20;
      const api = `${sim.url}/developer/api`;
      const token = await fetch(`${api}/oauth/partner/access-token`, {
        method: 'POST',
        headers: { authorization: `Basic ${DEMO_BASIC}` },
      });
      const partner = ((await token.json()) as { access_token: string }).access_token;
      const auth = { authorization: `Bearer ${partner}`, 'content-type': 'application/json' };
      const simUrl = `${api}/open/partner/users/access-token`;
      const b = await postCpuUs(`${bare.url}/x`, bare.child.pid!, auth, deep, n);
      const s = await postCpuUs(simUrl, sim.child.pid!, auth, deep, n);
      const e2e = s / b;
      lines.push(
        'end to end, server CPU per request of the body nested 100,000 deep:',
        `  bare Express, express.json only: ${fmt(b / 1000, 1)} ms; simulator, refused as too_deep: ${fmt(s / 1000, 1)} ms (${fmt(e2e, 2)}x)`,
      );
      const ok = ratios[0]! <= 0.3 && e2e <= 0.35 && shares[0]! <= 0.1 && shares[1]! <= 0.1;
      return { ok, lines };
    } finally {
      await Promise.all([sim.stop(), bare.stop()]);
    }
  },
};
