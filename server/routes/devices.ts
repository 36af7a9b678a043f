import type { Handlers } from '../http/types.js';

/**
 * Device binding for partner apps (user token): the seed's binding query and the SDK's
 * sn-sign / bind / unbind extensions. The caller of bind and unbind is the user token's
 * account (`sub`) and its app (`client_id`).
 */
export const deviceHandlers = {
  getDeviceBinding: async ({ query, services }) => ({
    status: 200,
    body: await services.devices.binding(query, 'query'),
  }),

  signDeviceSerial: async ({ auth, body, services }) => ({
    status: 200,
    body: await services.devices.signed(body, auth.user!.region, auth.user!.client_id),
  }),

  verifyDeviceSignature: async ({ auth, body, services }) => ({
    status: 200,
    body: await services.devices.verify(body, auth.user!.region),
  }),

  generateSdkKeys: async ({ services }) => ({ status: 200, body: await services.devices.keyPair() }),

  bindDevice: async ({ auth, body, services }) => ({
    status: 200,
    body: await services.devices.bind(body, 'body', auth.user!),
  }),

  unbindDevice: async ({ auth, body, services }) => ({
    status: 200,
    body: await services.devices.unbind(body, 'body', auth.user!),
  }),
} satisfies Handlers;
