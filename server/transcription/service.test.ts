import { Readable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../config.js';
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
import type { SpecResult } from './model.js';
import { TranscriptionService } from './service.js';
import type { TranscriptionOptions } from './transcriptionOptions.js';

const APP = { client_id: 'app-1', result_shape: 'spec' } as PartnerApp;
const OTHER = { client_id: 'app-2', result_shape: 'spec' } as PartnerApp;
const BASE = 'http://sim.test/storage/files/';

/** A FileSource over a fixed table of URLs, standing in for the storage service. */
class TableSource implements FileSource {
  readonly table = new Map<string, FileLookup>();
  lookups = 0;
  async lookup(url: string): Promise<FileLookup | undefined> {
    if (!url.startsWith(BASE)) return undefined;
    this.lookups++;
    return this.table.get(url) ?? { status: 'missing', reason: 'NoSuchKey' };
  }
  async byId(fileId: string): Promise<FileLookup> {
    this.lookups++;
    return this.table.get(BASE + fileId) ?? { status: 'missing', reason: 'NoSuchKey' };
  }
  async addFixture(name: string, f: AudioFixture, onDisk = true): Promise<string> {
    const bytes = await readAudio(f);
    return this.add(name, f.filetype, bytes, onDisk ? audioPath(f) : undefined, () => openAudio(f));
  }
  add(
    name: string,
    filetype: string,
    bytes: Buffer,
    path?: string,
    open = () => Readable.from([bytes]),
  ): string {
    const url = BASE + name;
    const md5 = name.match(/[0-9a-f]{32}/)?.[0] ?? name.padEnd(32, '0').slice(0, 32);
    this.table.set(url, {
      status: 'found',
      file: { file_id: name, client_id: APP.client_id, filetype, size: bytes.length, md5, etag: `"${md5}"` },
      open,
      ...(path ? { path } : {}),
    });
    return url;
  }
}

async function setup(opts: TranscriptionOptions = {}, delay: number | 'auto' = 10_000) {
  let real = Date.UTC(2026, 0, 1);
  const clock = new SimClock(0, () => real);
  const store = new MemoryStore();
  const random = new Random('svc-test');
  const deps = {
    config: testConfig({ transcriptionDelay: delay }),
    clock,
    random,
    store,
    logger: pino({ level: 'silent' }),
    instance: await Instance.boot(store, random.fork('boot')),
  };
  const svc = new TranscriptionService(store, deps.config, clock, random, deps.logger, opts);
  return {
    svc,
    clock,
    advance: (ms: number) => {
      real += ms;
    },
  };
}

describe('TranscriptionService', () => {
  it('reads the real duration of storage audio and seeds results by MD5', async () => {
    const files = new TableSource();
    const { svc, advance } = await setup({ files });
    for (const [i, f] of Object.values(AUDIO_FIXTURES).entries()) {
      const url = await files.addFixture(`${f.file}-${String(i).repeat(32)}`, f, f.filetype !== 'mp3');
      const { transcription_id } = await svc.submit(APP, { file_url: url });
      advance(10_000);
      const done = await svc.get(APP, transcription_id);
      expect(done.status).toBe('SUCCESS');
      const data = done.data as SpecResult;
      expect(Math.abs(data.duration - f.duration)).toBeLessThan(0.1);
      expect(data.segments.at(-1)!.end).toBeLessThanOrEqual(data.duration);
    }
  });

  it('scales the auto timeline by the audio duration', async () => {
    const files = new TableSource();
    const { svc, advance } = await setup({ files }, 'auto');
    const url = await files.addFixture('hello-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', AUDIO_FIXTURES.wav);
    const { transcription_id: id } = await svc.submit(APP, { file_url: url });
    advance(3900); // 3000 + 200 × 4.695 = 3939 ms in total
    expect((await svc.get(APP, id)).status).toBe('PROGRESS');
    advance(40);
    expect((await svc.get(APP, id)).status).toBe('SUCCESS');
  });

  it('fails missing files and bytes that are not audio, with a top-level message', async () => {
    const files = new TableSource();
    const { svc, advance } = await setup({ files });
    files.table.set(`${BASE}old`, { status: 'expired', reason: 'Request has expired' });
    const text = files.add(
      'notes-cccccccccccccccccccccccccccccccc',
      'mp3',
      Buffer.from('not audio at all\n'.repeat(40)),
    );
    const ids = [];
    for (const url of [`${BASE}nothing`, `${BASE}old`, text])
      ids.push((await svc.submit(APP, { file_url: url })).transcription_id);
    advance(1500);
    for (const id of ids) expect((await svc.get(APP, id)).status).toBe('RECEIVED');
    advance(1000);
    const msgs = [];
    for (const id of ids) {
      const t = await svc.get(APP, id);
      expect(t).toMatchObject({ status: 'FAILURE', data: {} });
      msgs.push(t.message);
    }
    expect(msgs[0]).toBe('The audio file could not be downloaded: NoSuchKey');
    expect(msgs[1]).toBe('The audio file could not be downloaded: Request has expired');
    expect(msgs[2]).toMatch(/^The audio file could not be decoded/);
  });

  it('reads a file once for concurrent polls and once per MD5', async () => {
    const files = new TableSource();
    const { svc } = await setup({ files });
    const url = await files.addFixture('dddddddddddddddddddddddddddddddd', AUDIO_FIXTURES.wav);
    const a = await svc.submit(APP, { file_url: url });
    const b = await svc.submit(APP, { file_url: url });
    await Promise.all([
      svc.get(APP, a.transcription_id),
      svc.get(APP, a.transcription_id),
      svc.get(APP, b.transcription_id),
    ]);
    // Two lookups at submission, one for the read of the audio (the second task reuses it).
    expect(files.lookups).toBe(3);
  });

  it('never shares an audio read across apps, nor across file types', async () => {
    const files = new TableSource();
    const { svc, advance } = await setup({ files });
    const bytes = Buffer.from('not audio at all\n'.repeat(40));
    const md5 = 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
    const asMp3 = files.add(`${md5}`, 'mp3', bytes);
    const asWav = files.add(`wav-${md5}`, 'wav', bytes);
    const a = await svc.submit(APP, { file_url: asMp3 });
    const b = await svc.submit(OTHER, { file_url: asMp3 });
    const c = await svc.submit(OTHER, { file_url: asWav });
    advance(10_000);
    const [ta, tb, tc] = [
      await svc.get(APP, a.transcription_id),
      await svc.get(OTHER, b.transcription_id),
      await svc.get(OTHER, c.transcription_id),
    ];
    // Three submissions, three reads: the same MD5 read for one app is read again for another.
    expect(files.lookups).toBe(6);
    for (const t of [ta, tb, tc]) expect(t.status).toBe('FAILURE');
    expect(tc.message).not.toContain('mp3');
  });

  it('takes the outcome of a rule at submission and keeps it on the task', async () => {
    const asked: string[] = [];
    const { svc, advance } = await setup({
      outcomeFor: async (clientId) => {
        asked.push(clientId);
        return clientId === APP.client_id ? { status: 'FAILURE', message: 'rule says no' } : undefined;
      },
    });
    const a = await svc.submit(APP, { file_url: 'https://example.com/x.mp3' });
    const b = await svc.submit(OTHER, { file_url: 'https://example.com/x.mp3' });
    expect(asked).toEqual(['app-1', 'app-2']);
    advance(10_000);
    expect(await svc.get(APP, a.transcription_id)).toMatchObject({
      status: 'FAILURE',
      message: 'rule says no',
    });
    expect((await svc.get(OTHER, b.transcription_id)).status).toBe('SUCCESS');
  });

  it('hides tasks of other apps and removes an app’s tasks on resetApp', async () => {
    const { svc } = await setup();
    const a = await svc.submit(APP, { file_url: 'https://example.com/x.mp3' });
    const b = await svc.submit(OTHER, { file_url: 'https://example.com/x.mp3' });
    await expect(svc.get(OTHER, a.transcription_id)).rejects.toMatchObject({ status: 404 });
    await svc.resetApp(APP.client_id);
    await expect(svc.get(APP, a.transcription_id)).rejects.toMatchObject({ code: 'TRANSCRIPTION_NOT_FOUND' });
    expect((await svc.list()).map((t) => t.transcription_id)).toEqual([b.transcription_id]);
  });
});
