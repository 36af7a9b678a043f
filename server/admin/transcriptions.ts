import type { Handlers } from '../http/types.js';
import { afterId, idPageReply, limitOf } from './paging.js';

/** Control API: list transcription tasks and force their status. */
export const transcriptionAdminHandlers = {
  listTranscriptions: async (ctx) =>
    idPageReply(
      ctx,
      await ctx.services.transcriptions.page({
        after: afterId(ctx.query.cursor),
        limit: limitOf(ctx.query.limit),
        only:
          ctx.query.client_id === undefined ? undefined : { field: 'client_id', value: ctx.query.client_id },
      }),
    ),

  forceTranscription: async ({ body, params, services }) => ({
    status: 200,
    body: await services.transcriptions.force(params.transcription_id, body.status, body.message),
  }),
} satisfies Handlers;
