import type { Readable } from 'node:stream';
import type { FileSource } from '../domain/fileSource.js';
import { type EngineAudio, EngineError } from './engineClient.js';
import type { TaskRecord } from './model.js';

/** Audio held in memory to send to an engine (a file on disk is sent from disk, at any size). */
const MAX_ENGINE_AUDIO = 256 * 1024 * 1024;

/** A stream's bytes, up to `limit`; more is an EngineError (the stream is destroyed). */
async function readBounded(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > limit) throw new EngineError(`the audio is larger than ${limit} bytes`);
      chunks.push(chunk as Buffer);
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks);
}

/** The bytes of a task's stored audio, for its engine: the file found by id (its URL may have expired). */
export async function storedEngineAudio(
  files: FileSource | undefined,
  rec: TaskRecord,
): Promise<EngineAudio> {
  if (rec.source.kind !== 'storage') throw new EngineError('the task has no stored audio');
  const found = await files?.byId(rec.source.file_id);
  if (found?.status !== 'found')
    throw new EngineError(`the audio file could not be read: ${found?.reason ?? 'storage unavailable'}`);
  const filetype = rec.source.filetype;
  if (found.path) return { filetype, path: found.path };
  return { filetype, bytes: await readBounded(found.open(), MAX_ENGINE_AUDIO) };
}
