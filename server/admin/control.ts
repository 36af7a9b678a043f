import { SimError } from '../core/errors.js';
import type { Handlers } from '../http/types.js';

/** Query values arrive as strings (validated, not converted): read them as numbers here. */
const num = (v: unknown): number | undefined => (v === undefined ? undefined : Number(v));

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

  listRequests: ({ query, services }) => {
    const sinceMs = query.since === undefined ? undefined : Date.parse(query.since);
    if (sinceMs !== undefined && Number.isNaN(sinceMs))
      throw SimError.invalidField(['query', 'since'], 'Expected an ISO 8601 date-time');
    return {
      status: 200,
      body: services.journal.list({
        operation: query.operation,
        status: num(query.status),
        sinceMs,
        clientId: query.client_id,
        limit: num(query.limit) ?? 100,
      }),
    };
  },

  clearRequests: ({ query, services }) => {
    services.journal.clear(query.client_id);
    return { status: 204 };
  },
} satisfies Handlers;
