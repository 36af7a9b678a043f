import { readFileSync } from 'node:fs';
import { toIso } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import { fromRoot } from '../core/root.js';
import type { Handlers } from '../http/types.js';
import { resetAll, resetApp } from '../services.js';
import { adminSpec } from '../spec/openapi.js';

let version: string | undefined;
const packageVersion = (): string => {
  version ??= (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { version: string }).version;
  return version;
};

/** Control API, foundation part: reset, apps, clock, health, and the admin document itself. */
export const adminHandlers = {
  resetState: async ({ body, services }) => {
    const clientId = (body as { client_id?: string } | undefined)?.client_id;
    if (clientId === undefined) await resetAll(services);
    else {
      if (!services.apps.get(clientId))
        throw SimError.notFound('APP_NOT_FOUND', `No app with client_id ${clientId}`);
      await resetApp(services, clientId);
    }
    return { status: 204 };
  },

  listApps: ({ services }) => ({ status: 200, body: services.apps.list() }),

  createPartnerApp: async ({ body, services }) => ({
    status: 201,
    body: await services.apps.create(body ?? {}),
  }),

  getClock: ({ services }) => {
    const { clock } = services.deps;
    return { status: 200, body: { now: toIso(clock.now()), offset_ms: clock.offsetMs } };
  },

  setClock: async ({ body, services }) => {
    const { clock, instance } = services.deps;
    if ('advance_ms' in body) clock.advance(body.advance_ms);
    else clock.set(Date.parse(body.now));
    await instance.update({ clockOffsetMs: clock.offsetMs });
    return { status: 200, body: { now: toIso(clock.now()), offset_ms: clock.offsetMs } };
  },

  getHealth: ({ services }) => ({
    status: 200,
    body: {
      status: 'ok',
      uptime_s: process.uptime(),
      version: packageVersion(),
      store: services.deps.store.kind,
    },
  }),

  getAdminSpec: ({ res }) => {
    res.type('text/yaml').send(adminSpec().source);
    return undefined;
  },
} satisfies Handlers;
