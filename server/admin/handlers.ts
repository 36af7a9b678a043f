import { readFileSync } from 'node:fs';
import { type SimClock, toIso } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import { fromRoot } from '../core/root.js';
import { changeClock } from '../domain/clockControl.js';
import type { Handlers } from '../http/types.js';
import { resetAll, resetApp } from '../services.js';
import { adminSpec } from '../spec/openapi.js';

// Read once at start-up (a few hundred bytes), so the health check does no file I/O.
const packageVersion = (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { version: string })
  .version;

const clockState = (clock: SimClock) => ({
  now: toIso(clock.now()),
  offset_ms: Math.round(clock.offsetMs),
  frozen: clock.frozenAtMs !== undefined,
});

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

  getClock: ({ services }) => ({ status: 200, body: clockState(services.deps.clock) }),

  setClock: async ({ body, services }) => {
    const { clock, instance } = services.deps;
    await changeClock(clock, instance, body);
    return { status: 200, body: clockState(clock) };
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

  getAdminSpec: ({ res }) => {
    res.type('text/yaml').send(adminSpec().source);
    return undefined;
  },
} satisfies Handlers;
