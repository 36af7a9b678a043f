import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftReport } from '../contract/drift.js';
import { startSimulator } from '../embed/startSimulator.js';
import { compareRun } from '../testing/compareRun.js';
import { DEMO_US } from '../testing/http.js';
import { startLoopbackGateway } from '../testing/loopbackGateway.js';
import { mistakesFlow } from '../testing/mistakesFlow.js';

/**
 * One difference of field type, injected in the upstream's answer (a number answered as a
 * string in one field of one answer), is the whole report: no other exchange drifts with it
 * (carried values, credentials and timing replay as recorded around it), and the one drift
 * names the field and both types.
 */
describe('compare: one injected field-type difference is reported alone', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'psim-typedrift-'));
    const upstream = await startSimulator();
    // The partner token's answer gives expires_in as a string ("86400"), nothing else changed.
    const gateway = await startLoopbackGateway(upstream.url, {
      answer: (req, status, body) => {
        if (status !== 200 || !/\/oauth\/partner\/access-token$/.test(req.path)) return body;
        const json = JSON.parse(body.toString()) as Record<string, unknown>;
        return Buffer.from(JSON.stringify({ ...json, expires_in: String(json.expires_in) }));
      },
    });
    try {
      const recorder = await startSimulator({ config: { record: dir, upstream: gateway.url } });
      try {
        await mistakesFlow(recorder.url, DEMO_US);
      } finally {
        await recorder.stop();
      }
    } finally {
      await gateway.stop();
      await upstream.stop();
    }
    file = join(dir, (await readdir(dir))[0]!);
  }, 30_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('exactly one drift: the field, recorded string, the simulator number', async () => {
    const har = await readFile(file, 'utf8');
    expect(har).toMatch(/\\"expires_in\\":\\"\d+\\"/);
    const { code, out } = await compareRun([file, '--json', '--fail-on-drift']);
    const report = JSON.parse(out) as DriftReport;
    expect(report.drift).toEqual([
      {
        operation: 'getPartnerToken',
        kind: 'type',
        status: 200,
        field: '/expires_in',
        main: 'string',
        compare: 'number',
        scenario: '#2',
      },
    ]);
    expect(code).toBe(1);
  });
});
