import type { components } from '../../server/spec/api-types.js';

/**
 * A reference transcription client, as a partner app would write it: submit a file URL, poll
 * every few seconds until a terminal status, and read the transcript defensively — the live
 * service was seen answering `data.results[]` where the spec documents `data.segments[]`
 * (live notes "Transcription"). It depends only on the generated API types.
 */
export type TranscriptionTask = components['schemas']['TranscriptionTask'];
type Schemas = components['schemas'];
/** Every member optional (the generated type marks members with a server default as required). */
export type TranscriptionParams = {
  [K in keyof Schemas['TranscriptionParams']]?: Partial<NonNullable<Schemas['TranscriptionParams'][K]>>;
};

export interface TranscriptLine {
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

export interface PollOptions {
  /** How long to wait between polls; apps use 3–5 s. */
  intervalMs?: number;
  /** Give up after this long (apps use 3–20 minutes). */
  timeoutMs?: number;
  /** Waits `ms` (a timer in an app; tests move the simulator's clock instead). */
  wait: (ms: number) => Promise<void>;
}

const headers = (app: ClientApp) => ({
  'x-client-id': app.client_id,
  'x-client-api-key': app.api_key,
  'content-type': 'application/json',
});

async function call(url: string, init: RequestInit): Promise<TranscriptionTask> {
  const r = await fetch(url, init);
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${init.method} ${url}: ${r.status} ${text}`);
  return JSON.parse(text) as TranscriptionTask;
}

export const submitTranscription = (
  api: string,
  app: ClientApp,
  file_url: string,
  params?: TranscriptionParams,
) =>
  call(`${api}/open/partner/ai/transcriptions/`, {
    method: 'POST',
    headers: headers(app),
    body: JSON.stringify({ file_url, ...(params ? { params } : {}) }),
  });

export const getTranscription = (api: string, app: ClientApp, id: string) =>
  call(`${api}/open/partner/ai/transcriptions/${encodeURIComponent(id)}`, {
    method: 'GET',
    headers: headers(app),
  });

const TERMINAL = new Set(['SUCCESS', 'FAILURE', 'REVOKED']);

/** Poll until SUCCESS, FAILURE or REVOKED; returns the final task and every status seen. */
export async function pollTranscription(
  api: string,
  app: ClientApp,
  id: string,
  opts: PollOptions,
): Promise<{ task: TranscriptionTask; seen: string[] }> {
  const interval = opts.intervalMs ?? 3000;
  const seen: string[] = [];
  for (let waited = 0; ; waited += interval) {
    const task = await getTranscription(api, app, id);
    if (seen.at(-1) !== task.status) seen.push(task.status);
    if (TERMINAL.has(task.status)) return { task, seen };
    if (waited >= (opts.timeoutMs ?? 20 * 60_000))
      throw new Error(`transcription ${id} still ${task.status}`);
    await opts.wait(interval);
  }
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
