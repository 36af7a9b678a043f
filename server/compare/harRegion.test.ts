import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareRun } from '../testing/compareRun.js';
import { readRecording } from './har.js';

// A recording names the region it was made in (serve --record writes `_region`); compare makes
// its app there. EU and SG (opt-in, "Coming soon" on live) are read as themselves.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'partner-sim-har-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const entry = (region?: string) => ({
  startedDateTime: '2026-01-01T00:00:00.000Z',
  request: { method: 'POST', url: 'http://127.0.0.1:4010/developer/api/oauth/partner/access-token' },
  response: { status: 200 },
  ...(region ? { _region: region } : {}),
});

async function regionOf(log: Record<string, unknown>): Promise<string> {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.har`);
  await writeFile(file, JSON.stringify({ log }));
  return (await readRecording(file)).region;
}

describe('readRecording region', () => {
  it.each(['us', 'jp', 'eu', 'sg'])('reads a recording of region %s as that region', async (region) => {
    expect(await regionOf({ _region: region, entries: [entry()] })).toBe(region);
    expect(await regionOf({ entries: [entry(region)] })).toBe(region);
  });

  it('takes us when the recording names none, or a region it does not know', async () => {
    expect(await regionOf({ entries: [entry()] })).toBe('us');
    expect(await regionOf({ _region: 'cn', entries: [entry()] })).toBe('us');
  });
});

describe('compare --target sim and a recording of an opt-in region', () => {
  it('makes its app in SG on the in-process simulator (it serves every region)', async () => {
    const file = join(dir, 'sg.har');
    await writeFile(file, JSON.stringify({ log: { version: '1.2', _region: 'sg', entries: [] } }));
    const { code, err } = await compareRun([file, '--target', 'sim']);
    expect(err).not.toContain('REGION_NOT_ENABLED');
    expect(code).toBe(0);
  });
});
