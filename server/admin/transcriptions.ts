import type { Handlers } from '../http/types.js';

/** Control API: list transcription tasks and force their status. */
export const transcriptionAdminHandlers = {
  listTranscriptions: async ({ query, services }) => ({
    status: 200,
    body: await services.transcriptions.list(query.client_id),
  }),

  forceTranscription: async ({ body, params, services }) => ({
    status: 200,
    body: await services.transcriptions.force(params.transcription_id, body.status, body.message),
  }),
} satisfies Handlers;
