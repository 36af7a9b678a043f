import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DriftReport } from '../contract/drift.js';
import { fromRoot } from '../core/root.js';
import { startSimulator } from '../embed/startSimulator.js';
import { compareRun } from '../testing/compareRun.js';
import { walkthrough } from '../testing/walkthroughFlow.js';

const DEMO = {
  client_id: 'demo-client-us',
  secret_key: 'demo-secret-us-0000',
  api_key: 'demo-api-key-us-0000',
};
const RECORDINGS = fromRoot('fixtures', 'recordings');

async function compareJson(file: string): Promise<DriftReport> {
  const { code, out } = await compareRun([file, '--json']);
  expect(code).toBe(0);
  return JSON.parse(out) as DriftReport;
}

describe('compare: the simulator against recordings of itself', () => {
  it('a recording of the README walkthrough, made against the simulator, compares clean', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'psim-walkthrough-'));
    const upstream = await startSimulator();
    try {
      const recorder = await startSimulator({ config: { record: dir, upstream: upstream.url } });
      try {
        // Polls 2.5 s apart land far from a status change (the task takes ~4.2 s), so the
        // forwarding's jitter cannot tip one poll over a boundary in one run and not the other.
        await walkthrough({ root: recorder.url, app: DEMO, userId: 'demo-user-0001', pollMs: 2500 });
      } finally {
        await recorder.stop();
      }
      const file = join(dir, (await readdir(dir))[0]!);
      const report = await compareJson(file);
      expect(report.drift).toEqual([]);
      expect(Object.keys(report.compared)).toEqual(
        expect.arrayContaining([
          'getPartnerToken',
          'getDeviceBinding',
          'bindDevice',
          'uploadPart',
          'completeUpload',
          'getTranscription',
        ]),
      );
      // `RECORD_FIXTURES=1 npx vitest run server/compare/walkthrough.test.ts` refreshes the
      // recording CI holds the simulator to (fixtures/recordings/).
      if (process.env.RECORD_FIXTURES === '1') {
        await mkdir(RECORDINGS, { recursive: true });
        await copyFile(file, join(RECORDINGS, 'readme-walkthrough.har'));
      }
    } finally {
      await upstream.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('every recording in fixtures/recordings/ still compares clean', async () => {
    const files = (await readdir(RECORDINGS)).filter((f) => f.endsWith('.har'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const report = await compareJson(join(RECORDINGS, f));
      expect(report.drift, `${f}: the simulator no longer answers as recorded`).toEqual([]);
    }
  }, 60_000);
});
