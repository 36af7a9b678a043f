import type { components } from '../spec/api-types.js';
import { send } from './http.js';

/**
 * A reference transcription client, as a partner app would write it: submit a file URL, poll
 * it to a terminal status (./poll.ts), and read the transcript defensively — the live
 * service was seen answering `data.results[]` where the spec documents `data.segments[]`
 * (live notes "Transcription"). It depends only on the generated API types.
 */
export type TranscriptionTask = components['schemas']['TranscriptionTask'];
type Schemas = components['schemas'];
/** Every member optional (the generated type marks members with a server default as required). */
export type TranscriptionParams = {
  [K in keyof Schemas['TranscriptionParams']]?: Partial<NonNullable<Schemas['TranscriptionParams'][K]>>;
};

interface TranscriptLine {
  start: number;
  end: number;
  text: string;
  speaker: string;
}

export interface Transcript {
  text: string;
  language: string | undefined;
  lines: TranscriptLine[];
}

export interface ClientApp {
  client_id: string;
  api_key: string;
}

/** Transcription operations authenticate with the app's id and API key (not its secret). */
export const apiKeyHeaders = (app: ClientApp): Record<string, string> => ({
  'x-client-id': app.client_id,
  'x-client-api-key': app.api_key,
});

/** The task's address, for polling (GET, no trailing slash). */
export const taskUrl = (api: string, id: string): string =>
  `${api}/open/partner/ai/transcriptions/${encodeURIComponent(id)}`;

/** Submit a task (note the trailing slash); answers PENDING with an empty `data`. */
export async function submitTranscription(
  api: string,
  app: ClientApp,
  file_url: string,
  params?: TranscriptionParams,
): Promise<TranscriptionTask> {
  const r = await send('createTranscription', `${api}/open/partner/ai/transcriptions/`, {
    method: 'POST',
    headers: { ...apiKeyHeaders(app), 'content-type': 'application/json' },
    body: JSON.stringify({ file_url, ...(params ? { params } : {}) }),
  });
  return r.body as TranscriptionTask;
}

/** The transcript of a SUCCESS task in either result shape. */
export function readTranscript(task: TranscriptionTask): Transcript {
  const data = task.data as Record<string, unknown>;
  if (Array.isArray(data.segments)) {
    const lines = (data.segments as components['schemas']['Segment'][]).map(
      ({ start, end, text, speaker }) => ({
        start,
        end,
        text,
        speaker,
      }),
    );
    return {
      text: String(data.text ?? lines.map((l) => l.text).join(' ')),
      language: data.language as string,
      lines,
    };
  }
  if (Array.isArray(data.results)) {
    const results = data.results as components['schemas']['LiveSegment'][];
    const lines = results.map(({ start, end, text, speaker_id }) => ({
      start,
      end,
      text,
      speaker: speaker_id,
    }));
    return { text: lines.map((l) => l.text).join(' '), language: results[0]?.language, lines };
  }
  throw new Error(`transcription ${task.transcription_id}: no transcript in data`);
}
