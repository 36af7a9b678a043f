import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { PartnerApp } from '../domain/apps.js';
import { AUDIO_FIXTURES, readAudio } from '../testing/audioFixtures.js';
import { APP, setup, stub, useSpeechStub, WAV, words } from '../testing/engineKit.js';
import { STUB_SEGMENTS } from '../testing/speechStub.js';
import type { SpecResult, TaskRecord } from './model.js';

// A speech engine (--transcriber) as the source of a task's words.

useSpeechStub();

describe('a speech engine (--transcriber)', () => {
  it('gets the audio as OpenAI-style multipart; its segments are the result', async () => {
    const { svc, submit, settled, advance } = await setup();
    const id = await submit('a'.repeat(32));
    advance(5000);
    const done = await settled(id);
    expect(done.status).toBe('SUCCESS');
    const data = done.data as SpecResult;
    expect(words(data)).toEqual(STUB_SEGMENTS.map((s) => s.text.trim()));
    expect(data.segments.map((s) => [s.start, s.end, s.speaker])).toEqual(
      STUB_SEGMENTS.map((s) => [s.start, s.end, 'Speaker 1']),
    );
    expect(data.language).toBe('en'); // "english" in verbose_json, as a code
    expect(data.duration).toBeCloseTo(WAV.duration, 2);
    expect(stub.calls).toHaveLength(1);
    const [call] = stub.calls;
    expect(call).toMatchObject({
      path: '/v1/audio/transcriptions',
      fields: { model: 'whisper-1', response_format: 'verbose_json' },
      fileName: 'audio.wav',
    });
    expect(call!.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(call!.fields.language).toBeUndefined(); // auto: the engine detects it
    expect(call!.fileSize).toBe((await readAudio(WAV)).length);
    // Named language: sent as its ISO-639-1 code and kept in the result.
    const de = await submit('b'.repeat(32), { transcribe: { language: 'de-DE' } });
    advance(5000);
    expect(((await settled(de)).data as SpecResult).language).toBe('de-DE');
    expect(stub.calls[1]!.fields.language).toBe('de');
    expect((await svc.get(APP, id)).status).toBe('SUCCESS');
  });

  it('keeps the task in PROGRESS while a slow engine works, past the timeline', async () => {
    stub.delayMs = 600;
    const { svc, submit, settled, advance } = await setup();
    const id = await submit('c'.repeat(32));
    advance(60_000);
    expect((await svc.get(APP, id)).status).toBe('PROGRESS');
    expect((await svc.list()).map((t) => t.status)).toEqual(['PROGRESS']);
    expect((await settled(id)).status).toBe('SUCCESS');
  });

  it('asks the engine once for the same audio, also after a restart', async () => {
    const first = await setup();
    const md5 = 'd'.repeat(32);
    const a = await first.submit(md5);
    const b = await first.submit(md5);
    first.advance(5000);
    const ra = await first.settled(a);
    const rb = await first.settled(b);
    expect(ra.data).toEqual(rb.data);
    expect(stub.calls).toHaveLength(1);
    // A new simulator on the same store (a restart) finds the answer kept by MD5.
    const second = await setup({}, { store: first.store, files: first.files });
    const c = await second.submit(md5);
    second.advance(5000);
    expect(((await second.settled(c)).data as SpecResult).segments).toEqual((ra.data as SpecResult).segments);
    expect(stub.calls).toHaveLength(1);
  });

  it('starts the engine again for a task a restart interrupted', async () => {
    stub.mode = 'hang';
    const first = await setup({ transcriberTimeoutMs: 60_000 });
    const id = await first.submit('e'.repeat(32), undefined);
    await vi.waitFor(() => expect(stub.calls).toHaveLength(1));
    stub.mode = 'ok';
    const second = await setup({}, { store: first.store, files: first.files });
    second.advance(5000);
    expect((await second.settled(id)).status).toBe('SUCCESS');
    expect(stub.calls).toHaveLength(2);
  });

  it('labels speakers from a diarization endpoint when the task asks for diarization', async () => {
    const { submit, settled, advance } = await setup({ transcriberDiarization: stub.url });
    const id = await submit('f'.repeat(32), { diarization: { enabled: true } });
    const plain = await submit('0'.repeat(32));
    advance(5000);
    const data = (await settled(id)).data as SpecResult;
    expect(data.segments.map((s) => s.speaker)).toEqual(['Speaker 1', 'Speaker 2', 'Speaker 2']);
    expect(((await settled(plain)).data as SpecResult).segments.map((s) => s.speaker)).toEqual(
      Array(3).fill('Speaker 1'),
    );
    expect(stub.calls.map((c) => c.path).sort()).toEqual([
      '/v1/audio/diarization',
      '/v1/audio/transcriptions',
      '/v1/audio/transcriptions',
    ]);
  });

  it.each([
    ['error', /^Transcription failed: the speech engine answered HTTP 500: .*model not loaded/],
    ['not-json', /^Transcription failed: the speech engine answered something other than JSON\.$/],
    ['huge', /^Transcription failed: the speech engine's answer is larger than \d+ bytes\.$/],
    ['hang', /^Transcription failed: the speech engine did not answer within 1 s\.$/],
    [
      'redirect',
      /^Transcription failed: the speech engine answered a redirect \(HTTP 307 to http:\/\/127\.0\.0\.1:\d+\/elsewhere\), not followed with the audio\.$/,
    ],
  ] as const)('ends in FAILURE with a clear message when the engine %s', async (mode, message) => {
    stub.mode = mode;
    // Only the hang waits out the deadline; the others get one a busy machine cannot miss (a
    // huge answer read past 800 ms was called a hang).
    const { svc, submit, settled, advance } = await setup({
      transcriberTimeoutMs: mode === 'hang' ? 800 : 10_000,
    });
    const id = await submit('1'.repeat(32));
    advance(5000);
    const done = await settled(id);
    expect(done).toMatchObject({ status: 'FAILURE', data: {} });
    expect(done.message).toMatch(message);
    // A redirect is never followed: the audio went nowhere else.
    expect(stub.calls.filter((c) => c.path === '/elsewhere')).toEqual([]);
    // Not kept: the next task of that audio asks again.
    stub.mode = 'ok';
    const again = await submit('1'.repeat(32));
    advance(5000);
    expect((await settled(again)).status).toBe('SUCCESS');
    expect((await svc.get(APP, id)).status).toBe('FAILURE');
  });

  it('fails when the engine cannot be reached, and streams audio that is not on disk', async () => {
    const { submit, settled, advance, files, svc } = await setup({ transcriber: 'http://127.0.0.1:1' });
    const id = await submit('2'.repeat(32));
    advance(5000);
    expect((await settled(id)).message).toMatch(
      /^Transcription failed: the speech engine could not be reached/,
    );
    const app = { ...APP, transcriber: stub.url } as PartnerApp;
    const url = await files.add('3'.repeat(32), false, AUDIO_FIXTURES.mp3);
    const streamed = (await svc.submit(app, { file_url: url })).transcription_id;
    advance(5000);
    expect(await settled(streamed, app)).toMatchObject({ status: 'SUCCESS' });
    expect(stub.calls[0]).toMatchObject({
      fileName: 'audio.mp3',
      fileSize: (await readAudio(AUDIO_FIXTURES.mp3)).length,
    });
  });

  it('wins over an attached transcript, says which source spoke, and an app can turn it off', async () => {
    const { svc, submit, settled, advance, transcripts, store } = await setup();
    const fixture = { language: 'en-US', segments: [{ start: 0, end: 1, text: 'Attached.', speaker: 'A' }] };
    transcripts.set('4'.repeat(32), fixture);
    transcripts.set('6'.repeat(32), fixture);
    const engine = await submit('4'.repeat(32));
    const off = { ...APP, transcriber: 'none' } as PartnerApp;
    const attached = await submit('6'.repeat(32), undefined, off);
    const fake = await submit('5'.repeat(32), undefined, off);
    advance(5000);
    // The engine's words, not the fixture's: checking an engine with a fixture audio hears the engine.
    expect(words((await settled(engine)).data as SpecResult).join(' ')).toContain('budget?');
    expect((await svc.getSourced(APP, engine)).source).toBe('engine');
    expect(words((await settled(attached, off)).data as SpecResult)).toEqual(['Attached.']);
    expect((await svc.getSourced(off, attached)).source).toBe('attached');
    expect(words((await settled(fake, off)).data as SpecResult).join(' ')).not.toContain('budget?');
    expect((await svc.getSourced(off, fake)).source).toBe('generated');
    const rec = await store.collection<TaskRecord>('transcriptions').get(fake);
    expect(rec?.engine).toBeUndefined();
  });

  it('logs one line when the wait for the engine starts and one when it ends', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => lines.push(JSON.parse(l)) });
    const { submit, settled, advance } = await setup({}, undefined, logger);
    stub.delayMs = 50;
    const id = await submit('7'.repeat(32));
    advance(5000);
    await settled(id);
    const engine = lines.filter((l) => String(l.msg).startsWith('speech engine'));
    expect(engine.map((l) => l.msg)).toEqual([
      'speech engine: waiting for its transcript',
      'speech engine: answered',
    ]);
    expect(engine[0]).toMatchObject({ transcription_id: id, engine: expect.stringContaining(stub.url) });
    expect(engine[1]).toMatchObject({
      transcription_id: id,
      ms: expect.any(Number),
      segments: expect.any(Number),
    });
  });
});
