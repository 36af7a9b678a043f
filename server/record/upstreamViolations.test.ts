import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../embed/startSimulator.js';
import { compareRun } from '../testing/compareRun.js';
import { DEMO_US } from '../testing/http.js';
import { mistakesFlow } from '../testing/mistakesFlow.js';

/**
 * An upstream that answers outside openapi.yaml (a simulator told to drop `expires_in` from
 * its token answers): the recorder finds it as the answer passes, the HAR entry says so, and
 * compare lists it in its own section, failing with --fail-on-violation.
 */
describe('record mode holds the upstream to the spec', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'psim-violations-'));
    const upstream = await startSimulator({ config: { breakResponse: 'getPartnerToken:expires_in' } });
    try {
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

  it('the one answer outside the spec carries _violations in its entry; the others none', async () => {
    const { log } = JSON.parse(await readFile(file, 'utf8')) as {
      log: { entries: { _operation: string; response: { status: number }; _violations?: string[] }[] };
    };
    const flagged = log.entries.filter((e) => e._violations);
    expect(flagged.map((e) => `${e._operation} ${e.response.status}`)).toEqual(['getPartnerToken 200']);
    expect(flagged[0]!._violations!.join(' ')).toContain('expires_in');
  });

  it('compare lists it in its own section; --fail-on-violation exits 1', async () => {
    const md = await compareRun([file]);
    expect(md.code).toBe(0);
    expect(md.out).toMatch(
      /## Live answered outside the spec\n\n\| exchange \| operation \| status \| violation \|/,
    );
    expect(md.out).toMatch(/\| #2 \| getPartnerToken \| 200 \| .*expires_in.* \|/);
    const json = await compareRun([file, '--json', '--fail-on-violation']);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.out) as { violations: { exchange: string; operation: string }[] };
    expect(report.violations.map((v) => `${v.exchange} ${v.operation}`)).toEqual(['#2 getPartnerToken']);
  });
});
