import { readFile } from 'node:fs/promises';
import { fromRoot } from '../../server/core/root.js';
import type { Target } from '../target/types.js';
import { uploadFile } from './upload.js';

/**
 * A file_url for transcription: CONTRACT_AUDIO_URL when set; else, on a simulator, an
 * external URL (the simulator does not fetch it); on live, a fixture uploaded through the
 * upload operations, so the suite needs no audio host of its own.
 */
export async function audioUrl(t: Target, user: () => Promise<string>): Promise<string> {
  const configured = process.env.CONTRACT_AUDIO_URL?.trim();
  if (configured) return configured;
  if (t.kind !== 'live') return 'https://example.com/audio/meeting.mp3';
  return uploadedAudio(t, await user());
}

/** Upload fixtures/audio/meeting.mp3 and return its DownloadUrl. */
export async function uploadedAudio(t: Target, user: string): Promise<string> {
  const bytes = await readFile(fromRoot('fixtures', 'audio', 'meeting.mp3'));
  const { file } = await uploadFile(t, user, bytes, 'mp3');
  return file.body.DownloadUrl as string;
}

/** Poll settings: a hard deadline suited to the target (CONTRACT_POLL_DEADLINE_MS overrides). */
export function pollDeadlineMs(t: Target): number {
  const env = Number(process.env.CONTRACT_POLL_DEADLINE_MS);
  if (env > 0) return env;
  // On a simulator waiting is virtual (the clock is advanced), so a generous deadline is free.
  return t.kind === 'live' ? 20 * 60_000 : 5 * 60_000;
}
