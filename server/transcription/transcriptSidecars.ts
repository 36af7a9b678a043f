import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fixtureError, fixtureIssues } from '../spec/fixtures.js';
import type { Transcript } from './model.js';

export const SIDECAR_SUFFIX = '.transcript.json';
export const TRANSCRIPT = { $ref: '#/components/schemas/Transcript' };

export interface Sidecar {
  /** The audio file, relative to the fixtures folder (`audio/meeting.mp3`). */
  file: string;
  md5: string;
  transcript: Transcript;
}

/**
 * Every `<audio file>.transcript.json` under the fixtures folder (e.g.
 * `audio/meeting.mp3.transcript.json` beside `audio/meeting.mp3`), checked against the
 * control API's `Transcript` schema, with the MD5 of its audio's bytes. A broken one is a 422
 * naming the file and field, as for the other fixtures (spec/fixtures.ts).
 */
export async function readSidecars(dir: string): Promise<Sidecar[]> {
  let names: string[];
  try {
    names = await readdir(dir, { recursive: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  // Read concurrently (start-up waits for them), judged in name order so the first broken
  // file reported is always the same one.
  const sidecars = names.filter((n) => n.endsWith(SIDECAR_SUFFIX)).sort();
  const read = sidecars.map((name) => {
    const file = relative(dir, join(dir, name.slice(0, -SIDECAR_SUFFIX.length)))
      .split('\\')
      .join('/');
    return {
      name,
      file,
      text: readFile(join(dir, name), 'utf8'),
      audio: readFile(join(dir, file)),
    };
  });
  for (const r of read) {
    r.text.catch(() => {});
    r.audio.catch(() => {});
  }
  const out: Sidecar[] = [];
  for (const { file, text: reading, audio: audioRead } of read) {
    const shown = `${file}${SIDECAR_SUFFIX}`;
    const whole = (msg: string, type: string) =>
      fixtureError(shown, [{ loc: ['fixtures', shown], msg, type }]);
    let body: unknown;
    let text: string;
    try {
      text = await reading;
      body = JSON.parse(text);
    } catch (e) {
      throw whole(`is not valid JSON: ${(e as Error).message}`, 'json_invalid');
    }
    const issues = fixtureIssues(SIDECAR_SUFFIX, text, TRANSCRIPT, body, ['fixtures', shown]);
    if (issues.length > 0) throw fixtureError(shown, issues);
    let audio: Buffer;
    try {
      audio = await audioRead;
    } catch {
      throw whole(`has no audio file ${file} beside it`, 'file_missing');
    }
    out.push({ file, md5: createHash('md5').update(audio).digest('hex'), transcript: body as Transcript });
  }
  return out;
}
