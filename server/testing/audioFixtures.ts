import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { UploadedFile } from '../client/steps.js';
import { uploadBytes } from '../client/upload.js';
import { fromRoot } from '../core/root.js';

export { uploadBytes };

/**
 * The committed audio fixtures (fixtures/audio/README.md says how they were made) with their
 * durations as measured by ffprobe — an independent decoder, so tests compare the simulator's
 * reading against it rather than against itself.
 */
export const AUDIO_FIXTURES = {
  wav: { file: 'hello.wav', filetype: 'wav', duration: 4.695 },
  mp3: { file: 'meeting.mp3', filetype: 'mp3', duration: 5.94 },
  m4a: { file: 'note.m4a', filetype: 'm4a', duration: 4.262 },
} as const;

/** Fixture filetypes live's upload API refuses: a server must accept them to take every fixture. */
export const WIDE_FILETYPES = ['wav', 'm4a'];

export type AudioFixture = (typeof AUDIO_FIXTURES)[keyof typeof AUDIO_FIXTURES];

export const audioPath = (f: AudioFixture): string => fromRoot('fixtures', 'audio', f.file);
export const readAudio = (f: AudioFixture): Promise<Buffer> => readFile(audioPath(f));
export const openAudio = (f: AudioFixture) => createReadStream(audioPath(f));

export const uploadFixture = async (api: string, userToken: string, f: AudioFixture): Promise<UploadedFile> =>
  uploadBytes(api, userToken, await readAudio(f), f.filetype);

/**
 * Synthetic valid audio: `frames` MPEG-1 Layer III frames of silence (128 kbit/s, 48 kHz,
 * mono; 384 bytes and 24 ms each), so a test gets audio of a length (and MD5) of its own
 * without an encoder. Upload it with filetype `mp3`.
 */
export function silentMp3(frames: number): Buffer {
  const frame = Buffer.alloc(384);
  frame.set([0xff, 0xfb, 0x94, 0xc4]); // sync, MPEG-1 L3 no CRC; 128k, 48 kHz; mono
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}
