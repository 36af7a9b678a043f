import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { adminSpec } from '../spec/openapi.js';
import { validatorsFor } from '../spec/validators.js';
import type { Transcript } from './model.js';

export const SIDECAR_SUFFIX = '.transcript.json';

export interface Sidecar {
  /** The audio file, relative to the fixtures folder (`audio/meeting.mp3`). */
  file: string;
  md5: string;
  transcript: Transcript;
}

/**
 * Every `<audio file>.transcript.json` under the fixtures folder (e.g.
 * `audio/meeting.mp3.transcript.json` beside `audio/meeting.mp3`), checked against the
 * control API's `Transcript` schema, with the MD5 of its audio's bytes. Read once, at seed.
 */
export async function readSidecars(dir: string): Promise<Sidecar[]> {
  let names: string[];
  try {
    names = await readdir(dir, { recursive: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const spec = adminSpec();
  const op = spec.get('putTranscript');
  const out: Sidecar[] = [];
  for (const name of names.filter((n) => n.endsWith(SIDECAR_SUFFIX)).sort()) {
    const file = relative(dir, join(dir, name.slice(0, -SIDECAR_SUFFIX.length)))
      .split('\\')
      .join('/');
    const where = `fixtures: ${name}`;
    let body: unknown;
    try {
      body = JSON.parse(await readFile(join(dir, name), 'utf8'));
    } catch (e) {
      throw new Error(`${where}: ${(e as Error).message}`);
    }
    const issues = validatorsFor(spec).validateRequest(op, {
      params: { md5: '0'.repeat(32) },
      query: {},
      headers: {},
      hasBody: true,
      body,
      contentType: 'application/json',
    });
    if (issues.length > 0)
      throw new Error(`${where}: ${issues.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; ')}`);
    let audio: Buffer;
    try {
      audio = await readFile(join(dir, file));
    } catch {
      throw new Error(`${where}: no audio file ${file} beside it`);
    }
    out.push({ file, md5: createHash('md5').update(audio).digest('hex'), transcript: body as Transcript });
  }
  return out;
}
