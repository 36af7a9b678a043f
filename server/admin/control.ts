import type { Handlers } from '../http/types.js';
import type { JournalQuery } from '../store/store.js';

/** The journal filters the list and count calls share (admin.openapi.yaml parameters). */
function journalQuery(query: {
  operation?: string | undefined;
  status?: number | undefined;
  since?: string | undefined;
  client_id?: string | undefined;
  unverified?: boolean | undefined;
  method?: string | undefined;
  path?: string | undefined;
}): JournalQuery {
  return {
    operation: query.operation,
    status: query.status,
    sinceMs: query.since === undefined ? undefined : Date.parse(query.since),
    clientId: query.client_id,
    unverified: query.unverified,
    method: query.method,
    path: query.path,
  };
}

import { decodeCursor, encodeCursor, limitOf, nextLink } from './paging.js';

/** The number in a journal id (`req_000042`): every journal numbers its entries so. */
const seqOf = (id: string): number => Number(id.slice(id.lastIndexOf('_') + 1));

/** Control API: fault rules and the request journal. Thin: each calls one service method. */
export const controlHandlers = {
  createFault: async ({ body, services }) => ({ status: 201, body: await services.faults.create(body) }),

  listFaults: (ctx) => {
    const { query, services } = ctx;
    const at = decodeCursor<{ seq: number }>(query.cursor, (v) => Number.isSafeInteger(v.seq));
    const page = services.faults.page({
      clientId: query.client_id,
      afterSeq: at?.seq,
      limit: limitOf(query.limit),
    });
    const next = page.next === undefined ? undefined : encodeCursor({ seq: page.next });
    return { status: 200, body: page.items, headers: nextLink(ctx, next) };
  },

  clearFaults: async ({ query, services }) => {
    await services.faults.clear(query.client_id);
    return { status: 204 };
  },

  deleteFault: async ({ params, services }) => {
    await services.faults.delete(params.id);
    return { status: 204 };
  },

  listRequests: async (ctx) => {
    const { query, services } = ctx;
    const at = decodeCursor<{ before: number }>(query.cursor, (v) => Number.isSafeInteger(v.before));
    const limit = limitOf(query.limit);
    // One entry more than shown tells whether an older page follows.
    const entries = await services.journal.list({
      ...journalQuery(query),
      limit: limit + 1,
      beforeSeq: at?.before,
    });
    const shown = entries.slice(0, limit);
    const next = entries.length > limit ? encodeCursor({ before: seqOf(shown.at(-1)!.id) }) : undefined;
    return { status: 200, body: shown, headers: nextLink(ctx, next) };
  },

  countRequests: async ({ query, services }) => ({
    status: 200,
    body: await services.journal.count(journalQuery(query)),
  }),

  clearRequests: async ({ query, services }) => {
    await services.journal.clear(query.client_id);
    return { status: 204 };
  },
} satisfies Handlers;
