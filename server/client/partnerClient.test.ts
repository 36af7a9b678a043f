import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIO_FIXTURES, readAudio } from '../testing/audioFixtures.js';
import { DEMO_US } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { PartnerApiError } from './http.js';
import { PartnerClient } from './partnerClient.js';
import { readTranscript } from './transcription.js';

// The typed client over real HTTP against a simulator: each operation it wraps, and the
// error it throws for an answer other than the documented success.

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer({ chunkSize: 8 * 1024, transcriptionDelay: 300 });
});
afterAll(() => sim.stop());

const client = (over: Partial<typeof DEMO_US> = {}) =>
  new PartnerClient({ api: sim.api, app: { ...DEMO_US, ...over }, userId: 'client-user-0001' });

describe('PartnerClient', () => {
  it('signs, binds and unbinds a new serial, the binding following each step', async () => {
    const c = client();
    const sn = '8810C0FFEE000001';
    await expect(c.binding(sn)).rejects.toMatchObject({ status: 404, code: 'DEVICE_NOT_FOUND' });
    expect((await c.sign(sn)).is_bind).toBeNull();
    expect(await c.binding(sn)).toEqual({ is_bind: null, bind_history: [] });
    const bound = await c.bind(sn);
    expect(bound).toMatchObject({ type: 'notepro', sn, is_bind: true });
    const me = bound.bind_history[0];
    expect(me).toMatch(/^client_user_/);
    expect(await c.unbind(sn)).toMatchObject({ is_bind: false, bind_history: [me] });
  });

  it('uploads in parallel parts, transcribes and polls to the fixture transcript', async () => {
    const c = client();
    const bytes = await readAudio(AUDIO_FIXTURES.mp3);
    const seen: number[] = [];
    const file = await c.upload(bytes, 'mp3', { onProgress: (p) => seen.push(p.sent) });
    expect(seen.at(-1)).toBe(bytes.length);
    expect(seen.length).toBe(Math.ceil(bytes.length / (8 * 1024)));
    const task = await c.transcribe(file.DownloadUrl);
    expect(task.status).toBe('PENDING');
    const statuses: string[] = [];
    const { task: done } = await c.poll(task.transcription_id, {
      deadlineMs: 30_000,
      backoff: { baseMs: 50, capMs: 200 },
      onStatus: (s) => statuses.push(s),
    });
    expect(statuses.at(-1)).toBe('SUCCESS');
    expect(readTranscript(done).text).toBe(
      "Let's review the upload flow: presigned URLs, then each part, then complete.",
    );
  });

  it('throws PartnerApiError naming the operation and code for bad credentials', async () => {
    const err = await client({ secret_key: 'wrong-secret-0000' })
      .userToken()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartnerApiError);
    expect(err).toMatchObject({ operation: 'getPartnerToken', status: 401 });
    const bad = await client({ api_key: 'wrong-key-0000' })
      .transcribe('https://example.com/a.mp3')
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({ operation: 'createTranscription', status: 401 });
    // A failed token exchange is not cached: with the secret fixed, the same client succeeds.
    const app = { ...DEMO_US, secret_key: 'wrong-secret-0000' };
    const c = new PartnerClient({ api: sim.api, app, userId: 'client-user-0001' });
    await expect(c.userToken()).rejects.toBeInstanceOf(PartnerApiError);
    app.secret_key = DEMO_US.secret_key;
    expect(await c.userToken()).toMatch(/^eyJ/);
  });
});
