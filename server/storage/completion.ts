import { SimError } from '../core/errors.js';
import type { TokenClaims } from '../domain/tokens.js';
import type { components } from '../spec/api-types.js';
import type { StorageContext } from './context.js';
import { noSuchUpload } from './errors.js';
import { dropUpload } from './housekeeping.js';
import { bareEtag, type FileRecord, multipartEtag, type PartRecord, partKey } from './records.js';

export type CompleteRequest = components['schemas']['CompleteUploadRequest'];

/**
 * complete-upload. Checks, in this order: the session is the caller's (else 404
 * NoSuchUpload, so another user or app cannot even learn it exists), filetype as at creation,
 * part numbers strictly ascending, every listed part uploaded with that ETag, every part but
 * the last exactly ChunkSize, the total equal to filesize (which also catches missing parts);
 * then the object's MD5 (kept running while the parts arrived, see runningMd5.ts) is
 * compared with `file_md5`.
 * Only then is the session closed; a failed completion can be retried. The bytes are not
 * copied: the file is its parts' blobs, in order (downloads stream across them).
 */
export async function completeUpload(
  svc: StorageContext,
  user: TokenClaims,
  req: CompleteRequest,
  publicUrl: string,
) {
  // One completion per upload at a time; a concurrent one sees the outcome of the first. The
  // slot is taken before `complete` first awaits the store, so nothing slips in meanwhile.
  for (let p = svc.completing.get(req.upload_id); p; p = svc.completing.get(req.upload_id)) {
    await p.catch(() => undefined);
  }
  const work = complete(svc, user, req, publicUrl);
  svc.completing.set(req.upload_id, work);
  try {
    return await work;
  } finally {
    svc.completing.delete(req.upload_id);
  }
}

async function complete(svc: StorageContext, user: TokenClaims, req: CompleteRequest, publicUrl: string) {
  const s = await svc.session(req.upload_id);
  if (!s || s.file_id !== req.file_id || s.client_id !== user.client_id || s.sub !== user.sub) {
    throw noSuchUpload();
  }
  if (req.filetype !== s.filetype) {
    throw SimError.badRequest(
      'FILE_TYPE_INVALID',
      `filetype ${req.filetype} differs from the session's ${s.filetype}`,
    );
  }
  const list = req.part_list;
  for (let i = 1; i < list.length; i++) {
    if (list[i]!.PartNumber <= list[i - 1]!.PartNumber) {
      throw SimError.badRequest(
        'InvalidPartOrder',
        'The list of parts was not in ascending order. Parts must be ordered by part number.',
      );
    }
  }
  const stored = await Promise.all(
    list.map((entry) => svc.parts.get(partKey(s.upload_id, entry.PartNumber))),
  );
  const parts: PartRecord[] = list.map((entry, i) => {
    const rec = stored[i];
    if (!rec || rec.md5 !== bareEtag(entry.ETag).toLowerCase()) {
      throw SimError.badRequest(
        'InvalidPart',
        `One or more of the specified parts could not be found or the ETag did not match (part ${entry.PartNumber}).`,
      );
    }
    return rec;
  });
  const short = parts.slice(0, -1).find((p) => p.size !== s.chunk_size);
  if (short) {
    throw SimError.badRequest(
      'EntityTooSmall',
      `Part ${short.part_number} has ${short.size} bytes; every part but the last must be exactly ChunkSize (${s.chunk_size}).`,
    );
  }
  const total = parts.reduce((n, p) => n + p.size, 0);
  if (total !== s.filesize) {
    const listed = new Set(list.map((e) => e.PartNumber));
    const missing = Array.from({ length: s.part_count }, (_, i) => i + 1).filter((n) => !listed.has(n));
    const why = missing.length ? `; parts not listed: ${missing.slice(0, 20).join(', ')}` : '';
    throw SimError.badRequest(
      'FILE_SIZE_INVALID',
      `The parts add up to ${total} bytes, filesize is ${s.filesize}${why}.`,
    );
  }

  const md5 = await svc.fileMd5.fileMd5(
    s.upload_id,
    parts.map((p) => p.blob),
  );
  if (req.file_md5 !== undefined && req.file_md5 !== md5) {
    throw SimError.badRequest(
      'FILE_MD5_NOT_MATCH',
      `file_md5 does not match the uploaded content (MD5 ${md5}).`,
    );
  }
  const file: FileRecord = {
    file_id: s.file_id,
    client_id: s.client_id,
    sub: s.sub,
    filetype: s.filetype,
    size: total,
    md5,
    etag: multipartEtag(parts.map((p) => p.md5)),
    upload_id: s.upload_id,
    parts: parts.map((p) => ({ blob: p.blob, size: p.size })),
    created_ms: svc.clockOf(s.client_id).now(),
  };
  // The file record is the commit point (from then on the session counts as gone, even if a
  // crash keeps its records); then the session's records go, and the blobs the file uses stay.
  await svc.files.put(file.file_id, file);
  await dropUpload(svc, s);
  return {
    FileId: file.file_id,
    FileType: file.filetype,
    DownloadUrl: svc.downloadUrl(file, publicUrl),
    FileMd5: file.md5,
  };
}
