import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fromRoot } from '../server/core/root.js';
import { freePort } from '../server/testing/freePort.js';

/** One benchmark: measures the simulator and a baseline in the same run, prints a ratio. */
export interface Benchmark {
  name: string;
  /** What the numbers must show, as the issue states it. */
  target: string;
  /** Measures PostgreSQL too: run.ts finds or starts a cluster first (postgres.ts). */
  needsPg?: boolean;
  run(args: BenchArgs): Promise<BenchResult>;
}

export interface BenchArgs {
  /** Smaller workloads for a quick check (`--quick`). */
  quick: boolean;
  /** Free-form `--key value` flags, e.g. `--size-mib 64`. */
  flags: Record<string, string>;
}

export interface BenchResult {
  /** Lines to print: measurements, the baseline, the ratio. */
  lines: string[];
  /** Whether the target was met. */
  ok: boolean;
}

export const fmt = (n: number, digits = 1): string => n.toFixed(digits);

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export interface SpawnedSim {
  child: ChildProcess;
  url: string;
  /** ms from spawn to the "listening" line. */
  startupMs: number;
  stop(): Promise<void>;
}

/**
 * Start the built simulator (`dist/server/cli.js serve`) as a child process on a free port,
 * logging nothing unless `quiet` is false; `nodeArgs` go to node itself (e.g. `--expose-gc`).
 */
export function spawnSimulator(
  args: string[] = ['--in-memory'],
  nodeArgs: string[] = [],
  { quiet = true, env }: { quiet?: boolean; env?: Record<string, string> } = {},
): Promise<SpawnedSim> {
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      fromRoot('dist', 'server', 'cli.js'),
      'serve',
      '--port',
      '0',
      // quiet: false keeps the default log level, as a user's instance runs.
      ...(quiet ? ['--log-level', 'silent'] : []),
      ...args,
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: env ? { ...process.env, ...env } : process.env,
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code} before listening: ${out}`)));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
      if (!m) return;
      child.removeAllListeners('exit');
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      resolve({
        child,
        url: m[1]!,
        startupMs: performance.now() - t0,
        stop: () =>
          new Promise<void>((res) => {
            child.once('exit', () => res());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/**
 * Start the built simulator with its stdout going to /dev/null (a log's cost without a reader
 * draining a pipe): on a port picked here, ready once it answers.
 */
export async function spawnSimulatorToNull(
  args: string[],
  env: Record<string, string> = {},
): Promise<SpawnedSim> {
  const t0 = performance.now();
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [fromRoot('dist', 'server', 'cli.js'), 'serve', '--port', String(port), ...args],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env } },
  );
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`simulator exited with ${child.exitCode} before listening`);
    if (
      await fetch(`${url}/__admin/clock`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    url,
    startupMs: performance.now() - t0,
    stop: () =>
      new Promise<void>((res) => {
        child.once('exit', () => res());
        child.kill('SIGTERM');
      }),
  };
}

/** `n` sequential requests (keep-alive unless told); returns wall µs per request. */
export async function drive(
  url: string,
  headers: Record<string, string>,
  n: number,
  { keepAlive = true }: { keepAlive?: boolean } = {},
): Promise<number> {
  const agent = new Agent({ keepAlive, maxSockets: 1 });
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(url, { headers, agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await once();
  agent.destroy();
  return ((performance.now() - t0) * 1000) / n;
}

/**
 * A bare Express 5 app in its own process, tuned as one would for speed (no `x-powered-by`,
 * no ETag): `routes` is the body of a function given the app `a`, e.g.
 * `a.get('/x',(q,r)=>r.json({}))`. Resolves once it prints its listening line.
 */
export function spawnBareExpress(routes: string): Promise<SpawnedSim> {
  const t0 = performance.now();
  const code = `const e=require('express');const a=e();a.disable('x-powered-by');a.set('etag',false);
${routes};
const s=a.listen(0,'127.0.0.1',()=>console.log('listening on http://127.0.0.1:'+s.address().port))`;
  const child = spawn(process.execPath, ['-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: fromRoot(),
  });
  return new Promise((resolve) => {
    child.stdout.once('data', (d: Buffer) => {
      child.stdout.resume();
      resolve({
        child,
        url: /listening on (\S+)/.exec(d.toString())![1]!,
        startupMs: performance.now() - t0,
        stop: () => new Promise((r) => child.once('exit', () => r()) && child.kill()),
      });
    });
  });
}

/** The demo app's credentials and the binding query a user token of it makes. */
export const DEMO_BASIC = Buffer.from('demo-client-us:demo-secret-us-0000').toString('base64');
export const BINDING_PATH = '/developer/api/open/partner/sdk/binding?type=notepro&sn=8810B30227290003';

/** A user token of an app (the demo app unless told), through the partner token exchange. */
export async function userToken(
  baseUrl: string,
  basic = DEMO_BASIC,
  userId = 'demo-user-0001',
): Promise<string> {
  const api = `${baseUrl}/developer/api`;
  const token = async (url: string, headers: Record<string, string>, body?: string) => {
    const r = await fetch(url, { method: 'POST', headers, body });
    if (!r.ok) throw new Error(`POST ${url}: ${r.status} ${await r.text()}`);
    return ((await r.json()) as { access_token: string }).access_token;
  };
  const partner = await token(`${api}/oauth/partner/access-token`, { authorization: `Basic ${basic}` });
  return token(
    `${api}/open/partner/users/access-token`,
    { authorization: `Bearer ${partner}`, 'content-type': 'application/json' },
    JSON.stringify({ user_id: userId }),
  );
}

/** A user token of the demo app and the binding URL it queries. */
export async function bindingRequest(
  baseUrl: string,
): Promise<{ url: string; headers: Record<string, string> }> {
  return { url: baseUrl + BINDING_PATH, headers: { authorization: `Bearer ${await userToken(baseUrl)}` } };
}

/** The fields of /proc/<pid>/stat after the command name (state, ppid, …); undefined once it is gone. */
export function procStat(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used so far, in microseconds (Linux /proc); 0 once gone. */
export function cpuUs(pid: number): number {
  const fields = procStat(pid);
  return fields ? ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100 : 0;
}
