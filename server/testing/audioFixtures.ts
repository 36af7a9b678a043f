import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fromRoot } from '../core/root.js';
import { completeUpload, md5hex, putPart, startUpload, type UploadedFile } from '../storage/uploadClient.js';

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

export type AudioFixture = (typeof AUDIO_FIXTURES)[keyof typeof AUDIO_FIXTURES];

export const audioPath = (f: AudioFixture): string => fromRoot('fixtures', 'audio', f.file);
export const readAudio = (f: AudioFixture): Promise<Buffer> => readFile(audioPath(f));
export const openAudio = (f: AudioFixture) => createReadStream(audioPath(f));

/**
 * Upload bytes through the partner API the way an app does (generate presigned URLs, PUT each
 * part, complete) and return the completed file, whose `DownloadUrl` can be transcribed.
 */
export async function uploadBytes(
  api: string,
  userToken: string,
  bytes: Buffer,
  filetype: string,
): Promise<UploadedFile> {
  const s = await startUpload(api, userToken, bytes.length, filetype);
  const part_list = [];
  for (const p of s.Parts) {
    const from = (p.PartNumber - 1) * s.ChunkSize;
    const r = await putPart(p.PresignedUrl, bytes.subarray(from, from + s.ChunkSize));
    if (r.status !== 200 || !r.etag) throw new Error(`PUT part ${p.PartNumber}: ${r.status} ${r.text}`);
    part_list.push({ PartNumber: p.PartNumber, ETag: r.etag });
  }
  const done = await completeUpload(api, userToken, {
    file_id: s.FileId,
    upload_id: s.UploadId,
    part_list,
    filetype,
    file_md5: md5hex(bytes),
  });
  if (done.status !== 200) throw new Error(`complete-upload: ${done.status} ${done.text}`);
  return done.body as UploadedFile;
}

export const uploadFixture = async (api: string, userToken: string, f: AudioFixture): Promise<UploadedFile> =>
  uploadBytes(api, userToken, await readAudio(f), f.filetype);
