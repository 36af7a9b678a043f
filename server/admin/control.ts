import type { Handlers } from '../http/types.js';
import { cutPage } from '../store/recordPage.js';
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

import { afterSeqOf, decodeCursor, limitOf, pageReply, seqPageReply } from './paging.js';

/** The number in a journal id (`req_000042`): every journal numbers its entries so. */
const seqOf = (id: string): number => Number(id.slice(id.lastIndexOf('_') + 1));

/** Control API: fault rules and the request journal. Thin: each calls one service method. */
export const controlHandlers = {
  createFault: async ({ body, services }) => ({ status: 201, body: await services.faults.create(body) }),

  listFaults: (ctx) =>
    seqPageReply(
      ctx,
      ctx.services.faults.page({
        clientId: ctx.query.client_id,
        afterSeq: afterSeqOf(ctx.query.cursor),
        limit: limitOf(ctx.query.limit),
      }),
    ),

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
    const page = cutPage(entries, limit, (e) => ({ before: seqOf(e.id) }));
    return pageReply(ctx, page.items, page.next);
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
