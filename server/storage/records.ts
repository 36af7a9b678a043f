import { createHash } from 'node:crypto';

/** An upload session (collection `uploads`, keyed by upload_id). */
export interface UploadRecord {
  upload_id: string;
  file_id: string;
  client_id: string;
  /** The user (token `sub`) who started it: only they can complete it. */
  sub: string;
  filetype: string;
  filesize: number;
  chunk_size: number;
  part_count: number;
  created_ms: number;
  /** After this instant the session counts as abandoned and is swept with its bytes. */
  expires_ms: number;
}

/** One stored part (collection `uploadParts`, keyed `<upload_id>:<part>`): small records, so
 * a PUT never rewrites a record that grows with the number of parts. */
export interface PartRecord {
  upload_id: string;
  client_id: string;
  part_number: number;
  size: number;
  md5: string;
  blob: string;
  stored_ms: number;
}

/** A completed file (collection `files`, keyed by file_id). */
export interface FileRecord {
  file_id: string;
  client_id: string;
  sub: string;
  filetype: string;
  size: number;
  md5: string;
  /** Quoted, multipart form: `"<md5 of the binary part md5s>-<parts>"`. */
  etag: string;
  /** The session it came from: its parts' blobs (under `uploads/<upload_id>/`) are the file. */
  upload_id: string;
  /** The object is these blobs in order; completion does not copy bytes. */
  parts: { blob: string; size: number }[];
  created_ms: number;
}

export const partKey = (uploadId: string, part: number): string => `${uploadId}:${part}`;
export const uploadPrefix = (uploadId: string): string => `uploads/${uploadId}`;

/**
 * The upload filetypes live accepts (live notes, second pass: mp3 and opus only, WAV gets
 * FILE_TYPE_INVALID); `--upload-filetypes` adds more.
 */
export const LIVE_FILETYPES: readonly string[] = ['mp3', 'opus'];

/** The content type each known `filetype` is served as (others: application/octet-stream). */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  wav: 'audio/wav',
  // An .opus file is Ogg Opus, registered as audio/ogg (RFC 7845 §9); audio/opus names
  // bare Opus packets in RTP and makes some players refuse the download.
  opus: 'audio/ogg',
  ogg: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  webm: 'audio/webm',
  amr: 'audio/amr',
};

export const contentTypeOf = (filetype: string): string =>
  CONTENT_TYPES[filetype] ?? 'application/octet-stream';

/** S3's ETag of an object assembled from parts: MD5 of the concatenated binary part MD5s. */
export function multipartEtag(partMd5s: string[]): string {
  const h = createHash('md5');
  for (const m of partMd5s) h.update(Buffer.from(m, 'hex'));
  return `"${h.digest('hex')}-${partMd5s.length}"`;
}

/** ETags are accepted with or without their quotes (live notes: clients strip them). */
export const bareEtag = (etag: string): string =>
  etag
    .trim()
    .replace(/^W\//, '')
    .replace(/^"(.*)"$/, '$1');
