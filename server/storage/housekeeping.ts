import type { PagedSweep } from '../store/pagedSweep.js';
import type { StorageContext } from './context.js';
import { type FileRecord, partKey, type UploadRecord, uploadPrefix } from './records.js';

/**
 * The file a session became, if it did. The file record is completion's commit point: a
 * session still on record next to it is one a crash left behind between the two writes, and
 * counts as gone (its blobs are the file's now).
 */
export async function committedFile(svc: StorageContext, s: UploadRecord): Promise<FileRecord | undefined> {
  const file = await svc.files.get(s.file_id);
  return file?.upload_id === s.upload_id ? file : undefined;
}

/**
 * Remove one session with its part records and bytes. When the session became a file, the
 * file's blobs stay and only the unused ones (parts uploaded again, parts not listed) go.
 */
export async function dropUpload(svc: StorageContext, s: UploadRecord): Promise<void> {
  const file = await committedFile(svc, s);
  await svc.uploads.delete(s.upload_id);
  svc.fileMd5.forget(s.upload_id);
  const parts = await svc.parts.findBy('upload_id', s.upload_id);
  await Promise.all(parts.map((p) => svc.parts.delete(partKey(p.upload_id, p.part_number))));
  if (!file) {
    await svc.blobs.deletePrefix(uploadPrefix(s.upload_id));
    return;
  }
  const keep = new Set(file.parts.map((p) => p.blob));
  const unused = parts.map((p) => p.blob).filter((b) => !keep.has(b));
  await Promise.all(unused.map((b) => svc.blobs.delete(b)));
}

/**
 * The sessions of one page (see PagedSweep) past their lifetime on their own app's clock (and
 * not being completed), removed with their bytes; the background housekeeper
 * (core/housekeeper.ts) calls this, never a client request.
 */
export function sweepAbandoned(
  svc: StorageContext,
  sweep: PagedSweep<UploadRecord>,
  budget: number,
): Promise<number> {
  return sweep.run(budget, async (s) => {
    if (s.expires_ms > svc.clockOf(s.client_id).now() || svc.completing.has(s.upload_id)) return false;
    await dropUpload(svc, s);
    return true;
  });
}

/** Remove a completed file with its bytes (a reset, or its app's bound: store/appBound.ts). */
export async function dropFile(svc: StorageContext, f: FileRecord): Promise<void> {
  await svc.files.delete(f.file_id);
  await svc.blobs.deletePrefix(uploadPrefix(f.upload_id));
}

/** A per-app reset: the app's sessions, parts and files, with their bytes. */
export async function dropApp(svc: StorageContext, clientId: string): Promise<void> {
  for (const s of await svc.uploads.findBy('client_id', clientId)) await dropUpload(svc, s);
  await svc.parts.deleteBy('client_id', clientId);
  for (const f of await svc.files.findBy('client_id', clientId)) await dropFile(svc, f);
}
