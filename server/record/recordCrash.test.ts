import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimulatorHandle, startSimulator } from '../embed/startSimulator.js';
import { basicAuth } from '../testing/http.js';
import { scaledBudget } from '../testing/scaledBudget.js';
import { spawnServe } from '../testing/serveChild.js';
import { sourceEntry } from '../testing/sourceBuild.js';

/**
 * A recorder killed mid-session (SIGKILL: no handler runs) leaves a HAR file that parses and
 * holds every exchange a client was answered: each entry is on disk before its answer leaves.
 */
let upstream: SimulatorHandle;
let dir: string;
let entry: string;

beforeAll(async () => {
  [upstream, dir, entry] = await Promise.all([
    startSimulator(),
    mkdtemp(join(tmpdir(), 'psim-record-crash-')),
    sourceEntry('cli'),
  ]);
}, 120_000);

afterAll(async () => {
  await upstream?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('serve --record, killed', () => {
  it('loses no answered exchange and leaves valid HAR', async () => {
    const child = await spawnServe(entry, [
      '--port',
      '0',
      '--in-memory',
      '--log-level',
      'silent',
      '--record',
      dir,
      '--upstream',
      upstream.url,
    ]);
    let answered = 0;
    const send = async () => {
      const res = await fetch(`${child.url}/developer/api/oauth/partner/access-token`, {
        method: 'POST',
        headers: basicAuth('demo-client-us', 'demo-secret-us-0000'),
      });
      await res.arrayBuffer();
      if (res.status === 200) answered++;
    };
    // Requests keep coming while the process is killed; some are cut, the answered are counted.
    const load = Promise.allSettled(
      Array.from({ length: 4 }, async () => {
        for (let i = 0; i < 50; i++) await send();
      }),
    );
    const deadline = Date.now() + scaledBudget(20_000);
    while (answered < 15 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(answered).toBeGreaterThanOrEqual(15);
    child.proc.kill('SIGKILL');
    await child.exited;
    await load;
    const [name] = await readdir(dir);
    const har = JSON.parse(await readFile(join(dir, name!), 'utf8'));
    expect(har.log.version).toBe('1.2');
    expect(har.log.entries.length).toBeGreaterThanOrEqual(answered);
    expect(har.log.entries.every((e: { response: { status: number } }) => e.response.status === 200)).toBe(
      true,
    );
  }, 60_000);
});
