import { toIso } from '../core/clock.js';
import type { components } from '../spec/admin-types.js';
import type { Collection } from '../store/store.js';
import type { PartRecord } from './records.js';
import type { StorageService } from './storageService.js';

export type StorageInventory = components['schemas']['StorageInventory'];

/**
 * The control API's read-only view of the bucket (optionally one app's): sessions with the
 * parts received so far and completed files with a fresh signed download URL. Parts are
 * grouped in one pass, so the cost is linear in what is stored, not sessions × parts.
 */
export async function storageInventory(
  storage: StorageService,
  clientId: string | undefined,
  publicUrl: string,
): Promise<StorageInventory> {
  const mine = <T>(c: Collection<T>): Promise<T[]> =>
    clientId === undefined ? c.list() : c.findBy('client_id', clientId);
  const partsBy = new Map<string, PartRecord[]>();
  for (const p of await mine(storage.parts)) {
    const list = partsBy.get(p.upload_id) ?? [];
    list.push(p);
    partsBy.set(p.upload_id, list);
  }
  const uploads = (await mine(storage.uploads))
    .sort((a, b) => b.created_ms - a.created_ms)
    .map((u) => ({
      upload_id: u.upload_id,
      file_id: u.file_id,
      client_id: u.client_id,
      filetype: u.filetype,
      filesize: u.filesize,
      part_count: u.part_count,
      created_at: toIso(u.created_ms),
      expires_at: toIso(u.expires_ms),
      parts: (partsBy.get(u.upload_id) ?? [])
        .sort((a, b) => a.part_number - b.part_number)
        .map((p) => ({ part_number: p.part_number, size: p.size, etag: `"${p.md5}"` })),
    }));
  const files = (await mine(storage.files))
    .sort((a, b) => b.created_ms - a.created_ms)
    .map((f) => ({
      file_id: f.file_id,
      client_id: f.client_id,
      filetype: f.filetype,
      size: f.size,
      md5: f.md5,
      etag: f.etag,
      created_at: toIso(f.created_ms),
      download_url: storage.downloadUrl(f, publicUrl),
    }));
  return { uploads, files };
}
