import { type Logger, pino } from 'pino';
import { afterAll, beforeAll, beforeEach, expect, vi } from 'vitest';
import { type Config, testConfig } from '../config.js';
import { SimClock } from '../core/clock.js';
import { Random } from '../core/random.js';
import type { PartnerApp } from '../domain/apps.js';
import type { FileLookup, FileSource } from '../domain/fileSource.js';
import { Instance } from '../domain/instance.js';
import { MemoryStore } from '../store/memoryStore.js';
import type { SpecResult, TranscriptionParams } from '../transcription/model.js';
import { TranscriptionService } from '../transcription/service.js';
import { AUDIO_FIXTURES, type AudioFixture, audioPath, openAudio, readAudio } from './audioFixtures.js';
import { type SpeechStub, startSpeechStub } from './speechStub.js';

// Shared by the speech engine tests: a TranscriptionService on a memory store, its files
// served by `Files`, its engine the speech stub (`stub`, reset before each test).

export const APP = { client_id: 'app-1', result_shape: 'spec' } as PartnerApp;
const BASE = 'http://sim.test/storage/files/';
export const WAV = AUDIO_FIXTURES.wav;

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

/** The speech stub of the test file, started by useSpeechStub. */
export let stub: SpeechStub;
/** Starts the file's speech stub and resets it before each test. */
export function useSpeechStub() {
  beforeAll(async () => {
    stub = await startSpeechStub();
  });
  afterAll(async () => {
    await stub.close();
  });
  beforeEach(() => {
    stub.calls = [];
    stub.mode = 'ok';
    stub.delayMs = 0;
  });
}

export async function setup(
  cfg: Partial<Config> = {},
  shared?: { store: MemoryStore; files: Files },
  logger: Logger = pino({ level: 'silent' }),
) {
  let real = Date.UTC(2026, 0, 1);
  const store = shared?.store ?? new MemoryStore();
  const files = shared?.files ?? new Files();
  const random = new Random('engine-test');
  const deps = {
    config: testConfig({ transcriptionDelay: 1000, transcriber: stub.url, ...cfg }),
    clock: new SimClock(0, () => real),
    random,
    store,
    logger,
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

export const words = (d: SpecResult) => d.segments.map((s) => s.text);
