import { describe, expect, it } from 'vitest';
import { AUDIO_FIXTURES, uploadFixture } from '../testing/audioFixtures.js';
import { DEMO_US, http, userToken } from '../testing/http.js';
import {
  advance,
  DELAY,
  expectValidTask,
  externalUrl,
  poll,
  submit,
  useTranscriptionServers,
} from '../testing/transcriptionKit.js';
import type { TaskRecord } from '../transcription/model.js';

const servers = useTranscriptionServers();
const { sim, start } = servers;

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
    const app = (await http('POST', `${sim().admin}/apps`, { json: { result_shape: 'live' } })).body;
    const id = (
      await submit(
        sim(),
        { file_url: externalUrl(), params: { diarization: { enabled: true, return_embedding: true } } },
        app,
      )
    ).body.transcription_id;
    await advance(sim(), DELAY);
    const r = await poll(sim(), id, app);
    expectValidTask(r.body);
    const speakers = new Set(r.body.data.results.map((x: { speaker_id: string }) => x.speaker_id));
    expect(Object.keys(r.body.data.embeddings).sort()).toEqual([...speakers].sort());
  });
});

describe('control API', () => {
  it('forces REVOKED, which sticks, and lists tasks with the pin', async () => {
    const id = (await submit(sim(), { file_url: externalUrl() })).body.transcription_id;
    const forced = await http('PUT', `${sim().admin}/transcriptions/${id}`, { json: { status: 'REVOKED' } });
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ transcription_id: id, status: 'REVOKED', forced_status: 'REVOKED' });
    await advance(sim(), 10 * DELAY);
    const r = await poll(sim(), id);
    expect(r.body).toEqual({
      transcription_id: id,
      status: 'REVOKED',
      data: {},
      message: 'The task was revoked.',
    });
    const list = await http('GET', `${sim().admin}/transcriptions?client_id=${DEMO_US.client_id}`);
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
      ids.push((await submit(sim(), { file_url: externalUrl() })).body.transcription_id);
    const force = (id: string, json: unknown) => http('PUT', `${sim().admin}/transcriptions/${id}`, { json });
    await force(ids[0]!, { status: 'PROGRESS' });
    await force(ids[1]!, { status: 'FAILURE', message: 'The audio file could not be decoded.' });
    await force(ids[2]!, { status: 'SUCCESS' });
    const success = await poll(sim(), ids[2]!);
    expect(success.body.status).toBe('SUCCESS');
    expectValidTask(success.body);
    await advance(sim(), 100 * DELAY);
    expect((await poll(sim(), ids[0]!)).body).toEqual({
      transcription_id: ids[0],
      status: 'PROGRESS',
      data: {},
    });
    expect((await poll(sim(), ids[1]!)).body.message).toBe('The audio file could not be decoded.');
    expect((await force('nope', { status: 'FAILURE' })).status).toBe(404);
    expect((await force(ids[0]!, { status: 'DONE' })).status).toBe(422);
  });
});

describe('restarts', () => {
  it('resumes a job mid-way after a restart with the same data folder', async () => {
    const dir = await servers.tempDir();
    const a = await start({ inMemory: false, dataDir: dir, transcriptionDelay: DELAY });
    const { user } = await userToken(a.api, DEMO_US);
    const file = await uploadFixture(a.api, user, AUDIO_FIXTURES.mp3);
    const id = (await submit(a, { file_url: file.DownloadUrl })).body.transcription_id;
    await advance(a, 10_000);
    expect((await poll(a, id)).body.status).toBe('PROGRESS');
    await a.stop();

    const b = await start({ inMemory: false, dataDir: dir, transcriptionDelay: DELAY });
    expect((await poll(b, id)).body.status).toBe('PROGRESS');
    await advance(b, 10_000);
    const r = await poll(b, id);
    expect(r.body.status).toBe('SUCCESS');
    expect(Math.abs(r.body.data.duration - AUDIO_FIXTURES.mp3.duration)).toBeLessThan(0.1);
  });

  it('reads the audio of a task a crash left unread from the file itself, even after its URL expired', async () => {
    const dir = await servers.tempDir();
    const a = await start({ inMemory: false, dataDir: dir, transcriptionDelay: DELAY });
    const { user } = await userToken(a.api, DEMO_US);
    const file = await uploadFixture(a.api, user, AUDIO_FIXTURES.mp3);
    const id = (await submit(a, { file_url: file.DownloadUrl })).body.transcription_id;
    await poll(a, id); // the read after submission is done
    // A crash between the submission and the read leaves the task without its audio.
    const tasks = a.services.deps.store.collection<TaskRecord>('transcriptions');
    const { audio: _read, ...unread } = (await tasks.get(id))!;
    await tasks.put(id, unread);
    await a.stop();

    const b = await start({ inMemory: false, dataDir: dir, transcriptionDelay: DELAY });
    await advance(b, 25 * 3600_000); // the DownloadUrl (24 h) has expired since the submission
    const r = await poll(b, id);
    expect(r.body.status).toBe('SUCCESS');
    expect(Math.abs(r.body.data.duration - AUDIO_FIXTURES.mp3.duration)).toBeLessThan(0.1);
  });
});
