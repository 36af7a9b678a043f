import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Config, testConfig } from '../config.js';
import { isPrivateAddress } from '../core/addressGuard.js';
import { SimClock } from '../core/clock.js';
import { Random } from '../core/random.js';
import type { PartnerApp } from '../domain/apps.js';
import type { FileLookup, FileSource } from '../domain/fileSource.js';
import { Instance } from '../domain/instance.js';
import { MemoryStore } from '../store/memoryStore.js';
import {
  AUDIO_FIXTURES,
  type AudioFixture,
  audioPath,
  openAudio,
  readAudio,
} from '../testing/audioFixtures.js';
import { type SpeechStub, STUB_SEGMENTS, startSpeechStub } from '../testing/speechStub.js';
import type { SpecResult, TaskRecord, TranscriptionParams } from './model.js';
import { TranscriptionService } from './service.js';

const APP = { client_id: 'app-1', result_shape: 'spec' } as PartnerApp;
const BASE = 'http://sim.test/storage/files/';
const WAV = AUDIO_FIXTURES.wav;

/** Storage with one file per MD5 given; `onDisk` false serves it as a stream (a blob store). */
class Files implements FileSource {
  readonly table = new Map<string, FileLookup>();
  async lookup(url: string) {
    return url.startsWith(BASE) ? this.byId(url.slice(BASE.length)) : undefined;
  }
  async byId(id: string): Promise<FileLookup> {
    return this.table.get(id) ?? { status: 'missing', reason: 'NoSuchKey' };
  }
  async add(md5: string, onDisk = true, f: AudioFixture = WAV): Promise<string> {
    const bytes = await readAudio(f);
    const { filetype } = f;
    this.table.set(md5, {
      status: 'found',
      file: { file_id: md5, client_id: APP.client_id, filetype, size: bytes.length, md5, etag: md5 },
      open: () => openAudio(f),
      ...(onDisk ? { path: audioPath(f) } : {}),
    });
    return BASE + md5;
  }
}

let stub: SpeechStub;
/** A web server elsewhere (on 127.0.0.1) serving the WAV fixture, counting its GETs. */
let web: Server;
let webUrl = '';
let webHits = 0;
beforeAll(async () => {
  stub = await startSpeechStub();
  const wav = await readAudio(WAV);
  web = createServer((req, res) => {
    webHits++;
    if (req.url === '/hello.wav') res.writeHead(200, { 'content-type': 'audio/wav' }).end(wav);
    else if (req.url === '/moved.wav') res.writeHead(302, { location: '/hello.wav' }).end();
    else res.writeHead(404).end('no');
  }).listen(0, '127.0.0.1');
  await once(web, 'listening');
  webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await stub.close();
  await new Promise((r) => web.close(r));
});
beforeEach(() => {
  stub.calls = [];
  stub.mode = 'ok';
  stub.delayMs = 0;
});

async function setup(cfg: Partial<Config> = {}, shared?: { store: MemoryStore; files: Files }) {
  let real = Date.UTC(2026, 0, 1);
  const store = shared?.store ?? new MemoryStore();
  const files = shared?.files ?? new Files();
  const random = new Random('engine-test');
  const deps = {
    config: testConfig({ transcriptionDelay: 1000, transcriber: stub.url, ...cfg }),
    clock: new SimClock(0, () => real),
    random,
    store,
    logger: pino({ level: 'silent' }),
    instance: await Instance.boot(store, random.fork('boot')),
  };
  const transcripts = new Map<string, { language: string; segments: SpecResult['segments'] }>();
  const svc = new TranscriptionService(store, deps.config, deps.clock, random, deps.logger, {
    files,
    transcriptFor: async (md5: string) => transcripts.get(md5),
  });
  const submit = async (md5: string, params?: TranscriptionParams, app = APP) =>
    (await svc.submit(app, { file_url: await files.add(md5), ...(params ? { params } : {}) }))
      .transcription_id;
  const settled = (id: string, app = APP) =>
    vi.waitFor(
      async () => {
        const t = await svc.get(app, id);
        expect(['SUCCESS', 'FAILURE']).toContain(t.status);
        return t;
      },
      { timeout: 5000, interval: 20 },
    );
  return { svc, store, files, transcripts, submit, settled, advance };
  function advance(ms: number): void {
    real += ms;
  }
}

const words = (d: SpecResult) => d.segments.map((s) => s.text);

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
    const { svc, submit, settled, advance } = await setup({ transcriberTimeoutMs: 800 });
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

  it('comes after an attached transcript, and an app can turn it off', async () => {
    const { submit, settled, advance, transcripts, store } = await setup();
    transcripts.set('4'.repeat(32), {
      language: 'en-US',
      segments: [{ start: 0, end: 1, text: 'Attached.', speaker: 'A' }],
    });
    const attached = await submit('4'.repeat(32));
    const off = { ...APP, transcriber: 'none' } as PartnerApp;
    const fake = await submit('5'.repeat(32), undefined, off);
    advance(5000);
    expect(words((await settled(attached)).data as SpecResult)).toEqual(['Attached.']);
    expect(words((await settled(fake, off)).data as SpecResult).join(' ')).not.toContain('budget?');
    const rec = await store.collection<TaskRecord>('transcriptions').get(fake);
    expect(rec?.engine).toBeUndefined();
  });
});

describe('external audio (--fetch-external-audio)', () => {
  const fetching = { fetchExternalAudio: true, fetchAllowPrivate: true, transcriber: undefined };

  it('is off by default: the URL is never fetched, the duration is the stand-in', async () => {
    const { svc, settled, advance } = await setup({ transcriber: undefined });
    webHits = 0;
    const id = (await svc.submit(APP, { file_url: `${webUrl}/hello.wav` })).transcription_id;
    advance(200_000);
    const data = (await settled(id)).data as SpecResult;
    expect(data.duration).toBeGreaterThanOrEqual(20);
    expect(webHits).toBe(0);
  });

  it("fetches it for the real duration, ground truth by MD5 and the engine's words", async () => {
    const { svc, settled, advance, transcripts } = await setup(fetching);
    const id = (await svc.submit(APP, { file_url: `${webUrl}/moved.wav` })).transcription_id;
    advance(5000);
    const data = (await settled(id)).data as SpecResult;
    expect(data.duration).toBeCloseTo(WAV.duration, 2);
    // The same bytes with a transcript attached to their MD5: that transcript.
    const { createHash } = await import('node:crypto');
    const md5 = createHash('md5')
      .update(await readAudio(WAV))
      .digest('hex');
    transcripts.set(md5, {
      language: 'en-US',
      segments: [{ start: 0, end: 2, text: 'Known words.', speaker: 'A' }],
    });
    expect(words((await svc.get(APP, id)).data as SpecResult)).toEqual(['Known words.']);
    // With an engine: its words.
    const engine = await setup({ ...fetching, transcriber: stub.url });
    const heard = (await engine.svc.submit(APP, { file_url: `${webUrl}/hello.wav` })).transcription_id;
    engine.advance(5000);
    expect(words((await engine.settled(heard)).data as SpecResult)).toEqual(
      STUB_SEGMENTS.map((s) => s.text.trim()),
    );
    expect(stub.calls).toMatchObject([{ fileName: 'audio.wav', fileSize: (await readAudio(WAV)).length }]);
  });

  it('fails as live would when the fetch fails', async () => {
    const { svc, settled, advance } = await setup(fetching);
    const id = (await svc.submit(APP, { file_url: `${webUrl}/gone.mp3` })).transcription_id;
    advance(5000);
    expect(await settled(id)).toMatchObject({
      status: 'FAILURE',
      message: 'The audio file could not be downloaded: the server answered HTTP 404',
    });
  });

  it('refuses private and loopback addresses unless allowed, by name or by number', async () => {
    const { svc, settled, advance } = await setup({ ...fetching, fetchAllowPrivate: false });
    webHits = 0;
    const byNumber = (await svc.submit(APP, { file_url: `${webUrl}/hello.wav` })).transcription_id;
    const byName = (
      await svc.submit(APP, { file_url: `${webUrl.replace('127.0.0.1', 'localhost')}/hello.wav` })
    ).transcription_id;
    advance(5000);
    expect((await settled(byNumber)).message).toMatch(
      /^The audio file could not be downloaded: 127\.0\.0\.1 is a private address/,
    );
    expect((await settled(byName)).message).toMatch(
      /^The audio file could not be downloaded: localhost resolves to .*private address/,
    );
    expect(webHits).toBe(0);
  });

  it('knows which addresses are private', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(isPrivateAddress(a), a).toBe(false);
  });
});
