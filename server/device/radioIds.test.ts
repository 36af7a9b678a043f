import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, DEMO_US, http, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// A seeded instance (what CI runs with) stays repeatable, yet every recorder has its own
// radio id, and a connect by uuid reaches the recorder that was scanned.

const SERIALS = ['8810RADIO0000001', '8810RADIO0000002', '8820RADIO0000003', '8820RADIO0000004'];

async function radioIds(sim: TestServer): Promise<string[]> {
  const ids: string[] = [];
  for (const sn of SERIALS) {
    const r = await http('POST', `${sim.admin}/recorders/${sn}/arrange`, { json: { case: 'classic_lock' } });
    expect(r.status, r.text).toBe(200);
    ids.push(r.body.recorder.uuid);
  }
  return ids;
}

describe('radio ids on a --seed instance', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    [a, b] = await Promise.all([startTestServer({ seed: '1' }), startTestServer({ seed: '1' })]);
  });
  afterAll(async () => {
    await Promise.all([a.stop(), b.stop()]);
  });

  it('differ per recorder, repeat per seed, and change with each arrangement', async () => {
    const first = await radioIds(a);
    expect(new Set(first).size).toBe(SERIALS.length);
    expect(await radioIds(b)).toEqual(first);
    const again = await radioIds(a);
    for (const [i, id] of again.entries()) expect(id).not.toBe(first[i]);
  });

  it('arranged lock ids differ per recorder too', async () => {
    const locked = new Set<string>();
    for (const sn of SERIALS) {
      const r = await http('POST', `${a.admin}/recorders/${sn}/arrange`, { json: { case: 'classic_lock' } });
      locked.add(r.body.locked_to);
    }
    expect(locked.size).toBe(SERIALS.length);
  });

  it('a connect by the scanned uuid reaches that recorder; a taken uuid cannot be set', async () => {
    await radioIds(a);
    const token = (await userToken(a.api, DEMO_US, 'radio-user')).user;
    const created = await http('POST', `${a.url}/__device/phones`, {
      headers: bearer(token),
      json: { platform: 'android', timing: 'instant' },
    });
    const phone = `${a.url}/__device/phones/${created.body.phone_id}`;
    const scan = await http('POST', `${phone}/scan`, { json: {} });
    const target = scan.body.devices.find((d: { serialNumber: string }) => d.serialNumber === SERIALS[2]);
    const c = await http('POST', `${phone}/connect`, { json: { uuid: target.uuid } });
    expect(c.status, c.text).toBe(202);
    expect(c.body.sn).toBe(SERIALS[2]);
    const taken = await http('PUT', `${a.admin}/recorders/${SERIALS[0]}`, { json: { uuid: target.uuid } });
    expect(taken.status).toBe(422);
    expect(taken.text).toContain(SERIALS[2]);
  });
});
