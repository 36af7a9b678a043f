import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../index.js';
import { bearer, http, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { startReceiver } from '../testing/webhookReceiver.js';

// The device.* webhook events end to end: a phone of an app's user pairs, the control API
// presses record, the phone exports; a real receiver on loopback gets each event, signed.

let s: TestServer;
const receivers: Array<Awaited<ReturnType<typeof startReceiver>>> = [];
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
let n = 0;

beforeAll(async () => {
  s = await startTestServer({ webhookTimeoutMs: 500 });
});
afterAll(() => s.stop());
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

interface World {
  clientId: string;
  secret: string;
  rc: Awaited<ReturnType<typeof startReceiver>>;
  phone: string;
  sub: string;
  sn: string;
}

/** A new app (clock frozen), its endpoint for device events, a phone of its user, a recorder. */
async function world(): Promise<World> {
  const app = (await http('POST', `${s.admin}/apps`, { json: { client_id: `dev-ev-${++n}-${Date.now()}` } }))
    .body as { client_id: string; secret_key: string };
  await http('POST', `${s.admin}/clock`, {
    json: { client_id: app.client_id, now: new Date(T0).toISOString(), freeze: true },
  });
  const rc = await startReceiver();
  receivers.push(rc);
  const ep = await http('POST', `${s.admin}/apps/${app.client_id}/webhooks`, {
    json: {
      url: rc.url,
      events: [
        'device.connected',
        'device.disconnected',
        'device.recording_completed',
        'device.synced',
        'device.battery_low',
      ],
    },
  });
  expect(ep.status, ep.text).toBe(201);
  const token = (await userToken(s.api, app, 'device-events-user')).user;
  const ph = await http('POST', `${s.url}/__device/phones`, {
    headers: bearer(token),
    json: { timing: 'instant' },
  });
  expect(ph.status, ph.text).toBe(201);
  const sn = `8820DEVE${String(n).padStart(6, '0')}`;
  await http('POST', `${s.admin}/recorders/${sn}/arrange`, { json: { case: 'never_paired' } });
  return {
    clientId: app.client_id,
    secret: ep.body.secret,
    rc,
    phone: ph.body.phone_id,
    sub: ph.body.sub,
    sn,
  };
}

const on = (w: World, method: string, path: string, json?: unknown) =>
  http(method, `${s.url}/__device/phones/${w.phone}${path}`, json === undefined ? {} : { json });

async function pair(w: World) {
  await on(w, 'POST', '/scan', {});
  const c = await on(w, 'POST', '/connect', { serialNumber: w.sn });
  expect(c.body.outcome).toBe('paired');
}

/** The `k`-th delivery (1-based) the receiver got, its signature checked with the package's helper. */
async function nth(w: World, k: number) {
  const got = await w.rc.waitFor(k);
  const g = got[k - 1]!;
  expect(verifyWebhook({ secret: w.secret, body: g.body, headers: g.headers })).toEqual({ ok: true });
  return JSON.parse(g.body) as {
    id: string;
    event: string;
    created_at: string;
    data: Record<string, unknown>;
  };
}

/** Everything emitted so far sent: what the receiver got. */
async function settled(w: World) {
  await s.services.webhooks.tick();
  await s.services.webhooks.idle();
  return w.rc.got;
}

describe('device events', () => {
  it('sends device.connected when a handshake pairs and device.disconnected when it ends', async () => {
    const w = await world();
    await pair(w);
    const connected = await nth(w, 1);
    expect(connected).toMatchObject({
      event: 'device.connected',
      created_at: new Date(T0).toISOString(),
      data: { sn: w.sn, phone_id: w.phone, user: w.sub },
    });
    expect(connected.id).toMatch(/^evt_[0-9a-f]{24}$/);
    await on(w, 'POST', '/disconnect');
    const gone = await nth(w, 2);
    expect(gone).toMatchObject({ event: 'device.disconnected', data: { sn: w.sn, reason: 'disconnect' } });
    // A second pairing at the same frozen instant is its own event, with its own id.
    await pair(w);
    const again = await nth(w, 3);
    expect(again.event).toBe('device.connected');
    expect(new Set([connected.id, gone.id, again.id]).size).toBe(3);
    await on(w, 'POST', '/depair', { clear: false });
    expect((await nth(w, 4)).data).toMatchObject({ sn: w.sn, reason: 'depair' });
    // A refused handshake (the recorder now paired elsewhere) sends nothing.
    await http('PUT', `${s.admin}/recorders/${w.sn}`, {
      json: { paired_to: `client_user_${'1'.repeat(8)}-1111-1111-1111-111111111111` },
    });
    await on(w, 'POST', '/scan', {});
    expect((await on(w, 'POST', '/connect', { serialNumber: w.sn })).body.outcome).toBe('refused');
    expect(await settled(w)).toHaveLength(4);
  });

  it('sends device.recording_completed when record stops, and device.synced when the phone exports it', async () => {
    const w = await world();
    await pair(w);
    await nth(w, 1);
    const press = (json: unknown) => http('POST', `${s.admin}/recorders/${w.sn}/record`, { json });
    expect((await press({ action: 'start' })).status).toBe(200);
    expect((await press({ action: 'stop', duration_s: 12.5 })).status).toBe(200);
    const done = await nth(w, 2);
    expect(done).toMatchObject({
      event: 'device.recording_completed',
      data: { sn: w.sn, user: w.sub, recording: { duration_s: 12.5 } },
    });
    const sessionId = (done.data.recording as { session_id: number }).session_id;
    const audio = await on(w, 'GET', `/recordings/${sessionId}/audio`);
    expect(audio.status).toBe(200);
    const synced = await nth(w, 3);
    expect(synced).toMatchObject({
      event: 'device.synced',
      data: { sn: w.sn, phone_id: w.phone, recording: { session_id: sessionId } },
    });
    // The same recording exported again to the same phone is the same event: not sent twice.
    await on(w, 'GET', `/recordings/${sessionId}/audio`);
    expect(await settled(w)).toHaveLength(3);
  });

  it('sends device.battery_low when the battery is set under 15 %, once per crossing', async () => {
    const w = await world();
    await pair(w);
    await nth(w, 1);
    const battery = (level: number) =>
      http('PUT', `${s.admin}/recorders/${w.sn}`, { json: { paired_to: w.sub, battery: level } });
    expect((await battery(20)).status).toBe(200);
    expect((await battery(14)).status).toBe(200);
    expect((await nth(w, 2)).data).toEqual({ sn: w.sn, user: w.sub, battery: 14, threshold: 15 });
    await battery(9); // still low: no new event
    await battery(80);
    await battery(3);
    const second = await nth(w, 3);
    expect(second.data).toMatchObject({ battery: 3 });
    expect((await settled(w)).map((g) => JSON.parse(g.body).event)).toEqual([
      'device.connected',
      'device.battery_low',
      'device.battery_low',
    ]);
  });
});
