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
/** The transcription's length on the recorded upstream and on the replay's target. */
const TASK_MS = 2400;

async function compareJson(file: string, ...args: string[]): Promise<DriftReport> {
  const { code, out } = await compareRun([file, '--json', ...args]);
  expect(code).toBe(0);
  return JSON.parse(out) as DriftReport;
}

describe('compare: the simulator against recordings of itself', () => {
  it('a recording of the README walkthrough, made against the simulator, compares clean', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'psim-walkthrough-'));
    // A recording for fixtures/recordings/ keeps the default timing, as `compare`'s own
    // simulator has it. Otherwise the task takes 2.4 s on both sides (not ~4.2 s): the test
    // waits less, and the replay's target, another simulator, matches the upstream.
    const fixture = process.env.RECORD_FIXTURES === '1';
    const timing = fixture ? {} : { transcriptionDelay: TASK_MS };
    const upstream = await startSimulator({ config: timing });
    const target = fixture ? undefined : await startSimulator({ config: timing });
    try {
      const recorder = await startSimulator({ config: { record: dir, upstream: upstream.url } });
      try {
        // Polls land far from the one change of shape (SUCCESS brings the result: 2.4 s, or
        // ~4.2 s by default), so the forwarding's jitter cannot tip one poll over it in one
        // run and not the other: 0.8 s either side.
        await walkthrough({
          root: recorder.url,
          app: DEMO,
          userId: 'demo-user-0001',
          pollMs: fixture ? 2500 : (TASK_MS * 2) / 3,
        });
      } finally {
        await recorder.stop();
      }
      const file = join(dir, (await readdir(dir))[0]!);
      const report = await compareJson(file, ...(target ? ['--target', target.url] : []));
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
      await target?.stop();
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
