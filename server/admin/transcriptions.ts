import type { Handlers } from '../http/types.js';
import { idPageReply, pageQueryOf } from './paging.js';

/** Control API: list transcription tasks and force their status. */
export const transcriptionAdminHandlers = {
  listTranscriptions: async (ctx) =>
    idPageReply(ctx, await ctx.services.transcriptions.page(pageQueryOf(ctx.query))),

  forceTranscription: async ({ body, params, services }) => ({
    status: 200,
    body: await services.transcriptions.force(params.transcription_id, body.status, body.message),
  }),
} satisfies Handlers;
