import type { Handlers } from '../http/types.js';

/** Partner API: submit and poll transcription tasks (TranscriptionService does the work). */
export const transcriptionHandlers = {
  createTranscription: async ({ auth, body, services, publicUrl }) => {
    const { task, warnings } = await services.transcriptions.accept(auth.app!, body, publicUrl);
    return { status: 200, body: task, warnings };
  },

  getTranscription: async ({ auth, params, services }) => ({
    status: 200,
    body: await services.transcriptions.get(auth.app!, params.transcription_id),
  }),
} satisfies Handlers;
