import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runContract } from './command.js';
import { plan } from './plan.js';

/** A vitest child that exits at once. */
const fakeSpawn = (_c: string, _a: readonly string[], _o: SpawnOptions): ChildProcess => {
  const child = Object.assign(new EventEmitter(), { stdout: new EventEmitter(), stderr: new EventEmitter() });
  setImmediate(() => child.emit('close', 0, null));
  return child as unknown as ChildProcess;
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'partner-sim-contract-flags-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('contract takes the shared flags', () => {
  it('blames the flag typed, not the variable it sets', async () => {
    for (const [args, message] of [
      [['--target', 'nope'], "--target must be sim, url, live or a URL (got 'nope')"],
      [['--compare', 'staging'], "--compare must be sim, url, live or a URL (got 'staging')"],
      [['--region', 'cn'], "--region must be us, jp, eu or sg (got 'cn')"],
      [['--target', 'url'], '--target url needs --base-url <url>'],
      [['--compare', 'url'], '--compare url names no URL'],
    ] as const) {
      const out: string[] = [];
      const code = await runContract([...args], { onOutput: (s) => out.push(s), env: {}, spawn: fakeSpawn });
      expect(code).toBe(2);
      expect(out.join('')).toContain(message);
      expect(out.join('')).not.toContain('CONTRACT_');
    }
  });

  it('--admin-token is the url target admin token', () => {
    const p = plan(['--target', 'http://127.0.0.1:1', '--admin-token', 's3cret'], {});
    expect(p.runs[0]!.env).toMatchObject({ CONTRACT_TARGET: 'url', CONTRACT_ADMIN_TOKEN: 's3cret' });
  });

  it('--json prints the results document the run wrote, and nothing else, on stdout', async () => {
    const results = { summary: { passed: 3, failed: 0 } };
    await writeFile(join(dir, 'contract-results.json'), JSON.stringify(results));
    const chunks: string[] = [];
    const code = await runContract(['--json', '--reports-dir', dir], {
      onOutput: (s) => chunks.push(s),
      env: {},
      spawn: fakeSpawn,
    });
    expect(code).toBe(0);
    expect(JSON.parse(chunks.at(-1)!)).toEqual(results);
  });
});
