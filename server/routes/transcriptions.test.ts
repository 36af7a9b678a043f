import { describe, expect, it } from 'vitest';
import { Random } from '../core/random.js';
import { AUDIO_FIXTURES, uploadBytes, uploadFixture, WIDE_FILETYPES } from '../testing/audioFixtures.js';
import { DEMO_JP, DEMO_US, http, OTHER_US, userToken } from '../testing/http.js';
import {
  advance,
  DELAY,
  expectValidTask,
  externalUrl,
  keys,
  poll,
  submit,
  useTranscriptionServers,
} from '../testing/transcriptionKit.js';

const servers = useTranscriptionServers();
const { sim, start } = servers;

describe('submitting and polling', () => {
  it('answers PENDING with empty data, walks the statuses in order, then succeeds with a valid result', async () => {
    const sub = await submit(sim(), { file_url: externalUrl() });
    expect(sub.status).toBe(200);
    expect(sub.body).toEqual({ transcription_id: expect.any(String), status: 'PENDING', data: {} });
    const id = sub.body.transcription_id;
    const seen: string[] = [(await poll(sim(), id)).body.status];
    for (const step of [3000, 3500, 4000, 10_000]) {
      await advance(sim(), step);
      const r = await poll(sim(), id);
      expect(r.status).toBe(200);
      if (r.body.status !== 'SUCCESS') expect(r.body.data).toEqual({});
      seen.push(r.body.status);
    }
    expect(seen).toEqual(['PENDING', 'RECEIVED', 'STARTED', 'PROGRESS', 'SUCCESS']);
    const done = await poll(sim(), id);
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
      ids.push((await submit(sim(), { file_url: url, params: p })).body.transcription_id);
    await advance(sim(), DELAY);
    const [a, b, c] = await Promise.all(ids.map(async (id) => (await poll(sim(), id)).body.data));
    expect(b).toEqual(a);
    expect(a.language).toBe('en-GB');
    expect(c.text).toBe(a.text);
    expect(new Set(c.segments.map((s: { speaker: string }) => s.speaker))).toEqual(new Set(['Speaker 1']));
  });

  it('type-checks params and file_url, naming each bad field', async () => {
    const r = await submit(sim(), {
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
    expect((await submit(sim(), {})).status).toBe(422);
  });

  it('redirects the other trailing-slash spelling with 307, as a FastAPI backend does', async () => {
    const noSlash = await fetch(`${sim().api}/open/partner/ai/transcriptions`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...keys(DEMO_US), 'content-type': 'application/json' },
      body: JSON.stringify({ file_url: externalUrl() }),
    });
    expect(noSlash.status).toBe(307);
    expect(noSlash.headers.get('location')).toBe(`${sim().api}/open/partner/ai/transcriptions/`);
    // Seen without following the redirect (curl -s), the answer says which path to use.
    expect(noSlash.headers.get('x-sim-warning')).toMatch(
      /transcriptions\/ is the path \(with the trailing slash\)/,
    );
    expect(await noSlash.json()).toMatchObject({
      detail: 'TRAILING_SLASH_REDIRECT',
      location: `${sim().api}/open/partner/ai/transcriptions/`,
    });
    // A client that follows redirects (fetch does, keeping method and body) gets the task.
    const followed = await http('POST', `${sim().api}/open/partner/ai/transcriptions`, {
      headers: keys(DEMO_US),
      json: { file_url: externalUrl() },
    });
    expect(followed.body.status).toBe('PENDING');
    const id = followed.body.transcription_id;
    const slash = await fetch(`${sim().apiJp}/open/partner/ai/transcriptions/${id}/?x=1`, {
      redirect: 'manual',
    });
    expect(slash.status).toBe(307);
    expect(slash.headers.get('location')).toBe(`${sim().apiJp}/open/partner/ai/transcriptions/${id}?x=1`);
  });
});

describe('credentials and ownership', () => {
  it('refuses a missing or wrong client id or api key on both operations', async () => {
    const id = (await submit(sim(), { file_url: externalUrl() })).body.transcription_id;
    const bad: Record<string, string>[] = [
      {},
      { 'x-client-id': DEMO_US.client_id },
      { 'x-client-api-key': DEMO_US.api_key },
      { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': 'wrong-key' },
      { 'x-client-id': 'nobody', 'x-client-api-key': DEMO_US.api_key },
      { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.secret_key },
    ];
    for (const headers of bad) {
      const post = await http('POST', `${sim().api}/open/partner/ai/transcriptions/`, {
        headers,
        json: { file_url: externalUrl() },
      });
      const get = await http('GET', `${sim().api}/open/partner/ai/transcriptions/${id}`, { headers });
      for (const r of [post, get]) {
        expect(r.status, JSON.stringify(headers)).toBe(401);
        expect(r.text).not.toContain('transcription_id');
      }
    }
  });

  it('answers an unknown client id and a wrong api key alike: no telling which ids exist', async () => {
    const answers = [];
    for (const headers of [
      { 'x-client-id': 'nobody', 'x-client-api-key': DEMO_US.api_key },
      { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': 'wrong-key' },
      { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.secret_key },
    ]) {
      const r = await http('POST', `${sim().api}/open/partner/ai/transcriptions/`, {
        headers,
        json: { file_url: externalUrl() },
      });
      answers.push([r.status, r.body]);
    }
    expect(answers[0]).toEqual([401, { detail: 'CLIENT_NOT_FOUND', message: expect.any(String) }]);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it("says where the app lives only to the right key of the other region's app", async () => {
    const send = (headers: Record<string, string>) =>
      http<{ detail: string; message: string }>('POST', `${sim().api}/open/partner/ai/transcriptions/`, {
        headers,
        json: { file_url: externalUrl() },
      });
    const unknown = await send({ 'x-client-id': 'nobody', 'x-client-api-key': DEMO_JP.api_key });
    const wrong = await send({ 'x-client-id': DEMO_JP.client_id, 'x-client-api-key': 'wrong-key' });
    expect([wrong.status, wrong.body]).toEqual([unknown.status, unknown.body]);
    const proven = await send({ 'x-client-id': DEMO_JP.client_id, 'x-client-api-key': DEMO_JP.api_key });
    expect(proven.status).toBe(401);
    expect(proven.body.detail).toBe('CLIENT_NOT_FOUND');
    expect(proven.body.message).toContain('exists in the JP region');
    expect(proven.body.message).toContain('/jp/developer/api');
  });

  it("answers 404 with a JSON error for another app's task and for an unknown id", async () => {
    const id = (await submit(sim(), { file_url: externalUrl() })).body.transcription_id;
    for (const r of [await poll(sim(), id, OTHER_US), await poll(sim(), 'no-such-task')]) {
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ detail: 'TRANSCRIPTION_NOT_FOUND', message: expect.any(String) });
    }
    expect((await poll(sim(), id)).status).toBe(200);
  });
});

describe('audio on the simulator storage', () => {
  it.each(Object.values(AUDIO_FIXTURES))('reads the real duration of $file (within 0.1 s)', async (f) => {
    const { user } = await userToken(sim().api, DEMO_US);
    const file = await uploadFixture(sim().api, user, f);
    const id = (await submit(sim(), { file_url: file.DownloadUrl })).body.transcription_id;
    await advance(sim(), DELAY);
    const r = await poll(sim(), id);
    expect(r.body.status).toBe('SUCCESS');
    expectValidTask(r.body);
    expect(Math.abs(r.body.data.duration - f.duration)).toBeLessThan(0.1);
    // Same bytes uploaded again (new file id, new URL): same transcript, seeded by the MD5.
    const again = await uploadFixture(sim().api, user, f);
    const id2 = (await submit(sim(), { file_url: again.DownloadUrl })).body.transcription_id;
    await advance(sim(), DELAY);
    expect((await poll(sim(), id2)).body.data).toEqual(r.body.data);
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

    const fresh = await uploadFixture(s.api, user, AUDIO_FIXTURES.mp3);
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

  it('judges any URL on its own storage host as storage: unsigned or tampered ones fail, never pass as audio elsewhere', async () => {
    const s = await start({ transcriptionDelay: DELAY });
    const { user } = await userToken(s.api, DEMO_US);
    const file = await uploadFixture(s.api, user, AUDIO_FIXTURES.mp3);
    const url = new URL(file.DownloadUrl);
    const bare = `${url.origin}${url.pathname}`;
    const loopback = bare.replace('127.0.0.1', 'localhost');
    const tampered = new URL(file.DownloadUrl);
    tampered.searchParams.set('X-Amz-Expires', '604800');
    const recased = `${url.origin}${url.pathname.replace('/files/', '/FILES/')}${url.search}`;
    const noCredential = new URL(file.DownloadUrl);
    noCredential.searchParams.delete('X-Amz-Credential');
    const urls = [
      bare,
      loopback,
      tampered.toString(),
      recased,
      noCredential.toString(),
      `${url.origin}/storage/nothing`,
    ];
    const ids: string[] = [];
    for (const file_url of urls) ids.push((await submit(s, { file_url })).body.transcription_id);
    const good = (await submit(s, { file_url: file.DownloadUrl })).body.transcription_id;
    await advance(s, DELAY);
    for (const [i, id] of ids.entries()) {
      const r = await poll(s, id);
      expect(r.body, urls[i]).toMatchObject({ status: 'FAILURE', data: {} });
      expect(r.body.message, urls[i]).toMatch(/^The audio file could not be downloaded: /);
    }
    expect((await poll(s, good)).body.status).toBe('SUCCESS');
  });

  it('fails random bytes uploaded as .mp3, .wav and .m4a, naming no path, file id or URL', async () => {
    const s = await start({ transcriptionDelay: DELAY, uploadFiletypes: WIDE_FILETYPES });
    const { user } = await userToken(s.api, DEMO_US);
    const random = new Random('noise-upload');
    const ids: [string, string, string][] = [];
    for (const filetype of ['mp3', 'wav', 'm4a']) {
      const file = await uploadBytes(s.api, user, random.bytes(48_000), filetype);
      ids.push([
        (await submit(s, { file_url: file.DownloadUrl })).body.transcription_id,
        file.FileId,
        filetype,
      ]);
    }
    await advance(s, DELAY);
    for (const [id, fileId, filetype] of ids) {
      const r = await poll(s, id);
      expect(r.body, filetype).toMatchObject({ status: 'FAILURE', data: {} });
      expect(r.body.message).toMatch(/^The audio file could not be decoded/);
      expect(r.body.message).not.toContain(fileId);
      expect(r.body.message).not.toMatch(/\/(tmp|var|home|storage|files|blobs)\b|https?:/);
    }
  });
});
