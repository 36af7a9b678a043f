import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../core/root.js';
import { resolveInputFile } from './inputFile.js';
import type { CommandIo } from './io.js';
import { runTranscribe } from './transcribe.js';

// The docs name fixtures relative to a clone (`transcribe fixtures/audio/meeting.mp3`); run
// from a user's project, where no such file is, the package's copy is read and named.

let empty: string;
beforeAll(async () => {
  empty = await mkdtemp(join(tmpdir(), 'partner-sim-cwd-'));
});
afterAll(() => rm(empty, { recursive: true, force: true }));

describe('resolveInputFile', () => {
  it('reads a docs fixture name from the package when the working folder has none, and says so', () => {
    const meeting = fromRoot('fixtures', 'audio', 'meeting.mp3');
    for (const given of ['fixtures/audio/meeting.mp3', 'meeting.mp3']) {
      const input = resolveInputFile(given, empty);
      expect(input).toMatchObject({ path: meeting, from: 'package' });
      expect(input.note).toBe(
        `${given}: not in ${empty}, using the partner-sim package's fixture ${meeting}`,
      );
    }
  });

  it('prefers a file of that name in the working folder, and takes nothing but fixtures from the package', async () => {
    await writeFile(join(empty, 'meeting.mp3'), 'mine');
    expect(resolveInputFile('meeting.mp3', empty)).toEqual({
      path: join(empty, 'meeting.mp3'),
      from: 'working folder',
    });
    await rm(join(empty, 'meeting.mp3'));
    // package.json is in the package, but not a fixture; a missing fixture stays missing.
    for (const given of ['package.json', 'fixtures/../package.json', 'fixtures/audio/nope.mp3'])
      expect(resolveInputFile(given, empty)).toEqual({ path: join(empty, given), from: 'working folder' });
  });
});

describe('partner-sim transcribe from a folder without the fixtures', () => {
  it("transcribes docs/cli.md's fixtures/audio/meeting.mp3 and names the package's copy", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io: CommandIo = {
      stdout: { write: (c: string) => out.push(c) },
      stderr: { write: (c: string) => err.push(c) },
      env: {},
      cwd: empty,
    };
    expect(await runTranscribe(['fixtures/audio/meeting.mp3'], io)).toBe(0);
    expect(err.join('')).toBe('');
    const text = out.join('');
    expect(text.split('\n')[0]).toBe(
      `fixtures/audio/meeting.mp3: not in ${empty}, using the partner-sim package's fixture ${fromRoot('fixtures', 'audio', 'meeting.mp3')}`,
    );
    expect(text).toContain('(MD5 bfb650e733b2adbcef5a77b92b4d8eea checked)');
    expect(text).toMatch(/transcript \(en-US, 1 segment\):/);
  }, 30_000);
});
