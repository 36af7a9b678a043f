import { partKey, uploadPrefix } from './records.js';
import type { StorageService } from './storageService.js';

/**
 * Start-up clean-up of what a crash (SIGKILL, power loss) can leave behind in storage: blobs
 * of part PUTs cut before their record was written, replaced parts whose old blob was not yet
 * deleted, and the part records of a session whose removal stopped half-way. Runs before the
 * server listens, so no PUT is in flight: any blob no part or file record names is garbage.
 */
export async function removeOrphans(svc: StorageService): Promise<{ blobs: number; parts: number }> {
  // A start-up check, not the request path: reading every part and file once is its job. The
  // sessions (100,000 of them, perhaps) are asked for one by one, only those parts name, so
  // start-up does not wait for the whole collection to load (store/lazyCollection.ts).
  const allParts = await svc.parts.list();
  const uploads = new Set<string>();
  for (const id of new Set(allParts.map((p) => p.upload_id))) if (await svc.uploads.get(id)) uploads.add(id);
  const staleParts = allParts.filter((p) => !uploads.has(p.upload_id));
  for (const p of staleParts) await svc.parts.delete(partKey(p.upload_id, p.part_number));
  const used = new Set<string>();
  const fileUploads = new Set<string>();
  for (const p of allParts) if (uploads.has(p.upload_id)) used.add(p.blob);
  for (const f of await svc.files.list()) {
    fileUploads.add(f.upload_id);
    for (const part of f.parts) used.add(part.blob);
  }
  const orphans = (await svc.blobs.keys()).filter((k) => !used.has(k));
  for (const k of orphans) await svc.blobs.delete(k);
  // Folders of sessions that are gone entirely (no session, no file): nothing in them is used.
  const candidates = new Set(
    orphans
      .map((k) => /^uploads\/([^/]+)\//.exec(k)?.[1])
      .filter((id): id is string => id !== undefined && !uploads.has(id) && !fileUploads.has(id)),
  );
  for (const id of candidates)
    if (!(await svc.uploads.get(id))) await svc.blobs.deletePrefix(uploadPrefix(id));
  return { blobs: orphans.length, parts: staleParts.length };
}
