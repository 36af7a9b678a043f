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

/** Control API: fault rules and the request journal. Thin: each calls one service method. */
export const controlHandlers = {
  createFault: async ({ body, services }) => ({ status: 201, body: await services.faults.create(body) }),

  listFaults: ({ query, services }) => ({ status: 200, body: services.faults.list(query.client_id) }),

  clearFaults: async ({ query, services }) => {
    await services.faults.clear(query.client_id);
    return { status: 204 };
  },

  deleteFault: async ({ params, services }) => {
    await services.faults.delete(params.id);
    return { status: 204 };
  },

  listRequests: async ({ query, services }) => ({
    status: 200,
    body: await services.journal.list({ ...journalQuery(query), limit: query.limit }),
  }),

  countRequests: async ({ query, services }) => ({
    status: 200,
    body: await services.journal.count(journalQuery(query)),
  }),

  clearRequests: async ({ query, services }) => {
    await services.journal.clear(query.client_id);
    return { status: 204 };
  },
} satisfies Handlers;
