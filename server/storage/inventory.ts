import { toIso } from '../core/clock.js';
import type { components } from '../spec/admin-types.js';
import { type Page, recordPage } from '../store/recordPage.js';
import type { StorageService } from './storageService.js';

export type StorageInventory = components['schemas']['StorageInventory'];

/**
 * Where a page of the inventory starts, for sessions and files each: absent, from the start;
 * an id, after it; null, that list is done (the other goes on).
 */
export interface InventoryPosition {
  uploads?: string | null | undefined;
  files?: string | null | undefined;
}

const done = <T>(): Page<T> => ({ items: [] });

/**
 * The control API's read-only view of the bucket (optionally one app's), a page at a time:
 * up to `limit` sessions (in id order, with the parts received so far) and up to `limit`
 * completed files (in id order, with a fresh signed download URL). Each list is read a page
 * at a time from the store (one app's through its index), and parts only for the sessions
 * shown, so a page costs the same however much the bucket holds.
 */
export async function storageInventory(
  storage: StorageService,
  q: { clientId?: string | undefined; limit: number; at?: InventoryPosition | undefined },
  publicUrl: string,
): Promise<{ body: StorageInventory; next?: InventoryPosition }> {
  const only = q.clientId === undefined ? undefined : { field: 'client_id', value: q.clientId };
  const [uploads, files] = await Promise.all([
    q.at?.uploads === null
      ? done<never>()
      : recordPage(storage.uploads, (u) => u.upload_id, { after: q.at?.uploads, limit: q.limit, only }),
    q.at?.files === null
      ? done<never>()
      : recordPage(storage.files, (f) => f.file_id, { after: q.at?.files, limit: q.limit, only }),
  ]);
  const parts = await Promise.all(uploads.items.map((u) => storage.parts.findBy('upload_id', u.upload_id)));
  const body: StorageInventory = {
    uploads: uploads.items.map((u, i) => ({
      upload_id: u.upload_id,
      file_id: u.file_id,
      client_id: u.client_id,
      filetype: u.filetype,
      filesize: u.filesize,
      part_count: u.part_count,
      created_at: toIso(u.created_ms),
      expires_at: toIso(u.expires_ms),
      parts: parts[i]!.sort((a, b) => a.part_number - b.part_number).map((p) => ({
        part_number: p.part_number,
        size: p.size,
        etag: `"${p.md5}"`,
      })),
    })),
    files: files.items.map((f) => ({
      file_id: f.file_id,
      client_id: f.client_id,
      filetype: f.filetype,
      size: f.size,
      md5: f.md5,
      etag: f.etag,
      created_at: toIso(f.created_ms),
      download_url: storage.downloadUrl(f, publicUrl),
    })),
  };
  if (uploads.next === undefined && files.next === undefined) return { body };
  return { body, next: { uploads: uploads.next ?? null, files: files.next ?? null } };
}
