import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fromRoot } from '../server/core/root.js';
import { freePort } from '../server/testing/freePort.js';
import { type Benchmark, BINDING_PATH, bindingRequest, fmt, spawnSimulator } from './lib.js';
import { type LoadRequest, type LoadResult, load } from './load.js';

/** Where the anchors are installed: outside the project, kept between runs. */
const HOME = join(tmpdir(), 'partner-sim-bench-anchors');
const PACKAGES = ['@stoplight/prism-cli@5', 'wiremock@3'];

async function install(): Promise<void> {
  if (existsSync(join(HOME, 'node_modules', '.bin', 'prism'))) return;
  await mkdir(HOME, { recursive: true });
  await promisify(execFile)(
    'npm',
    ['install', '--no-audit', '--no-fund', '--silent', '--prefix', HOME, ...PACKAGES],
    {
      timeout: 300_000,
    },
  );
}

/** Spawn `cmd` and wait until it answers `probe` with a 200 (or give up after `ms`). */
async function startServer(
  cmd: string,
  args: string[],
  probe: LoadRequest,
  ms: number,
): Promise<ChildProcess> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-2000);
  });
  const until = performance.now() + ms;
  while (performance.now() < until) {
    if (child.exitCode !== null) throw new Error(`${cmd} exited (${child.exitCode}): ${err}`);
    try {
      const r = await fetch(probe.url, { headers: probe.headers });
      await r.text();
      if (r.status === 200) return child;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error(`${cmd} did not answer ${probe.url} within ${ms / 1000} s: ${err}`);
}

const stop = (c: ChildProcess) =>
  new Promise<void>((r) => (c.exitCode !== null ? r() : c.once('exit', () => r()) && c.kill()));

/** WireMock standalone (from the npm package's jar) with one stub answering the binding JSON. */
async function startWireMock(port: number, body: string, probe: LoadRequest): Promise<ChildProcess> {
  const jar = join(HOME, 'node_modules', 'wiremock', 'build');
  const { readdirSync } = await import('node:fs');
  const file = readdirSync(jar).find((f) => f.startsWith('wiremock-standalone') && f.endsWith('.jar'));
  if (!file) throw new Error('no wiremock-standalone jar in the wiremock package');
  const root = join(HOME, 'wiremock-root');
  await mkdir(join(root, 'mappings'), { recursive: true });
  const [path, query] = BINDING_PATH.split('?');
  await writeFile(
    join(root, 'mappings', 'binding.json'),
    JSON.stringify({
      request: {
        method: 'GET',
        urlPath: path,
        queryParameters: Object.fromEntries(
          [...new URLSearchParams(query)].map(([k, v]) => [k, { equalTo: v }]),
        ),
        headers: { Authorization: { matches: 'Bearer .+' } },
      },
      response: { status: 200, headers: { 'Content-Type': 'application/json' }, body },
    }),
  );
  const args = ['-jar', join(jar, file), '--port', String(port), '--bind-address', '127.0.0.1'];
  return startServer('java', [...args, '--root-dir', root, '--disable-banner'], probe, 60_000);
}

/**
 * `npm run bench -- --anchors` (not part of CI): the binding GET on the simulator beside
 * Prism's mock of the same operation from openapi.yaml and a WireMock stub of it, same load,
 * same run. Prism and WireMock come from the npm registry into a temporary folder, never the
 * project's dependencies; WireMock needs java on PATH and is skipped (saying why) without it.
 */
export const anchorsBenchmark: Benchmark = {
  name: 'anchors',
  target: 'informational: the simulator beside Prism and WireMock mocking the same operation',
  async run({ quick, flags }) {
    const durationMs = Number(flags['duration-ms'] ?? (quick ? 2000 : 5000));
    const connections = Number(flags.connections ?? 8);
    const lines: string[] = [];
    await install();
    const sim = await spawnSimulator(['--in-memory'], [], { quiet: false });
    const results: [string, LoadResult][] = [];
    try {
      const req = await bindingRequest(sim.url);
      const body = await (await fetch(req.url, { headers: req.headers })).text();
      results.push(['simulator (default settings)', await load(req, { connections, durationMs })]);
      const prismPort = await freePort();
      // Prism serves the document's paths without the servers' base path.
      const prismReq = {
        url: `http://127.0.0.1:${prismPort}${BINDING_PATH.replace('/developer/api', '')}`,
        headers: req.headers,
      };
      const prismBin = join(HOME, 'node_modules', '.bin', 'prism');
      const prism = await startServer(
        prismBin,
        ['mock', fromRoot('openapi.yaml'), '-p', String(prismPort), '-h', '127.0.0.1'],
        prismReq,
        60_000,
      );
      try {
        results.push([
          'Prism 5 mock (openapi.yaml)',
          await load(prismReq, { connections, durationMs, warmupMs: 3000 }),
        ]);
      } finally {
        await stop(prism);
      }
      const wmPort = await freePort();
      const wmReq = { url: `http://127.0.0.1:${wmPort}${BINDING_PATH}`, headers: req.headers };
      let wiremock: ChildProcess | undefined;
      try {
        wiremock = await startWireMock(wmPort, body, wmReq);
      } catch (e) {
        lines.push(`WireMock skipped: ${(e as Error).message.split('\n')[0]}`);
      }
      if (wiremock) {
        try {
          results.push([
            'WireMock 3 stub (java)',
            await load(wmReq, { connections, durationMs, warmupMs: 3000 }),
          ]);
        } finally {
          await stop(wiremock);
        }
      }
    } finally {
      await sim.stop();
    }
    const simRps = results[0]![1].rps;
    for (const [name, r] of results) {
      lines.push(
        `${name.padEnd(30)} ${fmt(r.rps, 0).padStart(6)} req/s, p50 ${fmt(r.p50Us, 0)} us, p99 ${fmt(r.p99Us, 0)} us` +
          (r === results[0]![1] ? '' : `; simulator ${fmt(simRps / r.rps, 2)}x its requests/s`) +
          (r.bad ? ` (${r.bad} non-200)` : ''),
      );
    }
    lines.unshift(`${connections} connections, ${durationMs / 1000} s each, binding GET with a bearer token`);
    return { ok: true, lines };
  },
};
