import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, type ExpectStatic, it } from 'vitest';
import { fromRoot } from '../core/root.js';
import { DEMO_US, userToken } from '../testing/http.js';
import { scaledBudget } from '../testing/scaledBudget.js';
import { spawnTracked } from '../testing/spawnTracked.js';
import { startTestServer } from '../testing/testServer.js';

// A double runs inside a partner's process: a Node process that used it must end by itself
// after its last await, whether the simulator is still there or gone, and say at most one
// line about a lost simulator. Each case is a real child process over the bundled double.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'partner-sim-exit-'));
  for (const name of ['reactNative', 'capacitor'])
    await build({
      entryPoints: [fromRoot(`server/doubles/${name}/${name}.ts`)],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: join(dir, `${name}.mjs`),
      logLevel: 'silent',
    });
  // The partner's script: pair a recorder, then wait for the parent's word (the simulator
  // stopped, or not) and end. Nothing tears the double down.
  await writeFile(
    join(dir, 'app.mjs'),
    `
const [kind, url, token, sn] = process.argv.slice(2);
const sdk = kind === 'rn'
  ? (await import('./reactNative.mjs')).configurePlaudSdkDouble({ simulatorUrl: url, platform: 'android' })
  : new (await import('./capacitor.mjs')).PlaudSdkWeb({ simulatorUrl: url, platform: 'android' });
const once = (name, ok = () => true) => new Promise((resolve) => {
  const l = (d) => ok(d) && resolve(d);
  sdk.addListener(name, l);
});
await sdk.initSDK({ userAccessToken: token, customDomain: 'platform-us.plaud.ai' });
const found = once('scanResult', (d) => d.devices.some((x) => x.serialNumber === sn));
await sdk.startScan();
await found;
const bound = once('bind');
await sdk.connectBleDevice({ serialNumber: sn });
await bound;
process.stdout.write('paired\\n');
await new Promise((resolve) => process.stdin.once('data', () => { process.stdin.destroy(); resolve(); }));
process.stdout.write('last await done\\n');
`,
  );
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function run(
  kind: 'rn' | 'capacitor',
  stopSimulator: boolean,
  sn: string,
  expect: ExpectStatic,
  crowd: readonly string[] = [],
) {
  const sim = await startTestServer();
  try {
    const token = (await userToken(sim.api, DEMO_US, `exit-${kind}-${sn}`)).user;
    for (const serial of [sn, ...crowd]) {
      const arranged = await fetch(`${sim.admin}/recorders/${serial}/arrange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ case: 'never_paired' }),
      });
      expect(arranged.status).toBe(200);
    }
    const child = spawnTracked(process.execPath, [join(dir, 'app.mjs'), kind, sim.url, token, sn], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => {
      out += d;
    });
    child.stderr!.on('data', (d) => {
      err += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const paired = Date.now() + 30_000;
    while (!out.includes('paired') && Date.now() < paired && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 50));
    expect(out, err).toContain('paired');
    if (stopSimulator) await sim.stop();
    // Let a few polls fail before the app's last await ends.
    await new Promise((r) => setTimeout(r, stopSimulator ? 1_000 : 0));
    child.stdin!.write('go\n');
    const t0 = Date.now();
    const deadline = setTimeout(() => child.kill('SIGKILL'), scaledBudget(15_000));
    const code = await exited;
    clearTimeout(deadline);
    return { code, ms: Date.now() - t0, out, err };
  } finally {
    if (!stopSimulator) await sim.stop();
  }
}

describe('a process that used a double exits on its own', () => {
  // At once: each case has its own simulator, serial and child, and mostly waits (the
  // recorder's handshake, the failing polls), so the four waits overlap instead of adding up.
  it.concurrent.for([
    ['rn', true],
    ['capacitor', true],
    ['rn', false],
    ['capacitor', false],
  ] as const)('%s, simulator gone: %s', async ([kind, gone], { expect }) => {
    const sn = `8810EXIT${kind === 'rn' ? '1' : '2'}${gone ? '1' : '0'}000000`.slice(0, 16);
    const r = await run(kind, gone, sn, expect);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('last await done');
    expect(r.ms).toBeLessThan(scaledBudget(5_000));
    const lines = r.err.split('\n').filter(Boolean);
    expect(lines.length, r.err).toBeLessThanOrEqual(1);
    if (gone)
      expect(lines[0] ?? '').toMatch(/^partner-sim device double: the simulator at .* is unreachable/);
  });
});

describe('a scan left on', () => {
  // The module and its demo never stop the scan: with many recorders advertising, scan results
  // keep coming (one per 150 ms here, then scanTimeout at 10 s). None of them is an answer the
  // app waits for, so the process ends within 3 s of its last await, not at the scan's end.
  // The crowd (same signal) sorts after the recorder the app pairs, so the app's last await
  // comes while ~8 s of results are still due.
  it('does not keep a React Native double process alive', async ({ expect }) => {
    const crowd = Array.from({ length: 60 }, (_, i) => `8810YARD${String(i).padStart(8, '0')}`);
    const r = await run('rn', false, '8810EXIT30000000', expect, crowd);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('last await done');
    expect(r.ms, `exited ${r.ms} ms after its last await`).toBeLessThan(scaledBudget(3_000));
    expect(r.err).toBe('');
  });
});
