import { partKey, uploadPrefix } from './records.js';
import type { StorageService } from './storageService.js';

/**
 * Start-up clean-up of what a crash (SIGKILL, power loss) can leave behind in storage: blobs
 * of part PUTs cut before their record was written, replaced parts whose old blob was not yet
 * deleted, and the part records of a session whose removal stopped half-way. Runs before the
 * server listens, so no PUT is in flight: any blob no part or file record names is garbage.
 */
export async function removeOrphans(svc: StorageService): Promise<{ blobs: number; parts: number }> {
  const staleParts = svc.parts.filter((p) => !svc.uploads.has(p.upload_id));
  for (const p of staleParts) await svc.parts.delete(partKey(p.upload_id, p.part_number));
  const used = new Set<string>();
  const fileUploads = new Set<string>();
  for (const p of svc.parts.list()) used.add(p.blob);
  for (const f of svc.files.list()) {
    fileUploads.add(f.upload_id);
    for (const part of f.parts) used.add(part.blob);
  }
  const orphans = (await svc.blobs.keys()).filter((k) => !used.has(k));
  for (const k of orphans) await svc.blobs.delete(k);
  // Folders of sessions that are gone entirely (no session, no file): nothing in them is used.
  const deadUploads = new Set(
    orphans
      .map((k) => /^uploads\/([^/]+)\//.exec(k)?.[1])
      .filter((id): id is string => id !== undefined && !svc.uploads.has(id) && !fileUploads.has(id)),
  );
  for (const id of deadUploads) await svc.blobs.deletePrefix(uploadPrefix(id));
  return { blobs: orphans.length, parts: staleParts.length };
}
