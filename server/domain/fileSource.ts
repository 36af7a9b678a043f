import type { Readable } from 'node:stream';

/** A completed upload as other areas (transcription) see it. */
export interface StoredFileInfo {
  file_id: string;
  client_id: string;
  filetype: string;
  size: number;
  md5: string;
  etag: string;
}

export type FileLookup =
  | {
      status: 'found';
      file: StoredFileInfo;
      open(): Readable /** absolute path when on disk */;
      path?: string;
    }
  | { status: 'missing' | 'expired' | 'invalid'; reason: string };

/** Resolves URLs that point at this simulator's storage. undefined = not our storage URL. */
export interface FileSource {
  lookup(fileUrl: string): FileLookup | undefined;
}
