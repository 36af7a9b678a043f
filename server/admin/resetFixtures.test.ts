import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../core/root.js';
import { http } from '../testing/http.js';
import { useTestServers } from '../testing/useTestServers.js';

// POST /__admin/reset checks every fixture before it wipes anything.

const servers = useTestServers();

async function editDevices(dir: string, edit: (list: Record<string, unknown>[]) => void): Promise<void> {
  const file = join(dir, 'devices.json');
  const list = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>[];
  edit(list);
  await writeFile(file, JSON.stringify(list));
}

describe('POST /__admin/reset with a broken fixture', () => {
  it('answers 422 naming file and field, and leaves the state as it was', async () => {
    const fixtures = await servers.tempDir();
    await cp(fromRoot('fixtures'), fixtures, { recursive: true });
    const s = await servers.start({ fixturesDir: fixtures });
    const admin = (method: string, path: string, json?: unknown) =>
      http(method, `${s.admin}${path}`, json === undefined ? {} : { json });
    // Arrange state the reset would wipe: an app, a device, a fault rule, a moved clock.
    expect((await admin('POST', '/apps', { client_id: 'arranged-app' })).status).toBe(201);
    expect((await admin('PUT', '/devices/8810ARRANGED01', { is_bind: false })).status).toBe(200);
    expect((await admin('POST', '/faults', { operation: 'getPartnerToken', status: 503 })).status).toBe(201);
    const clock = (await admin('POST', '/clock', { advance_ms: 3_600_000, freeze: true })).body;

    await editDevices(fixtures, (l) => {
      l[3]!.is_bind = 'maybe';
    });
    const r = await admin('POST', '/reset');
    expect(r.status, r.text).toBe(422);
    expect(r.body.detail).toContainEqual(
      expect.objectContaining({ loc: ['fixtures', 'devices.json', 3, 'is_bind'], input: 'maybe' }),
    );
    expect(r.text).not.toContain(fixtures);

    expect((await admin('GET', '/apps')).body.map((a: { client_id: string }) => a.client_id)).toContain(
      'arranged-app',
    );
    expect((await admin('GET', '/devices/8810ARRANGED01')).status).toBe(200);
    expect((await admin('GET', '/faults')).body).toHaveLength(1);
    // Frozen, the clock shows the same instant (its offset from real time grows meanwhile).
    expect((await admin('GET', '/clock')).body).toMatchObject({ now: clock.now, frozen: true });

    // Repaired, the same call resets.
    await editDevices(fixtures, (l) => {
      l[3]!.is_bind = true;
    });
    expect((await admin('POST', '/reset')).status).toBe(204);
    expect((await admin('GET', '/devices/8810ARRANGED01')).status).toBe(404);
    expect((await admin('GET', '/faults')).body).toEqual([]);
  });

  it('checks transcript sidecars before it wipes too: overlapping segments are a 422', async () => {
    const fixtures = await servers.tempDir();
    await cp(fromRoot('fixtures'), fixtures, { recursive: true });
    const s = await servers.start({ fixturesDir: fixtures });
    expect((await http('POST', `${s.admin}/apps`, { json: { client_id: 'arranged-app' } })).status).toBe(201);
    const sidecar = join(fixtures, 'audio', 'meeting.mp3.transcript.json');
    const t = JSON.parse(await readFile(sidecar, 'utf8'));
    t.segments.push({ ...t.segments[0], start: 1 }); // starts before the first one ends
    await writeFile(sidecar, JSON.stringify(t));
    const r = await http('POST', `${s.admin}/reset`);
    expect(r.status, r.text).toBe(422);
    expect(r.body.detail[0].loc).toEqual([
      'fixtures',
      'audio/meeting.mp3.transcript.json',
      'segments',
      1,
      'start',
    ]);
    const apps = (await http('GET', `${s.admin}/apps`)).body.map((a: { client_id: string }) => a.client_id);
    expect(apps).toContain('arranged-app');
  });
});
