import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Store } from '../store/store.js';
import { useContractRuns } from '../testing/contractRuns.js';
import { http } from '../testing/http.js';
import { sourceSuite } from '../testing/sourceBuild.js';
import { spawnTracked } from '../testing/spawnTracked.js';
import { startTestServer } from '../testing/testServer.js';
import { runContract } from './command.js';

// Many CI jobs, one shared simulator: parallel `contract --target url` runs against a plain
// instance must each pass every scenario (none skipped for want of something on the
// instance), and when they are done the instance must hold exactly what it held before they
// started. HTTPS instances: net/httpsContract.test.ts.

const RUNS = 8;

interface Result {
  name: string;
  state: string;
  reason?: string;
}
const { cleanEnv, reportsDir, onCleanup } = useContractRuns();

/** Every stored record of every collection (the instance record aside: it counts starts). */
async function snapshot(store: Store): Promise<Record<string, unknown[]>> {
  const names = ['apps', 'clocks', 'devices', 'faults', 'refreshTokens', 'uploads', 'uploadParts', 'files'];
  const out: Record<string, unknown[]> = {};
  for (const n of [...names, 'transcriptions']) {
    const mirrored = ['apps', 'clocks', 'faults'].includes(n);
    out[n] = await (mirrored ? store.mirrored(n) : store.collection(n)).list();
  }
  return out;
}

describe('parallel contract runs against one simulator', () => {
  it(`${RUNS} runs at once all pass every scenario and leave no trace`, { timeout: 300_000 }, async () => {
    const sim = await startTestServer({ transcriptionDelay: 0 });
    onCleanup(() => sim.stop());
    const store = sim.services.deps.store;
    const before = await snapshot(store);
    const clockBefore = (await http('GET', `${sim.admin}/clock`)).body;

    const runs = Array.from({ length: RUNS }, async () => {
      const dir = await reportsDir();
      let out = '';
      const code = await runContract(['--target', 'url', '--base-url', sim.url, '--reports-dir', dir], {
        suite: await sourceSuite(),
        spawn: spawnTracked,
        env: cleanEnv(),
        onOutput: (s) => {
          out += s;
        },
      });
      const summary = await readFile(join(dir, 'contract-summary.md'), 'utf8').catch(() => out.slice(-4000));
      const results = await readFile(join(dir, 'contract-results.json'), 'utf8')
        .then((text) => (JSON.parse(text) as { results: Result[] }).results)
        .catch(() => []);
      return { code, summary, failed: summary.slice(summary.indexOf('## Failed')), results };
    });
    const done = await Promise.all(runs);
    done.forEach((r, i) => {
      expect(r.code, `run ${i}:\n${r.failed.slice(0, 4000)}`).toBe(0);
      expect(r.summary).toContain(sim.url);
      expect(r.results.length).toBeGreaterThanOrEqual(48);
      for (const x of r.results) expect(x.state, `run ${i}: ${x.name}: ${x.reason}`).toBe('passed');
    });

    expect(await snapshot(store)).toEqual(before);
    const clockAfter = (await http('GET', `${sim.admin}/clock`)).body;
    expect(Math.abs(clockAfter.offset_ms - clockBefore.offset_ms)).toBeLessThan(5_000);
    expect(clockAfter.frozen).toBe(clockBefore.frozen);
  });
});
