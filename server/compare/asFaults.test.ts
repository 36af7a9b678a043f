import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../embed/startSimulator.js';
import { compareRun } from '../testing/compareRun.js';
import { DEMO_US } from '../testing/http.js';
import { mistakesFlow } from '../testing/mistakesFlow.js';

describe('compare --as-faults: rules only for what the simulator cannot explain', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'psim-asfaults-'));
    const upstream = await startSimulator();
    try {
      // One failure of the service itself beside the client's own mistakes: the unknown
      // serial's lookup meets a 503 the upstream was told to give.
      await upstream.control.call('createFault', {
        body: { operation: 'getDeviceBinding', status: 503, body: { detail: 'DOWN' }, times: 1 },
      });
      const recorder = await startSimulator({ config: { record: dir, upstream: upstream.url } });
      try {
        await mistakesFlow(recorder.url, DEMO_US);
      } finally {
        await recorder.stop();
      }
    } finally {
      await upstream.stop();
    }
    file = join(dir, (await readdir(dir))[0]!);
  }, 30_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('one rule, on stdout; every recorded failure skipped is said on stderr with why', async () => {
    const { code, out, err } = await compareRun([file, '--as-faults']);
    expect(code).toBe(0);
    const rules = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { operation: string; status: number });
    expect(rules).toEqual([expect.objectContaining({ operation: 'getDeviceBinding', status: 503 })]);
    expect(out).toContain('# Recording drift');
    expect(err).toMatch(/rule getDeviceBinding 503 x1: recorded 503 at #6, the target answered \d+/);
    expect(err).toMatch(/no rule for #1 getPartnerToken 401: the target answered 401 too/);
    expect(err).toMatch(/no rule for #3 createUserToken 422: the target answered 422 too/);
    expect(err).not.toMatch(/^\{/m);
  });

  it('--json carries the rules as the report\'s "faults"', async () => {
    const { out } = await compareRun([file, '--as-faults', '--json']);
    const report = JSON.parse(out) as { faults: { operation: string; id: string }[] };
    expect(report.faults.map((f) => f.operation)).toEqual(['getDeviceBinding']);
  });
});
