import type { Handlers } from '../http/types.js';

/** Control API: transcripts attached to audio by MD5 (rules in transcription/transcripts.ts). */
export const transcriptAdminHandlers = {
  listTranscripts: async ({ services }) => ({ status: 200, body: await services.transcripts.list() }),

  putTranscript: async ({ body, params, services }) => ({
    status: 200,
    body: await services.transcripts.attach(params.md5, body),
  }),

  deleteTranscript: async ({ params, services }) => {
    await services.transcripts.detach(params.md5);
    return { status: 204 };
  },
} satisfies Handlers;
