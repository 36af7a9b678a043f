import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { md5hex } from '../client/steps.js';
import { fromRoot } from '../core/root.js';
import { AUDIO_FIXTURES, silentMp3, uploadBytes, uploadFixture } from '../testing/audioFixtures.js';
import { DEMO_US, http, userToken } from '../testing/http.js';
import type { TestServer } from '../testing/testServer.js';
import {
  advance,
  DELAY,
  expectValidTask,
  poll,
  submit,
  useTranscriptionServers,
} from '../testing/transcriptionKit.js';

const servers = useTranscriptionServers();
const { sim, start } = servers;

/** Submit a storage file, let the task finish, and return its SUCCESS data. */
async function transcribe(s: TestServer, fileUrl: string, params?: unknown) {
  const id = (await submit(s, { file_url: fileUrl, ...(params ? { params } : {}) })).body.transcription_id;
  await advance(s, DELAY);
  const r = await poll(s, id);
  expect(r.body.status).toBe('SUCCESS');
  expectValidTask(r.body);
  return r.body.data;
}

const words = (s: string) => s.split(/\s+/).filter(Boolean);

describe('fixture audio carries its true transcript', () => {
  it('returns the words meeting.mp3 speaks, uploaded through presign, part PUTs and complete', async () => {
    const { user } = await userToken(sim().api, DEMO_US);
    const file = await uploadFixture(sim().api, user, AUDIO_FIXTURES.mp3);
    const data = await transcribe(sim(), file.DownloadUrl);
    const spoken = "Let's review the upload flow: presigned URLs, then each part, then complete.";
    expect(data.text).toBe(spoken);
    expect(data.segments).toEqual([{ start: 0, end: 5.845, text: spoken, speaker: 'Speaker 1' }]);
    expect(data.results.map((r: { text: string }) => r.text).join(' ')).toBe(spoken);
    expect(data.language).toBe('en-US');
    expect(Math.abs(data.duration - AUDIO_FIXTURES.mp3.duration)).toBeLessThan(0.1);
  });

  it('ships a sidecar for every audio fixture, listed as a fixture attachment with its MD5', async () => {
    const list = (await http('GET', `${sim().admin}/transcripts`)).body;
    for (const f of Object.values(AUDIO_FIXTURES)) {
      const md5 = md5hex(await readFile(fromRoot('fixtures', 'audio', f.file)));
      const sidecar = JSON.parse(
        await readFile(fromRoot('fixtures', 'audio', `${f.file}.transcript.json`), 'utf8'),
      );
      expect(list).toContainEqual({ md5, source: 'fixture', file: `audio/${f.file}`, ...sidecar });
    }
  });
});

describe('transcripts attached through the control API', () => {
  it('are returned for the audio with that MD5 in every result shape, and detached again', async () => {
    const { user } = await userToken(sim().api, DEMO_US);
    const audio = silentMp3(125); // 3 s of synthetic audio
    const md5 = md5hex(audio);
    const transcript = {
      language: 'de-DE',
      segments: [
        { start: 0.2, end: 1.4, text: 'Guten Morgen zusammen.', speaker: 'Anna' },
        { start: 1.5, end: 2.9, text: 'Fangen wir an.', speaker: 'Ben' },
      ],
    };
    const put = await http('PUT', `${sim().admin}/transcripts/${md5.toUpperCase()}`, { json: transcript });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ md5, source: 'api', ...transcript });
    const file = await uploadBytes(sim().api, user, audio, 'mp3');

    const both = await transcribe(sim(), file.DownloadUrl, { diarization: { return_embedding: true } });
    expect(both.text).toBe('Guten Morgen zusammen. Fangen wir an.');
    expect(both.segments).toEqual(transcript.segments);
    expect(both.language).toBe('de-DE');
    expect(both.duration).toBe(3);
    // Live's speaker ids in order of appearance; the task asked `auto`, so a detection's probability.
    expect(both.results).toEqual(
      transcript.segments.map(({ speaker: _, ...s }, n) => ({
        ...s,
        speaker_id: `SPEAKER_0${n}`,
        language: 'de',
        language_probability: expect.any(Number),
      })),
    );
    for (const x of both.results) expect(x.language_probability).toBeLessThan(1);
    expect(Object.keys(both.embeddings)).toEqual(['SPEAKER_00', 'SPEAKER_01']);
    expect(both.embeddings.SPEAKER_00).toHaveLength(256);

    for (const result_shape of ['spec', 'live'] as const) {
      const app = (await http('POST', `${sim().admin}/apps`, { json: { result_shape } })).body;
      const id = (await submit(sim(), { file_url: file.DownloadUrl }, app)).body.transcription_id;
      await advance(sim(), DELAY);
      const r = await poll(sim(), id, app);
      expectValidTask(r.body);
      if (result_shape === 'spec') expect(r.body.data.segments).toEqual(transcript.segments);
      else
        expect(r.body.data.results.map((x: { text: string }) => x.text)).toEqual([
          'Guten Morgen zusammen.',
          'Fangen wir an.',
        ]);
    }

    expect((await http('DELETE', `${sim().admin}/transcripts/${md5}`)).status).toBe(204);
    const fake = await transcribe(sim(), file.DownloadUrl);
    expect(words(fake.text)).not.toEqual(words(both.text));
    expect(fake.language).toBe('en-US');
    const again = await http('DELETE', `${sim().admin}/transcripts/${md5}`);
    expect(again.status).toBe(404);
    expect(again.body.detail).toBe('TRANSCRIPT_NOT_FOUND');
  });

  it('refuses overlapping or inverted segments and a malformed MD5 with 422 naming the field', async () => {
    const seg = (start: number, end: number) => ({ start, end, text: 'x', speaker: 'Speaker 1' });
    const md5 = '0123456789abcdef0123456789abcdef';
    const overlap = await http('PUT', `${sim().admin}/transcripts/${md5}`, {
      json: { language: 'en-US', segments: [seg(0, 2), seg(1.5, 3), seg(4, 3.5)] },
    });
    expect(overlap.status).toBe(422);
    expect(overlap.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'))).toEqual([
      'body.segments.1.start',
      'body.segments.2.end',
    ]);
    const badMd5 = await http('PUT', `${sim().admin}/transcripts/xyz`, {
      json: { language: 'en', segments: [seg(0, 1)] },
    });
    expect(badMd5.status).toBe(422);
    expect(badMd5.body.detail[0].loc).toEqual(['path', 'md5']);
    const empty = await http('PUT', `${sim().admin}/transcripts/${md5}`, {
      json: { language: 'en', segments: [] },
    });
    expect(empty.status).toBe(422);
    expect(
      (await http('GET', `${sim().admin}/transcripts`)).body.some((t: { md5: string }) => t.md5 === md5),
    ).toBe(false);
  });

  it('survive a restart; a full reset drops them but reloads the fixture sidecars; a per-app reset keeps them', async () => {
    const dir = await servers.tempDir();
    const md5 = md5hex(silentMp3(7));
    const body = { language: 'en-US', segments: [{ start: 0, end: 0.1, text: 'Hi.', speaker: 'Speaker 1' }] };
    const a = await start({ inMemory: false, dataDir: dir });
    await http('PUT', `${a.admin}/transcripts/${md5}`, { json: body });
    await a.stop();
    const b = await start({ inMemory: false, dataDir: dir });
    const has = async () =>
      (await http('GET', `${b.admin}/transcripts`)).body.map(
        (t: { md5: string; source: string }) => t.source,
      );
    expect(await has()).toEqual(expect.arrayContaining(['api', 'fixture']));
    await http('POST', `${b.admin}/reset`, { json: { client_id: DEMO_US.client_id } });
    expect(await has()).toContain('api');
    await http('POST', `${b.admin}/reset`, { json: {} });
    const after = await has();
    expect(after).not.toContain('api');
    expect(after.filter((s: string) => s === 'fixture')).toHaveLength(Object.keys(AUDIO_FIXTURES).length);
  });
});
