import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, DEMO_JP, DEMO_US, http, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// The device protocol over real HTTP (replies validated against device.openapi.yaml by the
// test server): bad input is a clear 4xx, timings follow the app's clock, recordings export
// honestly, record presses reach the connected phone.

let sim: TestServer;
let token: string;
let n = 0;
beforeAll(async () => {
  sim = await startTestServer();
  token = (await userToken(sim.api, DEMO_US, 'device-user-1')).user;
});
afterAll(() => sim.stop());

const dev = (path: string) => `${sim.url}/__device${path}`;
const fresh = () => `8820PROT${String(++n).padStart(6, '0')}`;
const arrange = (sn: string, kase: string) =>
  http('POST', `${sim.admin}/recorders/${sn}/arrange`, { json: { case: kase } });
async function phone(opts: Record<string, unknown> = { timing: 'instant' }): Promise<string> {
  const r = await http('POST', dev('/phones'), { headers: bearer(token), json: opts });
  expect(r.status, r.text).toBe(201);
  return r.body.phone_id;
}
const on = (id: string, method: string, path: string, json?: unknown) =>
  http(method, dev(`/phones/${id}${path}`), json === undefined ? {} : { json });
const events = async (id: string, after = 0) => (await on(id, 'GET', `/events?after=${after}`)).body;

async function connected(sn: string): Promise<string> {
  const id = await phone();
  await on(id, 'POST', '/scan', {});
  const c = await on(id, 'POST', '/connect', { serialNumber: sn });
  expect(c.body).toMatchObject({ outcome: 'paired', settled: true });
  return id;
}

describe('bad input is a clear 4xx', () => {
  it('refuses a missing, malformed, partner or other-region token when a phone is created', async () => {
    expect((await http('POST', dev('/phones'), { json: {} })).body.detail).toBe('MISSING_CREDENTIALS');
    expect((await http('POST', dev('/phones'), { headers: bearer('x.y.z'), json: {} })).body.detail).toBe(
      'INVALID_TOKEN',
    );
    const jp = (await userToken(sim.apiJp, DEMO_JP, 'device-user-jp')).user;
    const other = await http('POST', dev('/phones'), { headers: bearer(jp), json: {} });
    expect([other.status, other.body.detail]).toEqual([401, 'CLIENT_USER_NOT_FOUND']);
    const onJp = await http('POST', `${sim.url}/jp/__device/phones`, { headers: bearer(jp), json: {} });
    expect([onJp.status, onJp.body.region]).toEqual([201, 'jp']);
    const partner = (await userToken(sim.api, DEMO_US, 'device-user-1')).partner;
    expect((await http('POST', dev('/phones'), { headers: bearer(partner), json: {} })).status).toBe(403);
  });

  it('refuses a handshake without a scan, an unknown serial, an unknown phone and an empty target', async () => {
    const sn = fresh();
    await arrange(sn, 'never_paired');
    const id = await phone();
    const noScan = await on(id, 'POST', '/connect', { serialNumber: sn });
    expect([noScan.status, noScan.body.detail]).toEqual([404, 'UNKNOWN_DEVICE']);
    await on(id, 'POST', '/scan', {});
    const unknown = await on(id, 'POST', '/connect', { serialNumber: '8820FFFF000000' });
    expect([unknown.status, unknown.body.detail]).toEqual([404, 'UNKNOWN_DEVICE']);
    expect((await on(id, 'POST', '/connect', {})).status).toBe(422);
    expect((await on(id, 'POST', '/connect', { serialNumber: '999' })).status).toBe(422);
    expect((await on(`ph_${'0'.repeat(32)}`, 'GET', '')).body.detail).toBe('PHONE_NOT_FOUND');
    expect((await on('nope', 'GET', '')).status).toBe(422);
    expect((await on(id, 'GET', '/recordings')).body.detail).toBe('NOT_CONNECTED');
  });

  it('refuses the export of a missing session and a format it cannot produce', async () => {
    const sn = fresh();
    await arrange(sn, 'never_paired');
    await http('POST', `${sim.admin}/recorders/${sn}/recordings`, { json: { fixture: 'meeting.mp3' } });
    const id = await connected(sn);
    const missing = await on(id, 'GET', '/recordings/12345/audio');
    expect([missing.status, missing.body.detail]).toEqual([404, 'RECORDING_NOT_FOUND']);
    const [file] = (await on(id, 'GET', '/recordings')).body.files;
    const wav = await on(id, 'GET', `/recordings/${file.sessionId}/audio?format=wav`);
    expect([wav.status, wav.body.detail]).toEqual([406, 'FORMAT_UNAVAILABLE']);
    expect((await on(id, 'GET', `/recordings/${file.sessionId}/audio?format=flac`)).status).toBe(422);
    expect((await on(id, 'DELETE', '/recordings/12345')).body.detail).toBe('RECORDING_NOT_FOUND');
  });
});

describe('recordings', () => {
  it('exports a fixture byte for byte and generated silence in mp3, wav and pcm of its duration', async () => {
    const sn = fresh();
    await arrange(sn, 'never_paired');
    await http('POST', `${sim.admin}/recorders/${sn}/recordings`, {
      json: { fixture: 'hello.wav', scene: 1 },
    });
    await http('POST', `${sim.admin}/recorders/${sn}/recordings`, { json: { duration_s: 2.4 } });
    const id = await connected(sn);
    const { files } = (await on(id, 'GET', '/recordings')).body;
    // Oldest first: the fixture (4.695 s) started before the generated one (2.4 s); an
    // Android phone lists whole seconds, as both Android bridges compute them.
    expect(files.map((f: { duration: number }) => f.duration)).toEqual([4, 2]);
    const real = files.find((f: { duration: number }) => f.duration === 4)!;
    const gen = files.find((f: { duration: number }) => f.duration === 2)!;
    const res = await fetch(dev(`/phones/${id}/recordings/${real.sessionId}/audio?format=wav`));
    const { readFile } = await import('node:fs/promises');
    expect(Buffer.from(await res.arrayBuffer()).equals(await readFile('fixtures/audio/hello.wav'))).toBe(
      true,
    );
    const pcm = await fetch(dev(`/phones/${id}/recordings/${real.sessionId}/audio?format=pcm`));
    expect(pcm.headers.get('content-type')).toBe('application/octet-stream');
    // Listed at the recorder's Opus size (120 frames of 80 bytes), exported as 128 kbit/s mp3.
    expect(gen.size).toBe(9_600);
    const mp3 = await fetch(dev(`/phones/${id}/recordings/${gen.sessionId}/audio`));
    expect([mp3.status, mp3.headers.get('content-type'), (await mp3.arrayBuffer()).byteLength]).toEqual([
      200,
      'audio/mpeg',
      100 * 384,
    ]);
    const w = Buffer.from(
      await (await fetch(dev(`/phones/${id}/recordings/${gen.sessionId}/audio?format=wav`))).arrayBuffer(),
    );
    expect([w.toString('ascii', 0, 4), w.length]).toEqual(['RIFF', 44 + 2.4 * 16000 * 2]);
    expect((await on(id, 'DELETE', `/recordings/${gen.sessionId}`)).status).toBe(204);
    expect((await on(id, 'GET', '/recordings')).body.files).toHaveLength(1);
  });

  it('delivers record presses on the device to the connected phone, and lists the new file', async () => {
    const sn = fresh();
    await arrange(sn, 'never_paired');
    const id = await connected(sn);
    const press = (json: unknown) => http('POST', `${sim.admin}/recorders/${sn}/record`, { json });
    expect((await press({ action: 'start', scene: 1 })).body.recording).toMatchObject({ scene: 1 });
    expect((await press({ action: 'start' })).body.detail).toBe('ALREADY_RECORDING');
    expect((await press({ action: 'resume' })).body.detail).toBe('NOT_PAUSED');
    expect((await press({ action: 'pause' })).body.recording.paused_at).toEqual(expect.any(String));
    expect((await press({ action: 'pause' })).body.detail).toBe('ALREADY_PAUSED');
    expect((await press({ action: 'resume' })).body.recording.paused_at).toBeNull();
    const stopped = await press({ action: 'stop', duration_s: 30 });
    expect(stopped.body.recordings).toHaveLength(1);
    const evs = (await events(id)).events as Array<{ name: string; data: Record<string, unknown> }>;
    expect(evs.slice(-4).map((e) => e.name)).toEqual([
      'recordStart',
      'recordPause',
      'recordResume',
      'recordStop',
    ]);
    const [start, pause, resume] = evs.slice(-4).map((e) => e.data);
    expect(start).toMatchObject({ reason: 0, scene: 1 });
    expect(Object.keys(pause!).sort()).toEqual(['fileExist', 'fileSize', 'reason', 'sessionId']);
    expect(resume).toEqual({
      sessionId: start!.sessionId,
      start: start!.start,
      status: 0,
      scene: 1,
      startTime: start!.startTime,
    });
    expect((await on(id, 'GET', '/recordings')).body.files[0]).toMatchObject({ duration: 30, scenes: 1 });
    expect((await press({ action: 'stop' })).body.detail).toBe('NOT_RECORDING');
  });

  it('refuses to start a recording on low battery', async () => {
    const sn = fresh();
    await arrange(sn, 'battery_low');
    const r = await http('POST', `${sim.admin}/recorders/${sn}/record`, { json: { action: 'start' } });
    expect([r.status, r.body.detail]).toEqual([409, 'BATTERY_LOW']);
  });
});

describe('timing follows the app clock', () => {
  it('holds an Android lock refusal until the handshake timeout has passed on the clock', async () => {
    const sn = fresh();
    await arrange(sn, 'classic_lock');
    const id = await phone({ platform: 'android' });
    const scan = await on(id, 'POST', '/scan', { window_ms: 500 });
    expect(scan.body.devices.map((d: { serialNumber: string }) => d.serialNumber)).toContain(sn);
    await http('POST', `${sim.admin}/clock`, { json: { client_id: DEMO_US.client_id, advance_ms: 1000 } });
    const c = await on(id, 'POST', '/connect', { serialNumber: sn });
    expect(c.body).toMatchObject({ outcome: 'refused', reason: 'TOKEN_NOT_MARCH', settled: false });
    const before = await events(id);
    expect(before.events.map((e: { name: string }) => e.name)).not.toContain('connectFail');
    expect(Date.parse(before.next_at) - Date.parse(before.now)).toBeGreaterThan(9000);
    await http('POST', `${sim.admin}/clock`, { json: { client_id: DEMO_US.client_id, advance_ms: 10_001 } });
    const after = await events(id, before.cursor);
    expect(after.events.map((e: { name: string; data: unknown }) => [e.name, e.data])).toEqual([
      ['connectState', { connected: false, failed: true, state: 2 }],
      ['connectFail', { mac: c.body.uuid, reason: 'TOKEN_NOT_MARCH' }],
    ]);
    expect(after.next_at).toBeNull();
  });

  it("answers a connect made during an open scan window when settles_at says, not at the window's end", async () => {
    const sn = fresh();
    await arrange(sn, 'never_paired');
    const id = await phone({ platform: 'android' });
    await on(id, 'POST', '/scan', { window_ms: 30_000 });
    const c = await on(id, 'POST', '/connect', { serialNumber: sn });
    expect(c.body.outcome).toBe('paired');
    expect(Date.parse(c.body.settles_at) - Date.parse(c.body.started_at)).toBeLessThan(2000);
    await http('POST', `${sim.admin}/clock`, { json: { client_id: DEMO_US.client_id, advance_ms: 1500 } });
    const names = (await events(id)).events.map((e: { name: string }) => e.name);
    expect(names).toContain('bind');
    expect((await on(id, 'GET', '')).body).toMatchObject({ connected: true, scanning: false });
  });

  it('keep_scanning leaves the scan on: its events and the handshake come in time order', async () => {
    const advance = (ms: number) =>
      http('POST', `${sim.admin}/clock`, { json: { client_id: DEMO_US.client_id, advance_ms: ms } });
    const names = async (id: string) => (await events(id)).events.map((e: { name: string }) => e.name);
    // Paired: a 30 s window does not hold the ~1 s handshake back.
    const paired = fresh();
    await arrange(paired, 'never_paired');
    const a = await phone({ platform: 'android' });
    await on(a, 'POST', '/scan', { window_ms: 30_000 });
    expect(
      (await on(a, 'POST', '/connect', { serialNumber: paired, keep_scanning: true })).body.outcome,
    ).toBe('paired');
    await advance(1500);
    expect(await names(a)).toContain('bind');
    expect(await names(a)).not.toContain('scanTimeout');
    expect((await on(a, 'GET', '')).body).toMatchObject({ connected: true, scanning: true });
    // Refused: Android's 10 s handshake timeout ends after a 3 s window, so scanTimeout comes first.
    const locked = fresh();
    await arrange(locked, 'classic_lock');
    const b = await phone({ platform: 'android' });
    await on(b, 'POST', '/scan', { window_ms: 3000 });
    const c = await on(b, 'POST', '/connect', { serialNumber: locked, keep_scanning: true });
    expect(c.body).toMatchObject({ outcome: 'refused', reason: 'TOKEN_NOT_MARCH' });
    await advance(10_500);
    const after = (await names(b)).filter((n: string) => n !== 'scanResult');
    expect(after).toEqual(['scanTimeout', 'connectState', 'connectFail']);
    expect((await on(b, 'GET', '')).body).toMatchObject({ scanning: false });
  });

  it("settles a depair's pending link drop on disconnect: a quick reconnect is not refused", async () => {
    const sn = fresh();
    await arrange(sn, 'never_paired');
    const id = await phone({ platform: 'ios' });
    await on(id, 'POST', '/scan', { window_ms: 200 });
    await on(id, 'POST', '/connect', { serialNumber: sn });
    await http('POST', `${sim.admin}/clock`, { json: { client_id: DEMO_US.client_id, advance_ms: 1500 } });
    const paired = await events(id);
    const d = await on(id, 'POST', '/depair', { clear: false });
    await on(id, 'POST', '/disconnect');
    // The disconnect settles the depair at once: its result and the link's end are due now.
    const settled = await events(id, paired.cursor);
    expect(settled.events.map((e: { name: string; data: unknown }) => [e.name, e.data])).toEqual([
      ['depair', { status: 0 }],
      ['connectState', { connected: false, failed: false, state: 0 }],
    ]);
    await on(id, 'POST', '/scan', { window_ms: 200 });
    expect((await on(id, 'POST', '/connect', { uuid: d.body.uuid })).body.outcome).toBe('paired');
    await http('POST', `${sim.admin}/clock`, { json: { client_id: DEMO_US.client_id, advance_ms: 1500 } });
    const after = (await events(id, settled.cursor)).events as Array<{
      name: string;
      data: { state?: number };
    }>;
    // The reconnect hears its own link come up, and nothing of the old link after it.
    expect(after.filter((e) => e.name === 'connectState').map((e) => e.data.state)).toEqual([1]);
  });

  it('changes the radio id on depair, so the old uuid needs a rescan', async () => {
    const sn = fresh();
    await arrange(sn, 'never_paired');
    const id = await connected(sn);
    const old = (await on(id, 'GET', '')).body.connection.uuid;
    const d = await on(id, 'POST', '/depair', {});
    expect(d.body.uuid).not.toBe(old);
    const again = await on(id, 'POST', '/connect', { uuid: old });
    expect(again.body.detail).toBe('UNKNOWN_DEVICE');
    await on(id, 'POST', '/scan', {});
    expect((await on(id, 'POST', '/connect', { uuid: d.body.uuid })).body.outcome).toBe('paired');
  });
});
