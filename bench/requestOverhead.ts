import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type Benchmark, drive, fmt, type SpawnedSim, spawnSimulator } from './lib.js';

/** CPU time (user + system) a process has used so far, in microseconds (Linux /proc). */
function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

/** A bare Express 5 server answering the same JSON as the binding query, in its own process. */
function spawnBare(body: string): Promise<SpawnedSim> {
  const code = `const e=require('express');const a=e();a.get('/x',(q,r)=>r.json(${body}));
const s=a.listen(0,'127.0.0.1',()=>console.log('listening on http://127.0.0.1:'+s.address().port))`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve) => {
    child.stdout.once('data', (d: Buffer) => {
      child.stdout.resume();
      resolve({
        child,
        url: /listening on (\S+)/.exec(d.toString())![1]!,
        startupMs: 0,
        stop: () => new Promise((r) => child.once('exit', () => r()) && child.kill()),
      });
    });
  });
}

interface Sample {
  cpu: number;
  wall: number;
}

async function measure(
  p: SpawnedSim,
  url: string,
  headers: Record<string, string>,
  n: number,
): Promise<Sample> {
  await drive(url, headers, Math.min(1000, n));
  const c0 = cpuUs(p.child.pid!);
  const wall = await drive(url, headers, n);
  return { cpu: (cpuUs(p.child.pid!) - c0) / n, wall };
}

/**
 * Per-request overhead of the simulator (routing from the spec, auth with cached token claims,
 * ajv validation, fault hooks, the redacted request journal) over a bare Express 5 app
 * answering the same JSON. Both run as child processes driven by the same client here; the
 * server's own CPU time per request comes from /proc, so the client's work is not counted.
 */
export const requestOverheadBenchmark: Benchmark = {
  name: 'per-request overhead',
  target: 'binding query vs bare Express: < 100 us more server CPU and wall time per request',
  async run({ quick }) {
    const n = quick ? 2000 : 8000;
    const sim = await spawnSimulator(['--in-memory', '--log-level', 'silent']);
    try {
      const api = `${sim.url}/developer/api`;
      const basic = Buffer.from('demo-client-us:demo-secret-us-0000').toString('base64');
      const tok = async (url: string, headers: Record<string, string>, body?: string) =>
        ((await (await fetch(url, { method: 'POST', headers, body })).json()) as { access_token: string })
          .access_token;
      const partner = await tok(`${api}/oauth/partner/access-token`, { authorization: `Basic ${basic}` });
      const user = await tok(
        `${api}/open/partner/users/access-token`,
        { authorization: `Bearer ${partner}`, 'content-type': 'application/json' },
        JSON.stringify({ user_id: 'demo-user-0001' }),
      );
      const headers = { authorization: `Bearer ${user}` };
      const simUrl = `${api}/open/partner/sdk/binding?type=notepro&sn=8810B30227290003`;
      const body = await (await fetch(simUrl, { headers })).text();
      const bare = await spawnBare(body);
      try {
        const b = await measure(bare, `${bare.url}/x?type=notepro&sn=8810B30227290003`, headers, n);
        const s = await measure(sim, simUrl, headers, n);
        const cpu = s.cpu - b.cpu;
        const wall = s.wall - b.wall;
        return {
          ok: cpu < 100 && wall < 100,
          lines: [
            `bare Express 5, same JSON:   server CPU ${fmt(b.cpu)} us/req, wall ${fmt(b.wall)} us/req (${n} requests)`,
            `simulator getDeviceBinding:  server CPU ${fmt(s.cpu)} us/req (${fmt(s.cpu / b.cpu, 2)}x), wall ${fmt(s.wall)} us/req (${fmt(s.wall / b.wall, 2)}x)`,
            `overhead per request: ${fmt(cpu)} us server CPU, ${fmt(wall)} us wall`,
          ],
        };
      } finally {
        await bare.stop();
      }
    } finally {
      await sim.stop();
    }
  },
};
