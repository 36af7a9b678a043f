import type { Readable } from 'node:stream';
import { SimError } from '../core/errors.js';
import type { FileLookup } from '../domain/fileSource.js';
import type { ByteRange } from './blobStore.js';
import { isOurCredential } from './presign.js';
import { parseRange } from './range.js';
import type { FileRecord } from './records.js';
import type { StorageService } from './storageService.js';
import { openParts } from './streams.js';

/** What a GET/HEAD of a DownloadUrl answers: the file, the one range asked for, its bytes. */
export interface Download {
  file: FileRecord;
  range?: ByteRange;
  open(): Readable;
}

const noSuchKey = () => SimError.notFound('NoSuchKey', 'The specified key does not exist.');

/** The path a file's DownloadUrl is signed for (relative to the storage mount). */
export const filePath = (fileId: string): string => `/files/${fileId}`;

/** GET/HEAD of a DownloadUrl: signature first (a HEAD may use the GET URL), then the key. */
export async function resolveDownload(
  svc: StorageService,
  fileId: string,
  query: URLSearchParams,
): Promise<FileRecord> {
  // Checked before the key, as S3 does, on the clock of the app the URL was signed for.
  svc.presigner.verify('GET', filePath(fileId), query, svc.urlNow);
  const file = await svc.files.get(fileId);
  if (!file) throw noSuchKey();
  return file;
}

/**
 * A download as S3 serves it: the whole object, or the one `Range` asked for (206); a range
 * that starts past the end is 416 InvalidRange, with the size in `Content-Range`.
 */
export async function download(
  svc: StorageService,
  fileId: string,
  query: URLSearchParams,
  rangeHeader: string | undefined,
): Promise<Download> {
  const file = await resolveDownload(svc, fileId, query);
  const range = parseRange(rangeHeader, file.size);
  if (range === 'unsatisfiable') {
    throw new SimError(416, 'InvalidRange', 'The requested range is not satisfiable', {
      headers: { 'Content-Range': `bytes */${file.size}` },
    });
  }
  return {
    file,
    ...(range ? { range } : {}),
    open: () => openParts(svc.blobs, file.parts, range),
  };
}

/** A file as the FileSource hands it out; a one-part file on disk also gives its path. */
function found(svc: StorageService, file: FileRecord): FileLookup {
  const { file_id, client_id, filetype, size, md5, etag } = file;
  // A one-part file is one blob: on disk, readers (e.g. music-metadata) may use its path.
  const path = file.parts.length === 1 ? svc.blobs.path(file.parts[0]!.blob) : undefined;
  return {
    status: 'found',
    file: { file_id, client_id, filetype, size, md5, etag },
    open: () => openParts(svc.blobs, file.parts),
    ...(path ? { path } : {}),
  };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const hostKey = (u: URL) => `${LOOPBACK.has(u.hostname) ? 'loopback' : u.hostname}:${u.port}`;

/** Whether `url` is on the simulator's own address (`own`), any loopback name counting as one. */
function onOwnHost(url: URL, own: string | undefined): boolean {
  if (own === undefined) return false;
  try {
    return hostKey(url) === hostKey(new URL(own));
  } catch {
    return false;
  }
}

/**
 * FileSource.lookup: resolve a DownloadUrl of this simulator without going through HTTP. A URL
 * on the storage host (the simulator's own address, or one of its credentials anywhere) is
 * judged as a GET of it would be, signature and all: never taken for audio elsewhere.
 */
export async function lookupUrl(
  svc: StorageService,
  fileUrl: string,
  ownUrl?: string,
): Promise<FileLookup | undefined> {
  let url: URL;
  try {
    url = new URL(fileUrl);
  } catch {
    return undefined;
  }
  const onStorageHost = onOwnHost(url, ownUrl) && /^\/storage(?:\/|$)/i.test(url.pathname);
  if (!onStorageHost && !isOurCredential(url.searchParams.get('X-Amz-Credential'))) return undefined;
  // On the simulator's address (`…/storage/files/…`) or the S3-shaped storage host (`/files/…`).
  const m = /(?:^|\/storage)\/files\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
  if (!m) {
    // As the storage host answers a path no URL was signed for (app.ts).
    if (url.searchParams.has('X-Amz-Signature'))
      return { status: 'invalid', reason: 'SignatureDoesNotMatch: the URL is not the one that was signed' };
    return { status: 'missing', reason: noSuchKey().message };
  }
  try {
    return found(svc, await resolveDownload(svc, m[1]!, url.searchParams));
  } catch (e) {
    if (!(e instanceof SimError)) throw e;
    if (e.code === 'AccessDenied') return { status: 'expired', reason: e.message };
    if (e.code === 'NoSuchKey') return { status: 'missing', reason: e.message };
    return { status: 'invalid', reason: `${e.code}: ${e.message}` };
  }
}

/** FileSource.byId: a file a URL already resolved to, read again later (no signature). */
export async function lookupId(svc: StorageService, fileId: string): Promise<FileLookup> {
  const file = await svc.files.get(fileId);
  return file ? found(svc, file) : { status: 'missing', reason: noSuchKey().message };
}
