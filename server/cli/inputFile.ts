import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fromRoot } from '../core/root.js';

/** A file a command was given, where it was found, and the line that says so. */
export interface InputFile {
  path: string;
  from: 'working folder' | 'package';
  /** For the user when the package's copy is read: which one, named in full. */
  note?: string;
}

const FIXTURES = fromRoot('fixtures');

/**
 * The file `given` names, read from the working folder as any path is; when no such file is
 * there, a fixture of the package: `fixtures/audio/meeting.mp3` (as docs/cli.md writes it,
 * relative to a clone) or a bare `meeting.mp3` of fixtures/audio. So the docs' examples run
 * from an installed package (`npx partner-sim transcribe fixtures/audio/meeting.mp3`), where
 * the working folder is the user's project, not a clone. Nothing outside fixtures/ is taken
 * from the package, and a file in the working folder always wins.
 */
export function resolveInputFile(given: string, cwd: string = process.cwd()): InputFile {
  const here = resolve(cwd, given);
  const local: InputFile = { path: here, from: 'working folder' };
  if (existsSync(here) || isAbsolute(given)) return local;
  for (const candidate of [fromRoot(given), join(FIXTURES, 'audio', given)]) {
    const inside = relative(FIXTURES, candidate);
    if (inside.startsWith('..') || isAbsolute(inside) || !existsSync(candidate)) continue;
    return {
      path: candidate,
      from: 'package',
      note: `${given}: not in ${cwd}, using the partner-sim package's fixture ${candidate}`,
    };
  }
  return local;
}
