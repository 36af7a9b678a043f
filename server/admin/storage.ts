import type { Handlers } from '../http/types.js';
import { type InventoryPosition, storageInventory } from '../storage/inventory.js';
import { decodeCursor, encodeCursor, limitOf, nextLink } from './paging.js';

const position = (v: unknown) => v === null || typeof v === 'string';

/** Control API over the fake bucket: read-only (sessions, parts, completed files). */
export const storageAdminHandlers = {
  listUploads: async (ctx) => {
    const { query, services, publicUrl } = ctx;
    const at = decodeCursor<InventoryPosition>(
      query.cursor,
      (v) => 'uploads' in v && 'files' in v && position(v.uploads) && position(v.files),
    );
    const page = await storageInventory(
      services.storage,
      { clientId: query.client_id, limit: limitOf(query.limit), at },
      publicUrl,
    );
    const next =
      page.next && encodeCursor({ uploads: page.next.uploads ?? null, files: page.next.files ?? null });
    return { status: 200, body: page.body, headers: nextLink(ctx, next) };
  },
} satisfies Handlers;
