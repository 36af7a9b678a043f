import { SimError } from '../core/errors.js';
import type { Handlers } from '../http/types.js';
import type { Services } from '../services.js';
import type { DeliveryPosition } from '../webhooks/deliveries.js';
import { afterSeqOf, decodeCursor, limitOf, pageReply, seqPageReply } from './paging.js';

/** The app named by the path, or 404. */
function app(services: Services, clientId: string): string {
  if (!services.apps.get(clientId))
    throw SimError.notFound('APP_NOT_FOUND', `No app with client_id ${clientId}`);
  return clientId;
}

/** Control API: webhook endpoints, the delivery log, redeliver and test events. */
export const webhookAdminHandlers = {
  listWebhookEndpoints: async (ctx) =>
    seqPageReply(
      ctx,
      await ctx.services.webhooks.endpoints.page(app(ctx.services, ctx.params.client_id), {
        afterSeq: afterSeqOf(ctx.query.cursor),
        limit: limitOf(ctx.query.limit),
      }),
    ),

  createWebhookEndpoint: async ({ params, body, services }) => ({
    status: 201,
    body: await services.webhooks.endpoints.create(app(services, params.client_id), body),
  }),

  updateWebhookEndpoint: async ({ params, body, services }) => ({
    status: 200,
    body: await services.webhooks.endpoints.change(app(services, params.client_id), params.endpoint_id, body),
  }),

  deleteWebhookEndpoint: async ({ params, services }) => {
    await services.webhooks.endpoints.remove(app(services, params.client_id), params.endpoint_id);
    return { status: 204 };
  },

  sendTestWebhook: async ({ params, body, services }) => ({
    status: 202,
    body: await services.webhooks.sendTest(app(services, params.client_id), params.endpoint_id, body?.event),
  }),

  listWebhookDeliveries: async (ctx) => {
    const { params, query, services } = ctx;
    const before = decodeCursor<DeliveryPosition>(
      query.cursor,
      (v) => Number.isSafeInteger(v.ms) && typeof v.id === 'string',
    );
    const page = await services.webhooks.deliveries.page(app(services, params.client_id), {
      event: query.event,
      before,
      limit: limitOf(query.limit),
    });
    return pageReply(ctx, page.items, page.next);
  },

  redeliverWebhook: async ({ params, services }) => ({
    status: 202,
    body: await services.webhooks.redeliver(app(services, params.client_id), params.delivery_id),
  }),
} satisfies Handlers;
