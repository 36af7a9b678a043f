import type { Handlers } from '../http/types.js';

/** Token exchange, refresh and user-token minting: parse, call the TokenService, send. */
export const tokenHandlers = {
  getPartnerToken: async ({ auth, services }) => ({
    status: 200,
    body: await services.tokens.issuePartnerToken(auth.app!),
  }),

  refreshPartnerToken: async ({ auth, body, region, services }) => ({
    status: 200,
    body: await services.tokens.refreshPartnerToken(auth.app, body.refresh_token, region),
  }),

  createUserToken: ({ auth, body, services }) => ({
    status: 200,
    body: services.tokens.issueUserToken(auth.partner!, body.user_id, body.expires_in),
  }),
} satisfies Handlers;
