import type { Handlers } from '../http/types.js';
import { storageInventory } from '../storage/inventory.js';

/** Control API over the fake bucket: read-only (sessions, parts, completed files). */
export const storageAdminHandlers = {
  listUploads: async ({ query, services, publicUrl }) => ({
    status: 200,
    body: await storageInventory(services.storage, query.client_id, publicUrl),
  }),
} satisfies Handlers;
