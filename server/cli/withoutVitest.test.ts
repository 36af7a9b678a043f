import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VITEST_MISSING } from '../contract/plan.js';
import { fromRoot } from '../core/root.js';
import { type ServeChild, spawnServe } from '../testing/serveChild.js';
import { sourceEntry } from '../testing/sourceBuild.js';
import { execFileTracked } from '../testing/spawnTracked.js';

// vitest is an optional peer dependency: only `contract` needs it. Each command and entry runs
// in a child process where it cannot be resolved (hideVitest.mjs), as in an install without
// it, and the hook's log shows that nothing even tried to load it.
const run = execFileTracked;
const HIDE = ['--import', fromRoot('server', 'testing', 'hideVitest.mjs')];

let work: string;
let log: string;
let env: NodeJS.ProcessEnv;
let entry: string;
let serve: ServeChild | undefined;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'partner-sim-no-vitest-'));
  log = join(work, 'attempts.log');
  env = { ...process.env, HIDE_VITEST_LOG: log, NO_COLOR: '1' };
  entry = await sourceEntry('cli');
  serve = await spawnServe(
    entry,
    ['--port', '0', '--host', '127.0.0.1', '--in-memory', '--log-level', 'warn'],
    {
      nodeArgs: HIDE,
      env: { ...env, PARTNER_SIM_TRANSCRIPTION_DELAY: '0' },
    },
  );
}, 120_000);
afterAll(async () => {
  serve?.proc.kill();
  await serve?.exited;
  await rm(work, { recursive: true, force: true });
});

const attempts = () => readFile(log, 'utf8').catch(() => '');
const cli = (...args: string[]) => run(process.execPath, [...HIDE, entry, ...args], { env, cwd: work });

describe('without vitest installed', () => {
  it('serve, binding, transcribe and ca run and never try to load it', async () => {
    const target = ['--target', serve!.url];
    expect((await cli('binding', '8810B30227290003', ...target)).stdout).toMatch(/8810B30227290003/);
    const audio = fromRoot('fixtures', 'audio', 'meeting.mp3');
    expect((await cli('transcribe', audio, ...target)).stdout.length).toBeGreaterThan(0);
    expect((await cli('ca', '--data-dir', join(work, 'data'))).stdout).toMatch(/ca\.crt|\.pem/);
    expect(await attempts()).toBe('');
  }, 60_000);

  it('the programmatic API and the doubles load and run without it', async () => {
    const script = `
      const { startSimulator } = await import(${JSON.stringify(pathToFileURL(await sourceEntry('index')).href)});
      await import(${JSON.stringify(pathToFileURL(await sourceEntry('doubles/reactNative/reactNative')).href)});
      await import(${JSON.stringify(pathToFileURL(await sourceEntry('doubles/capacitor/capacitor')).href)});
      const sim = await startSimulator();
      const r = await fetch(sim.url + '/__admin/health');
      await sim.stop();
      console.log('health ' + r.status);`;
    const { stdout } = await run(process.execPath, [...HIDE, '--input-type=module', '-e', script], {
      env,
      cwd: work,
    });
    expect(stdout).toBe('health 200\n');
    expect(await attempts()).toBe('');
  }, 60_000);

  it('contract says in one line how to add it and exits non-zero', async () => {
    const failed = await cli('contract').then(
      () => undefined,
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toBe(`${VITEST_MISSING}\n`);
    expect(failed?.stdout).toBe('');
    expect(VITEST_MISSING).toContain('npm i -D vitest@4');
    expect(await attempts()).toMatch(/^vitest\/package\.json from .*contract\/plan\.js\n/);
  }, 60_000);
});
