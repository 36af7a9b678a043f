import { expect } from 'vitest';
import { pollUntil } from '../server/client/poll.js';
import { audioUrl, pollDeadlineMs, uploadedAudio } from './lib/audio.js';
import { apiKeyHeaders, userToken } from './lib/flows.js';
import { call, errorCode, type Res } from './lib/request.js';
import { contractSuite, scenario } from './lib/suite.js';
import type { AppCredentials, Target } from './target/types.js';

const TERMINAL = ['SUCCESS', 'FAILURE', 'REVOKED'];
const liveDeadline = Number(process.env.CONTRACT_POLL_DEADLINE_MS) || 20 * 60_000;

const submit = (t: Target, json: unknown, expectStatus = 200, app: AppCredentials = t.app) =>
  call(t, { op: 'createTranscription', headers: apiKeyHeaders(app), json, expect: expectStatus });

const get = (t: Target, id: string, expectStatus = 200, app: AppCredentials = t.app) =>
  call(t, {
    op: 'getTranscription',
    headers: apiKeyHeaders(app),
    path: { transcription_id: id },
    expect: expectStatus,
  });

/** Poll with exponential backoff, full jitter and a hard deadline until a terminal status. */
async function untilTerminal(t: Target, id: string): Promise<{ last: Res; seen: string[] }> {
  const seen: string[] = [];
  // The one client's poll loop; each poll goes through the suite's own request layer, so every
  // answer is still recorded and checked against the spec.
  const { value } = await pollUntil(
    async () => {
      const r = await get(t, id);
      seen.push(r.body.status);
      return { value: r };
    },
    (r) => TERMINAL.includes(r.body.status),
    {
      backoff: { baseMs: 1000, capMs: 15_000 },
      deadlineMs: pollDeadlineMs(t),
      sleep: t.wait,
      what: `transcription ${id}`,
      describe: (r) => r.body.status,
    },
  );
  return { last: value, seen };
}

contractSuite('transcription', () => {
  scenario(
    'createTranscription: only file_url, or every documented param, answers PENDING with data {}',
    {},
    async (t) => {
      const file_url = await audioUrl(t, () => userToken(t));
      for (const json of [
        { file_url },
        {
          file_url,
          params: {
            transcribe: { language: 'auto', model: 'svc-fast-whisper' },
            vad: { decode_silence: false },
            diarization: { enabled: true, return_embedding: false },
          },
        },
      ]) {
        const r = await submit(t, json);
        expect(r.body.status).toBe('PENDING');
        expect(r.body.data).toEqual({});
        expect(r.body.transcription_id).toBeTruthy();
      }
    },
  );

  scenario(
    'createTranscription: the live params transcribe.detection_level and hotwords are accepted',
    {},
    async (t) => {
      const file_url = await audioUrl(t, () => userToken(t));
      for (const detection_level of ['segment', 'chapter']) {
        const r = await submit(t, {
          file_url,
          params: { transcribe: { language: 'auto', detection_level }, hotwords: 'Plaud,NotePin' },
        });
        expect(r.body.status).toBe('PENDING');
        // Live ids look like task_exec_<hex> (live notes); the schema check holds the pattern.
        expect(r.body.transcription_id).toMatch(/^task_exec_[0-9a-f]+$/);
      }
    },
  );

  scenario(
    'transcription lifecycle: an uploaded file polled with backoff reaches SUCCESS with a result',
    { timeout: liveDeadline + 60_000 },
    async (t) => {
      const file_url = process.env.CONTRACT_AUDIO_URL?.trim() || (await uploadedAudio(t, await userToken(t)));
      const created = await submit(t, { file_url, params: { diarization: { enabled: true } } });
      const { last, seen } = await untilTerminal(t, created.body.transcription_id);
      expect(
        last.body.status,
        `statuses seen: ${seen.join(' → ')}; message: ${last.body.message ?? ''}`,
      ).toBe('SUCCESS');
      const data = last.body.data;
      // Either documented result shape (seed `segments[]` or live `results[]`); the schema check did the rest.
      expect(Array.isArray(data.segments) || Array.isArray(data.results)).toBe(true);
    },
  );

  scenario(
    'createTranscription: missing headers, an unknown client and a wrong API key are 401s',
    {},
    async (t) => {
      const json = { file_url: 'https://example.com/audio/meeting.mp3' };
      const none = await call(t, { op: 'createTranscription', json, expect: 401 });
      expect(errorCode(none)).toBe('MISSING_CREDENTIALS');
      const unknown = await submit(t, json, 401, { ...t.app, client_id: t.uniqueId('nobody') });
      expect(errorCode(unknown)).toBe('CLIENT_NOT_FOUND');
      // The secret key is not the API key. Answered as an unknown id: no client-id enumeration.
      const wrong = await submit(t, json, 401, { ...t.app, api_key: t.app.secret_key });
      expect(errorCode(wrong)).toBe('CLIENT_NOT_FOUND');
      expect(wrong.body).toEqual(unknown.body);
    },
  );

  scenario(
    'createTranscription: a missing or non-http file_url is a 422 naming the field; unknown params are ignored',
    {},
    async (t) => {
      const locs = (r: Res) => r.body.detail.map((d: { loc: string[] }) => d.loc.join('.'));
      expect(locs(await submit(t, {}, 422))).toContain('body.file_url');
      expect(locs(await submit(t, { file_url: 'ftp://example.com/a.mp3' }, 422))).toContain('body.file_url');
      // openapi.yaml: a lenient service ignores params it does not know (live notes, second pass).
      const extra = await submit(t, {
        file_url: 'https://example.com/a.mp3',
        params: { vad: { loud: true } },
      });
      expect(extra.body.status).toBe('PENDING');
    },
  );

  scenario('getTranscription: an unknown id is 404 TRANSCRIPTION_NOT_FOUND', {}, async (t) => {
    expect(errorCode(await get(t, t.uniqueId('no-such-task'), 404))).toBe('TRANSCRIPTION_NOT_FOUND');
  });

  scenario(
    'getTranscription: a forced FAILURE or REVOKED shows the status, data {} and the message',
    { needs: ['control'] },
    async (t) => {
      for (const status of ['FAILURE', 'REVOKED'] as const) {
        const id = (await submit(t, { file_url: 'https://example.com/audio/meeting.mp3' })).body
          .transcription_id;
        await t.control!.forceTranscription(id, status, `forced ${status} by the contract suite`);
        const r = await get(t, id);
        expect(r.body).toEqual({
          transcription_id: id,
          status,
          data: {},
          message: `forced ${status} by the contract suite`,
        });
      }
    },
  );

  scenario(
    'getTranscription: a task is invisible to another client (404)',
    { needs: ['control'] },
    async (t) => {
      const id = (await submit(t, { file_url: 'https://example.com/audio/meeting.mp3' })).body
        .transcription_id;
      const other = await t.control!.createApp({ client_id: t.uniqueId('contract-other') });
      await get(t, id, 404, other);
    },
  );

  scenario(
    'getTranscription: with the live result shape, SUCCESS carries data.results[] (still per spec)',
    { needs: ['control'] },
    async (t) => {
      const app = await t.control!.createApp({
        client_id: t.uniqueId('contract-live-shape'),
        result_shape: 'live',
      });
      const id = (await submit(t, { file_url: 'https://example.com/audio/meeting.mp3' }, 200, app)).body
        .transcription_id;
      await t.control!.forceTranscription(id, 'SUCCESS');
      const r = await get(t, id, 200, app);
      expect(r.body.status).toBe('SUCCESS');
      expect(Array.isArray(r.body.data.results)).toBe(true);
    },
  );
});
