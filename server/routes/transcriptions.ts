import type { Handlers } from '../http/types.js';

/** Partner API: submit and poll transcription tasks (TranscriptionService does the work). */
export const transcriptionHandlers = {
  createTranscription: async ({ auth, body, services, publicUrl }) => {
    const { task, warnings } = await services.transcriptions.accept(auth.app!, body, publicUrl);
    return { status: 200, body: task, warnings };
  },

  getTranscription: async ({ auth, params, services }) => {
    const { task, source } = await services.transcriptions.getSourced(auth.app!, params.transcription_id);
    // Which source spoke (engine, attached transcript, made up): a header, the body is the API's.
    return { status: 200, body: task, ...(source ? { headers: { 'X-Sim-Transcript-Source': source } } : {}) };
  },
} satisfies Handlers;
