import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { silentMp3, uploadBytes } from '../testing/audioFixtures.js';
import { http, userToken } from '../testing/http.js';
import { type SpeechStub, STUB_SEGMENTS, startSpeechStub } from '../testing/speechStub.js';
import {
  advance,
  DELAY,
  expectValidTask,
  poll,
  submit,
  useTranscriptionServers,
} from '../testing/transcriptionKit.js';

const { sim } = useTranscriptionServers();
let stub: SpeechStub;
beforeAll(async () => {
  stub = await startSpeechStub();
});
afterAll(() => stub.close());

describe('an app with its own speech engine (control API `transcriber`)', () => {
  it("answers the engine's words through the partner API, in a valid task", async () => {
    const made = await http('POST', `${sim().admin}/apps`, {
      json: { transcriber: stub.url, result_shape: 'both' },
    });
    expect(made.status).toBe(201);
    expect(made.body.transcriber).toBe(stub.url);
    const app = made.body;
    const { user } = await userToken(sim().api, app);
    const file = await uploadBytes(sim().api, user, silentMp3(150), 'mp3');
    const id = (await submit(sim(), { file_url: file.DownloadUrl }, app)).body.transcription_id;
    await advance(sim(), DELAY);
    const answer = await vi.waitFor(
      async () => {
        const r = await poll(sim(), id, app);
        expect(r.body.status).toBe('SUCCESS');
        return r;
      },
      { timeout: 5000, interval: 25 },
    );
    const done = answer.body;
    expectValidTask(done);
    // The answer says which source spoke.
    expect(answer.headers.get('x-sim-transcript-source')).toBe('engine');
    expect(done.data.segments.map((s: { text: string }) => s.text)).toEqual(
      STUB_SEGMENTS.map((s) => s.text.trim()),
    );
    expect(done.data.results.map((s: { speaker_id: string }) => s.speaker_id)).toEqual(
      Array(3).fill('SPEAKER_00'),
    );
    expect(stub.calls).toHaveLength(1);
    // The demo apps have no engine: made-up text, and the engine is not asked.
    const plain = (await submit(sim(), { file_url: file.DownloadUrl })).body.transcription_id;
    await advance(sim(), DELAY);
    const madeUp = await poll(sim(), plain);
    expect(madeUp.body.status).toBe('SUCCESS');
    expect(madeUp.headers.get('x-sim-transcript-source')).toBe('generated');
    expect(stub.calls).toHaveLength(1);
  });

  it('refuses a transcriber that is neither an http(s) URL nor none, with 422', async () => {
    for (const transcriber of ['ftp://host/x', 'pocketsphinx', '']) {
      const r = await http('POST', `${sim().admin}/apps`, { json: { transcriber } });
      expect(r.status, transcriber).toBe(422);
      expect(JSON.stringify(r.body)).toContain('transcriber');
    }
  });
});
