import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../config.js';
import { apiSpec } from '../spec/openapi.js';
import { validatorsFor } from '../spec/validators.js';
import { AUDIO_FIXTURES, uploadBytes, uploadFixture } from '../testing/audioFixtures.js';
import { DEMO_US, http, OTHER_US, userToken } from '../testing/http.js';
import { startTestServer, type TestServer, tempDataDir } from '../testing/testServer.js';

// Real HTTP against a simulator whose transcriptions take exactly 20 s of simulated time:
// PENDING [0, 2 s), RECEIVED [2, 5 s), STARTED [5, 8 s), PROGRESS [8, 20 s), SUCCESS. The
// phases are wide so the real time a slow machine spends in between cannot skip one.
const DELAY = 20_000;
const keys = (app: { client_id: string; api_key: string }) => ({
  'x-client-id': app.client_id,
  'x-client-api-key': app.api_key,
});

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer({ transcriptionDelay: DELAY });
});
afterAll(() => sim.stop());

const extra: TestServer[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (extra.length) await extra.pop()!.stop();
  while (cleanups.length) await cleanups.pop()!();
});
async function start(overrides: Partial<Config>): Promise<TestServer> {
  const s = await startTestServer(overrides);
  extra.push(s);
  return s;
}

const submit = (s: TestServer, json: unknown, app = DEMO_US) =>
  http('POST', `${s.api}/open/partner/ai/transcriptions/`, { headers: keys(app), json });
const poll = (s: TestServer, id: string, app = DEMO_US) =>
  http('GET', `${s.api}/open/partner/ai/transcriptions/${id}`, { headers: keys(app) });
const advance = (s: TestServer, ms: number) => http('POST', `${s.admin}/clock`, { json: { advance_ms: ms } });
let n = 0;
const externalUrl = () => `https://example.com/audio/${++n}-${Date.now()}.mp3`;

function expectValidTask(body: unknown): void {
  const spec = apiSpec();
  expect(
    validatorsFor(spec).validateResponse(spec.get('getTranscription'), 200, 'application/json', body),
  ).toEqual([]);
}

describe('submitting and polling', () => {
  it('answers PENDING with empty data, walks the statuses in order, then succeeds with a valid result', async () => {
    const sub = await submit(sim, { file_url: externalUrl() });
    expect(sub.status).toBe(200);
    expect(sub.body).toEqual({ transcription_id: expect.any(String), status: 'PENDING', data: {} });
    const id = sub.body.transcription_id;
    const seen: string[] = [(await poll(sim, id)).body.status];
    for (const step of [3000, 3500, 4000, 10_000]) {
      await advance(sim, step);
      const r = await poll(sim, id);
      expect(r.status).toBe(200);
      if (r.body.status !== 'SUCCESS') expect(r.body.data).toEqual({});
      seen.push(r.body.status);
    }
    expect(seen).toEqual(['PENDING', 'RECEIVED', 'STARTED', 'PROGRESS', 'SUCCESS']);
    const done = await poll(sim, id);
    expectValidTask(done.body);
    const { text, segments, duration, language } = done.body.data;
    expect(text).toBe(segments.map((s: { text: string }) => s.text).join(' '));
    expect(language).toBe('en-US');
    expect(duration).toBeGreaterThanOrEqual(20); // the documented stand-in for URLs elsewhere
    expect(done.body.message).toBeUndefined();
  });

  it('gives the same result for the same audio and params, a different one for other params', async () => {
    const url = externalUrl();
    const params = { transcribe: { language: 'en-GB' }, diarization: { enabled: true } };
    const ids = [];
    for (const p of [params, params, { ...params, diarization: { enabled: false } }])
      ids.push((await submit(sim, { file_url: url, params: p })).body.transcription_id);
    await advance(sim, DELAY);
    const [a, b, c] = await Promise.all(ids.map(async (id) => (await poll(sim, id)).body.data));
    expect(b).toEqual(a);
    expect(a.language).toBe('en-GB');
    expect(c.text).toBe(a.text);
    expect(new Set(c.segments.map((s: { speaker: string }) => s.speaker))).toEqual(new Set(['Speaker 1']));
  });

  it('type-checks params and file_url, naming each bad field', async () => {
    const r = await submit(sim, {
      file_url: 'ftp://example.com/a.mp3',
      params: { transcribe: { model: 7 }, diarization: { enabled: 'yes' } },
    });
    expect(r.status).toBe(422);
    const locs = r.body.detail.map((d: { loc: string[] }) => d.loc.join('.'));
    expect(locs).toEqual(
      expect.arrayContaining([
        'body.file_url',
        'body.params.transcribe.model',
        'body.params.diarization.enabled',
      ]),
    );
    expect((await submit(sim, {})).status).toBe(422);
  });

  it('redirects the other trailing-slash spelling with 307, as a FastAPI backend does', async () => {
    const noSlash = await fetch(`${sim.api}/open/partner/ai/transcriptions`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...keys(DEMO_US), 'content-type': 'application/json' },
      body: JSON.stringify({ file_url: externalUrl() }),
    });
    expect(noSlash.status).toBe(307);
    expect(noSlash.headers.get('location')).toBe(`${sim.api}/open/partner/ai/transcriptions/`);
    // A client that follows redirects (fetch does, keeping method and body) gets the task.
    const followed = await http('POST', `${sim.api}/open/partner/ai/transcriptions`, {
      headers: keys(DEMO_US),
      json: { file_url: externalUrl() },
    });
    expect(followed.body.status).toBe('PENDING');
    const id = followed.body.transcription_id;
    const slash = await fetch(`${sim.apiJp}/open/partner/ai/transcriptions/${id}/?x=1`, {
      redirect: 'manual',
    });
    expect(slash.status).toBe(307);
    expect(slash.headers.get('location')).toBe(`${sim.apiJp}/open/partner/ai/transcriptions/${id}?x=1`);
  });
});

describe('credentials and ownership', () => {
  it('refuses a missing or wrong client id or api key on both operations', async () => {
    const id = (await submit(sim, { file_url: externalUrl() })).body.transcription_id;
    const bad: Record<string, string>[] = [
      {},
      { 'x-client-id': DEMO_US.client_id },
      { 'x-client-api-key': DEMO_US.api_key },
      { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': 'wrong-key' },
      { 'x-client-id': 'nobody', 'x-client-api-key': DEMO_US.api_key },
      { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.secret_key },
    ];
    for (const headers of bad) {
      const post = await http('POST', `${sim.api}/open/partner/ai/transcriptions/`, {
        headers,
        json: { file_url: externalUrl() },
      });
      const get = await http('GET', `${sim.api}/open/partner/ai/transcriptions/${id}`, { headers });
      for (const r of [post, get]) {
        expect(r.status, JSON.stringify(headers)).toBe(401);
        expect(r.text).not.toContain('transcription_id');
      }
    }
  });

  it("answers 404 with a JSON error for another app's task and for an unknown id", async () => {
    const id = (await submit(sim, { file_url: externalUrl() })).body.transcription_id;
    for (const r of [await poll(sim, id, OTHER_US), await poll(sim, 'no-such-task')]) {
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ detail: 'TRANSCRIPTION_NOT_FOUND', message: expect.any(String) });
    }
    expect((await poll(sim, id)).status).toBe(200);
  });
});

describe('audio on the simulator storage', () => {
  it.each(Object.values(AUDIO_FIXTURES))('reads the real duration of $file (within 0.1 s)', async (f) => {
    const { user } = await userToken(sim.api, DEMO_US);
    const file = await uploadFixture(sim.api, user, f);
    const id = (await submit(sim, { file_url: file.DownloadUrl })).body.transcription_id;
    await advance(sim, DELAY);
    const r = await poll(sim, id);
    expect(r.body.status).toBe('SUCCESS');
    expectValidTask(r.body);
    expect(Math.abs(r.body.data.duration - f.duration)).toBeLessThan(0.1);
    // Same bytes uploaded again (new file id, new URL): same transcript, seeded by the MD5.
    const again = await uploadFixture(sim.api, user, f);
    const id2 = (await submit(sim, { file_url: again.DownloadUrl })).body.transcription_id;
    await advance(sim, DELAY);
    expect((await poll(sim, id2)).body.data).toEqual(r.body.data);
  });

  it('fails a file that no longer exists, an expired URL and bytes that are not audio', async () => {
    const s = await start({ transcriptionDelay: DELAY });
    const { user } = await userToken(s.api, DEMO_US);
    const gone = await uploadFixture(s.api, user, AUDIO_FIXTURES.mp3);
    // Resetting the app removes its files; the signed URL stays well-formed but points nowhere.
    expect((await http('POST', `${s.admin}/reset`, { json: { client_id: DEMO_US.client_id } })).status).toBe(
      204,
    );
    const missing = (await submit(s, { file_url: gone.DownloadUrl })).body.transcription_id;

    const fresh = await uploadFixture(s.api, user, AUDIO_FIXTURES.wav);
    const text = await uploadBytes(s.api, user, Buffer.from('not audio, just text\n'.repeat(50)), 'mp3');
    const notAudio = (await submit(s, { file_url: text.DownloadUrl })).body.transcription_id;
    await advance(s, 25 * 3600_000); // past the 24 h lifetime of a DownloadUrl
    const expired = (await submit(s, { file_url: fresh.DownloadUrl })).body.transcription_id;
    await advance(s, DELAY);
    const messages: string[] = [];
    for (const id of [missing, expired, notAudio]) {
      const r = await poll(s, id);
      expect(r.body).toMatchObject({ status: 'FAILURE', data: {}, message: expect.any(String) });
      expectValidTask(r.body);
      messages.push(r.body.message);
    }
    expect(messages[0]).toBe('The audio file could not be downloaded: The specified key does not exist.');
    expect(messages[1]).toMatch(/could not be downloaded.*expired/i);
    expect(messages[2]).toMatch(/could not be decoded/);
  });
});

describe('result shape', () => {
  it('answers the live shape with --result-shape live', async () => {
    const s = await start({ transcriptionDelay: 0, resultShape: 'live' });
    const id = (await submit(s, { file_url: externalUrl() })).body.transcription_id;
    const r = await poll(s, id);
    expect(r.body.status).toBe('SUCCESS'); // instant mode: done at the first poll
    expectValidTask(r.body);
    expect(r.body.data.results[0]).toMatchObject({ speaker_id: 'SPEAKER_00', language: 'en' });
    expect(r.body.data.segments).toBeUndefined();
  });

  it("answers the live shape for an app whose result_shape is 'live', with embeddings on request", async () => {
    const app = (await http('POST', `${sim.admin}/apps`, { json: { result_shape: 'live' } })).body;
    const id = (
      await submit(
        sim,
        { file_url: externalUrl(), params: { diarization: { enabled: true, return_embedding: true } } },
        app,
      )
    ).body.transcription_id;
    await advance(sim, DELAY);
    const r = await poll(sim, id, app);
    expectValidTask(r.body);
    const speakers = new Set(r.body.data.results.map((x: { speaker_id: string }) => x.speaker_id));
    expect(Object.keys(r.body.data.embeddings).sort()).toEqual([...speakers].sort());
  });
});

describe('control API', () => {
  it('forces REVOKED, which sticks, and lists tasks with the pin', async () => {
    const id = (await submit(sim, { file_url: externalUrl() })).body.transcription_id;
    const forced = await http('PUT', `${sim.admin}/transcriptions/${id}`, { json: { status: 'REVOKED' } });
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ transcription_id: id, status: 'REVOKED', forced_status: 'REVOKED' });
    await advance(sim, 10 * DELAY);
    const r = await poll(sim, id);
    expect(r.body).toEqual({
      transcription_id: id,
      status: 'REVOKED',
      data: {},
      message: 'The task was revoked.',
    });
    const list = await http('GET', `${sim.admin}/transcriptions?client_id=${DEMO_US.client_id}`);
    expect(list.status).toBe(200);
    expect(list.body.find((t: { transcription_id: string }) => t.transcription_id === id)).toMatchObject({
      client_id: DEMO_US.client_id,
      status: 'REVOKED',
      forced_status: 'REVOKED',
    });
    expect(list.body.every((t: { client_id: string }) => t.client_id === DEMO_US.client_id)).toBe(true);
  });

  it('forces a never-ending task, a failure with a message, and an immediate success', async () => {
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push((await submit(sim, { file_url: externalUrl() })).body.transcription_id);
    const force = (id: string, json: unknown) => http('PUT', `${sim.admin}/transcriptions/${id}`, { json });
    await force(ids[0]!, { status: 'PROGRESS' });
    await force(ids[1]!, { status: 'FAILURE', message: 'The audio file could not be decoded.' });
    await force(ids[2]!, { status: 'SUCCESS' });
    const success = await poll(sim, ids[2]!);
    expect(success.body.status).toBe('SUCCESS');
    expectValidTask(success.body);
    await advance(sim, 100 * DELAY);
    expect((await poll(sim, ids[0]!)).body).toEqual({
      transcription_id: ids[0],
      status: 'PROGRESS',
      data: {},
    });
    expect((await poll(sim, ids[1]!)).body.message).toBe('The audio file could not be decoded.');
    expect((await force('nope', { status: 'FAILURE' })).status).toBe(404);
    expect((await force(ids[0]!, { status: 'DONE' })).status).toBe(422);
  });
});

describe('restarts', () => {
  it('resumes a job mid-way after a restart with the same data folder', async () => {
    const { dir, cleanup } = await tempDataDir();
    cleanups.push(cleanup);
    const a = await start({ inMemory: false, dataDir: dir, transcriptionDelay: DELAY });
    const { user } = await userToken(a.api, DEMO_US);
    const file = await uploadFixture(a.api, user, AUDIO_FIXTURES.wav);
    const id = (await submit(a, { file_url: file.DownloadUrl })).body.transcription_id;
    await advance(a, 10_000);
    expect((await poll(a, id)).body.status).toBe('PROGRESS');
    await a.stop();
    extra.pop();

    const b = await start({ inMemory: false, dataDir: dir, transcriptionDelay: DELAY });
    expect((await poll(b, id)).body.status).toBe('PROGRESS');
    await advance(b, 10_000);
    const r = await poll(b, id);
    expect(r.body.status).toBe('SUCCESS');
    expect(Math.abs(r.body.data.duration - AUDIO_FIXTURES.wav.duration)).toBeLessThan(0.1);
  });
});
