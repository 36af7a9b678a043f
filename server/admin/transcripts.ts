import type { Handlers } from '../http/types.js';
import { idPageReply, pageQueryOf } from './paging.js';

/** Control API: transcripts attached to audio by MD5 (rules in transcription/transcripts.ts). */
export const transcriptAdminHandlers = {
  listTranscripts: async (ctx) =>
    idPageReply(
      ctx,
      await ctx.services.transcripts.page(
        pageQueryOf(ctx.query, { noApp: 'attached transcripts are matched by audio MD5 for every app' }),
      ),
    ),

  putTranscript: async ({ body, params, services }) => ({
    status: 200,
    body: await services.transcripts.attach(params.md5, body),
  }),

  deleteTranscript: async ({ params, services }) => {
    await services.transcripts.detach(params.md5);
    return { status: 204 };
  },
} satisfies Handlers;
