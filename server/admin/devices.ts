import { deviceRecovery } from '../domain/deviceRecovery.js';
import type { Handlers } from '../http/types.js';
import { idPageReply, pageQueryOf } from './paging.js';

/** Control API over the device registry: arrange any binding state, inspect it, forget it. */
export const deviceAdminHandlers = {
  listDevices: async (ctx) =>
    idPageReply(ctx, await ctx.services.devices.page(pageQueryOf(ctx.query, { field: 'owner.client_id' }))),

  getDevice: async ({ params, services }) => ({ status: 200, body: await services.devices.get(params.sn) }),

  getDeviceRecovery: async ({ params, services }) => ({
    status: 200,
    body: await deviceRecovery(services.devices, params.sn),
  }),

  putDevice: async ({ body, params, services }) => ({
    status: 200,
    body: await services.devices.put(params.sn, body),
  }),

  deleteDevice: async ({ params, services }) => {
    await services.devices.remove(params.sn);
    return { status: 204 };
  },
} satisfies Handlers;
