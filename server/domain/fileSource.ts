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
      open(): Readable;
      /** Absolute path when the bytes are one file on disk. */
      path?: string;
    }
  | { status: 'missing' | 'expired' | 'invalid'; reason: string };

/** The simulator's own storage, as the transcription service reads it (never over HTTP). */
export interface FileSource {
  /**
   * Resolve a URL: undefined when it is not a URL of this storage; else checked as S3 would.
   * A URL is of this storage when it carries one of its credentials, or when it is on
   * `ownUrl` (the simulator's own address) under the storage prefix, signed or not.
   */
  lookup(fileUrl: string, ownUrl?: string): Promise<FileLookup | undefined>;
  /**
   * A file a URL already resolved to, by id, without the URL's signature or expiry: a task
   * reads its audio after the submission (or after a restart), when the URL may have expired.
   */
  byId(fileId: string): Promise<FileLookup>;
}
