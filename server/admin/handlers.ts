import { readFileSync } from 'node:fs';
import { SimError } from '../core/errors.js';
import { fromRoot } from '../core/root.js';
import { ADMIN_SERVERS, servedSpec } from '../docs/servedSpec.js';
import type { Handlers } from '../http/types.js';
import { deleteApp, resetAll, resetApp, type Services } from '../services.js';
import { adminSpec } from '../spec/openapi.js';
import { idPageReply, pageQueryOf } from './paging.js';

// Read once at start-up (a few hundred bytes), so the health check does no file I/O.
const packageVersion = (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { version: string })
  .version;

/** A client id named by a control call must be an app's: 404 otherwise. */
function knownApp(services: Services, clientId: string | undefined): string | undefined {
  if (clientId !== undefined && !services.apps.get(clientId))
    throw SimError.notFound('APP_NOT_FOUND', `No app with client_id ${clientId}`);
  return clientId;
}

/** Control API, foundation part: reset, apps, clock, health, and the admin document itself. */
export const adminHandlers = {
  resetState: async ({ body, services }) => {
    const clientId = (body as { client_id?: string } | undefined)?.client_id;
    if (clientId === undefined) await resetAll(services);
    else await resetApp(services, knownApp(services, clientId)!);
    return { status: 204 };
  },

  listApps: async (ctx) => idPageReply(ctx, await ctx.services.apps.page(pageQueryOf(ctx.query))),

  createPartnerApp: async ({ body, services }) => ({
    status: 201,
    body: await services.apps.create(body ?? {}),
  }),

  deletePartnerApp: async ({ params, services }) => {
    await deleteApp(services, params.client_id);
    return { status: 204 };
  },

  getClock: ({ query, services }) => ({
    status: 200,
    body: services.clocks.state(knownApp(services, query.client_id)),
  }),

  setClock: async ({ body, services }) => {
    knownApp(services, body.client_id);
    return { status: 200, body: await services.clocks.change(body) };
  },

  getHealth: ({ services }) => ({
    status: 200,
    body: {
      status: 'ok',
      uptime_s: process.uptime(),
      version: packageVersion,
      store: services.deps.store.kind,
    },
  }),

  getAdminSpec: ({ res, publicUrl }) => {
    res.type('text/yaml').send(servedSpec(adminSpec(), publicUrl, ADMIN_SERVERS));
    return undefined;
  },
} satisfies Handlers;
