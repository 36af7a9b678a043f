import { type FileRecord, partKey, type UploadRecord, uploadPrefix } from './records.js';
import type { StorageService } from './storageService.js';

/**
 * The file a session became, if it did. The file record is completion's commit point: a
 * session still on record next to it is one a crash left behind between the two writes, and
 * counts as gone (its blobs are the file's now).
 */
export function committedFile(svc: StorageService, s: UploadRecord): FileRecord | undefined {
  const file = svc.files.get(s.file_id);
  return file?.upload_id === s.upload_id ? file : undefined;
}

/**
 * Remove one session with its part records and bytes. When the session became a file, the
 * file's blobs stay and only the unused ones (parts uploaded again, parts not listed) go.
 */
export async function dropUpload(svc: StorageService, s: UploadRecord): Promise<void> {
  const file = committedFile(svc, s);
  await svc.uploads.delete(s.upload_id);
  svc.fileMd5.forget(s.upload_id);
  const keys = Array.from({ length: s.part_count }, (_, i) => partKey(s.upload_id, i + 1));
  const blobs = keys.map((k) => svc.parts.get(k)?.blob);
  await Promise.all(keys.map((k) => svc.parts.delete(k)));
  if (!file) {
    await svc.blobs.deletePrefix(uploadPrefix(s.upload_id));
    return;
  }
  const keep = new Set(file.parts.map((p) => p.blob));
  const unused = blobs.filter((b): b is string => b !== undefined && !keep.has(b));
  await Promise.all(unused.map((b) => svc.blobs.delete(b)));
}

/**
 * Up to `budget` sessions past their lifetime on their own app's clock (and not being
 * completed), removed with their bytes; the background housekeeper (core/housekeeper.ts)
 * calls this, never a client request. The scan only compares numbers; the removals are what
 * the budget bounds.
 */
export async function sweepAbandoned(svc: StorageService, budget: number): Promise<number> {
  let found = 0;
  const stale = svc.uploads.filter(
    (s) =>
      found < budget &&
      s.expires_ms <= svc.clockOf(s.client_id).now() &&
      !svc.completing.has(s.upload_id) &&
      ++found > 0,
  );
  for (const s of stale) await dropUpload(svc, s);
  return stale.length;
}

/** A per-app reset: the app's sessions, parts and files, with their bytes. */
export async function dropApp(svc: StorageService, clientId: string): Promise<void> {
  for (const s of svc.uploads.filter((u) => u.client_id === clientId)) await dropUpload(svc, s);
  await svc.parts.deleteWhere((p) => p.client_id === clientId);
  for (const f of svc.files.filter((x) => x.client_id === clientId)) {
    await svc.files.delete(f.file_id);
    await svc.blobs.deletePrefix(uploadPrefix(f.upload_id));
  }
}
