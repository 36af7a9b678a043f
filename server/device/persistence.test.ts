import { describe, expect, it } from 'vitest';
import { bearer, DEMO_US, http, OTHER_US, userToken } from '../testing/http.js';
import { PG_SKIP_REASON, testPgUrl, useTestDatabase } from '../testing/pgCluster.js';
import { startTestServer, type TestServer, tempDataDir } from '../testing/testServer.js';

// The device side is stored like everything else: it survives a restart on the file store and
// on PostgreSQL, a full reset forgets recorders and phones, a per-app reset only that app's phones.

const SN = '8810PERSIST0001';

/** Arrange a recorder with an uploaded recording and a connected phone; the phone's id. */
async function populate(sim: TestServer): Promise<string> {
  await http('POST', `${sim.admin}/recorders/${SN}/arrange`, { json: { case: 'never_paired' } });
  const bytes = Buffer.alloc(384 * 50);
  for (let i = 0; i < 50; i++) bytes.set([0xff, 0xfb, 0x94, 0xc4], i * 384);
  const added = await http('POST', `${sim.admin}/recorders/${SN}/recordings`, {
    json: { audio_base64: bytes.toString('base64'), format: 'mp3' },
  });
  expect(added.status, added.text).toBe(201);
  const { user } = await userToken(sim.api, DEMO_US, 'persist-user');
  const p = await http('POST', `${sim.url}/__device/phones`, {
    headers: bearer(user),
    json: { timing: 'instant' },
  });
  const id = p.body.phone_id;
  await http('POST', `${sim.url}/__device/phones/${id}/scan`, { json: {} });
  expect(
    (await http('POST', `${sim.url}/__device/phones/${id}/connect`, { json: { serialNumber: SN } })).body
      .outcome,
  ).toBe('paired');
  return id;
}

async function survives(a: TestServer, restart: () => Promise<TestServer>): Promise<void> {
  const id = await populate(a);
  const before = (await http('GET', `${a.admin}/recorders/${SN}`)).body;
  await a.stop();
  const b = await restart();
  try {
    expect((await http('GET', `${b.admin}/recorders/${SN}`)).body).toEqual(before);
    const phone = await http('GET', `${b.url}/__device/phones/${id}`);
    expect(phone.body).toMatchObject({ connected: true, connection: { sn: SN } });
    const files = (await http('GET', `${b.url}/__device/phones/${id}/recordings`)).body.files;
    const audio = await fetch(`${b.url}/__device/phones/${id}/recordings/${files[0].sessionId}/audio`);
    expect((await audio.arrayBuffer()).byteLength).toBe(384 * 50);
  } finally {
    await b.stop();
  }
}

describe('the device side is stored like everything else', () => {
  it('survives a restart on the file store', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      await survives(await startTestServer({ inMemory: false, dataDir: dir }), () =>
        startTestServer({ inMemory: false, dataDir: dir }),
      );
    } finally {
      await cleanup();
    }
  });

  it('forgets phones on a per-app reset (recorders stay) and everything on a full reset', async () => {
    const sim = await startTestServer();
    try {
      const id = await populate(sim);
      const { user } = await userToken(sim.api, OTHER_US, 'persist-other');
      const other = (await http('POST', `${sim.url}/__device/phones`, { headers: bearer(user), json: {} }))
        .body.phone_id;
      await http('POST', `${sim.admin}/reset`, { json: { client_id: DEMO_US.client_id } });
      expect((await http('GET', `${sim.url}/__device/phones/${id}`)).body.detail).toBe('PHONE_NOT_FOUND');
      expect((await http('GET', `${sim.url}/__device/phones/${other}`)).status).toBe(200);
      expect((await http('GET', `${sim.admin}/recorders/${SN}`)).status).toBe(200);
      await http('POST', `${sim.admin}/reset`);
      expect((await http('GET', `${sim.admin}/recorders/${SN}`)).body.detail).toBe('RECORDER_NOT_FOUND');
      expect((await http('GET', `${sim.url}/__device/phones/${other}`)).status).toBe(404);
    } finally {
      await sim.stop();
    }
  });
});

describe.skipIf(!testPgUrl)(`on PostgreSQL (${testPgUrl ? 'PARTNER_SIM_TEST_PG' : PG_SKIP_REASON})`, () => {
  const db = useTestDatabase();
  it('survives a restart on PostgreSQL', async () => {
    await survives(await startTestServer({ inMemory: false, store: db.url }), () =>
      startTestServer({ inMemory: false, store: db.url }),
    );
  });
});
