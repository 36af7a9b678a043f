import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { md5hex } from '../client/steps.js';
import { MemoryStore } from '../store/memoryStore.js';
import { readSidecars } from './transcriptSidecars.js';
import { TranscriptLibrary, transcriptIssues } from './transcripts.js';

const seg = (start: number, end: number, text = 'Words.', speaker = 'Speaker 1') => ({
  start,
  end,
  text,
  speaker,
});
const MD5 = 'ABCDEF0123456789ABCDEF0123456789';

describe('transcript rules', () => {
  it('accepts ordered segments that touch, and names each segment out of order or inverted', () => {
    expect(transcriptIssues({ language: 'en', segments: [seg(0, 1), seg(1, 1), seg(2.5, 4)] })).toEqual([]);
    const issues = transcriptIssues({
      language: 'en',
      segments: [seg(0, 2), seg(1, 3), seg(5, 4), seg(2.9, 3)],
    });
    expect(issues.map((i) => i.loc.join('.'))).toEqual([
      'body.segments.1.start',
      'body.segments.2.end',
      'body.segments.3.start',
    ]);
  });
});

describe('TranscriptLibrary', () => {
  it('attaches by MD5 in any case, keeps only the documented fields, replaces, lists and detaches', async () => {
    const lib = new TranscriptLibrary(new MemoryStore());
    const extra = { ...seg(0, 1), confidence: 0.4 } as ReturnType<typeof seg>;
    const rec = await lib.attach(MD5, { language: 'en-US', segments: [extra] });
    expect(rec).toEqual({ md5: MD5.toLowerCase(), source: 'api', language: 'en-US', segments: [seg(0, 1)] });
    expect(await lib.forMd5(MD5.toLowerCase())).toEqual(rec);
    await lib.attach(MD5.toLowerCase(), { language: 'fr-FR', segments: [seg(0, 2, 'Bonjour.')] });
    expect((await lib.page({ limit: 100 })).items.map((t) => t.language)).toEqual(['fr-FR']);
    await lib.detach(MD5);
    expect(await lib.forMd5(MD5)).toBeUndefined();
    await expect(lib.detach(MD5)).rejects.toMatchObject({ status: 404, code: 'TRANSCRIPT_NOT_FOUND' });
    await expect(lib.attach(MD5, { language: 'en', segments: [seg(2, 1)] })).rejects.toMatchObject({
      status: 422,
    });
  });
});

describe('fixture sidecars', () => {
  let dir: string;
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const make = async (files: Record<string, string | Buffer>) => {
    dir = await mkdtemp(join(tmpdir(), 'sidecars-'));
    for (const [name, body] of Object.entries(files)) {
      await mkdir(join(dir, name, '..'), { recursive: true });
      await writeFile(join(dir, name), body);
    }
    return dir;
  };
  const transcript = JSON.stringify({ language: 'en-GB', segments: [seg(0, 1)] });

  it('pairs <audio file>.transcript.json with the MD5 of the audio beside it, at any depth', async () => {
    const audio = Buffer.from('not really audio, but bytes with an MD5');
    await make({ 'audio/x.mp3': audio, 'audio/x.mp3.transcript.json': transcript, 'apps.json': '[]' });
    expect(await readSidecars(dir)).toEqual([
      { file: 'audio/x.mp3', md5: md5hex(audio), transcript: JSON.parse(transcript) },
    ]);
    const lib = new TranscriptLibrary(new MemoryStore());
    await lib.seed(dir);
    expect((await lib.page({ limit: 100 })).items).toEqual([
      { md5: md5hex(audio), source: 'fixture', file: 'audio/x.mp3', ...JSON.parse(transcript) },
    ]);
  });

  it('refuses with a 422 naming the file: no audio beside it, a schema breach, a rule breach', async () => {
    await make({ 'a.mp3.transcript.json': transcript });
    await expect(readSidecars(dir)).rejects.toThrow(
      /fixtures\/a\.mp3\.transcript\.json: .*no audio file a\.mp3/,
    );
    await rm(dir, { recursive: true });
    await make({
      'a.mp3': 'x',
      'a.mp3.transcript.json': JSON.stringify({ language: 'en', segments: [{ start: 0 }] }),
    });
    await expect(readSidecars(dir)).rejects.toThrow(
      /fixtures\/a\.mp3\.transcript\.json: segments\[0\]\.end: Field required/,
    );
    await rm(dir, { recursive: true });
    const overlap = JSON.stringify({ language: 'en', segments: [seg(0, 2), seg(1, 3)] });
    await make({ 'a.mp3': 'x', 'a.mp3.transcript.json': overlap });
    await expect(new TranscriptLibrary(new MemoryStore()).checkFixtures(dir)).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(/fixtures\/a\.mp3\.transcript\.json: segments\[1\]\.start/),
    });
  });

  it('finds nothing in a folder without sidecars or no folder at all', async () => {
    await make({ 'apps.json': '[]' });
    expect(await readSidecars(dir)).toEqual([]);
    expect(await readSidecars(join(dir, 'missing'))).toEqual([]);
  });
});
