import type { Readable } from 'node:stream';
import { SimError } from '../core/errors.js';
import { noSuchUpload } from './completion.js';
import { partKey, type UploadRecord, uploadPrefix } from './records.js';
import type { StorageService } from './storageService.js';
import { type Received, receive } from './streams.js';

/** A part PUT as the storage host received it: what the checks and the stream need. */
export interface PartUpload {
  fileId: string;
  partNumber: string | undefined;
  uploadId: string | undefined;
  /** The whole query string, as sent (the signature covers it). */
  query: URLSearchParams;
  contentLength: string | undefined;
  contentMd5: string | undefined;
  body: Readable;
}

/** S3's limit on part numbers, and so on the parts of a session. */
export const MAX_PARTS = 10_000;

export const tooLarge = (max: number): SimError =>
  SimError.badRequest(
    'EntityTooLarge',
    `Your proposed upload exceeds the maximum allowed size (${max} bytes).`,
  );

/** Content-MD5 as S3 reads it: base64 of exactly 16 bytes, else 400 InvalidDigest. */
function parseContentMd5(header: string | undefined): Buffer | undefined {
  if (header === undefined) return undefined;
  const md5 = Buffer.from(header, 'base64');
  if (md5.length !== 16 || md5.toString('base64') !== header.trim()) {
    throw SimError.badRequest('InvalidDigest', 'The Content-MD5 you specified was invalid.');
  }
  return md5;
}

/**
 * PUT of a part, checked in S3's order: signature parameters, expiry, signature, part
 * number, session, declared size and Content-MD5 syntax. Then the body is streamed to a
 * fresh blob while hashed, and only a complete, verified part replaces the previous one — so
 * a request that dies half-way (or a crash) never touches bytes a part record points at.
 */
export async function putPart(svc: StorageService, p: PartUpload): Promise<{ etag: string }> {
  const path = `/uploads/${p.fileId}`;
  // The URL expires on the clock of the app it was signed for (its credential names it).
  svc.presigner.verify('PUT', path, p.query, svc.urlNow);
  const part = Number(p.partNumber);
  if (!/^\d{1,5}$/.test(p.partNumber ?? '') || part < 1 || part > MAX_PARTS) {
    throw SimError.badRequest(
      'InvalidArgument',
      'Part number must be an integer between 1 and 10000, inclusive',
    );
  }
  const s = await svc.session(p.uploadId ?? '');
  if (!s || s.file_id !== p.fileId || svc.completing.has(s.upload_id)) throw noSuchUpload(path);
  if (p.contentLength !== undefined && Number(p.contentLength) > s.chunk_size) {
    throw tooLarge(s.chunk_size);
  }
  const wantMd5 = parseContentMd5(p.contentMd5);

  const blob = `${uploadPrefix(s.upload_id)}/${part}-${svc.blobName()}`;
  // Known as in flight until its record is written, so a recovery walk keeps it (recovery.ts).
  svc.writing.add(blob);
  svc.newBlobs?.add(blob);
  try {
    return await store(svc, s, part, blob, p, wantMd5, path);
  } finally {
    svc.writing.delete(blob);
  }
}

/** Stream the body to `blob`, check it, and make it the part (replacing any earlier blob). */
async function store(
  svc: StorageService,
  s: UploadRecord,
  part: number,
  blob: string,
  p: PartUpload,
  wantMd5: Buffer | undefined,
  path: string,
): Promise<{ etag: string }> {
  const reject = async (err: SimError): Promise<never> => {
    await svc.blobs.delete(blob);
    throw err;
  };
  let got: Received;
  try {
    got = await receive(p.body, await svc.blobs.sink(blob), s.chunk_size, svc.hashes);
  } catch {
    return reject(SimError.badRequest('IncompleteBody', 'The request body ended before all bytes arrived.'));
  }
  if (got.tooLarge) return reject(tooLarge(s.chunk_size));
  if (wantMd5 && !wantMd5.equals(got.md5)) {
    return reject(
      SimError.badRequest('BadDigest', 'The Content-MD5 you specified did not match what we received.'),
    );
  }
  // The session may have been completed, reset or swept while the bytes streamed in.
  if (!(await svc.session(s.upload_id)) || svc.completing.has(s.upload_id)) return reject(noSuchUpload(path));

  const md5 = got.md5.toString('hex');
  const key = partKey(s.upload_id, part);
  // update: of two PUTs of one part at once, each replaces exactly the blob it saw.
  const previous = await svc.parts.update(key, (prev) => ({
    next: {
      upload_id: s.upload_id,
      client_id: s.client_id,
      part_number: part,
      size: got.size,
      md5,
      blob,
      stored_ms: svc.clockOf(s.client_id).now(),
    },
    result: prev,
  }));
  svc.fileMd5.stored(s.upload_id, part, blob);
  if (previous && previous.blob !== blob) await svc.blobs.delete(previous.blob);
  return { etag: svc.apps.get(s.client_id)?.etag_quotes === 'strip' ? md5 : `"${md5}"` };
}
