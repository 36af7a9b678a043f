import { openAsBlob } from 'node:fs';

/**
 * The client of a local speech server that speaks the common `POST /v1/audio/transcriptions`
 * API (OpenAI's audio API; whisper.cpp's `whisper-server --inference-path
 * /v1/audio/transcriptions`, speaches, LocalAI): multipart `file`, `model`, `language`,
 * `response_format=verbose_json`, answered with `{language, duration, segments[{start, end,
 * text}]}`. Speaker turns come from LocalAI's `POST /v1/audio/diarization` (same multipart
 * form, answered with `segments[{speaker, start, end}]`) where one is configured.
 *
 * Everything a server answers is bounded (size, time) and checked: a bad answer is an
 * EngineError whose message says what went wrong, fit for the task's FAILURE message.
 */

/** An engine's answers are small (text and times); anything bigger is not one. */
const MAX_ENGINE_RESPONSE = 8 * 1024 * 1024;

export class EngineError extends Error {
  override readonly name = 'EngineError';
}

/** The audio to send: a file on disk (sent without reading it all first) or bytes. */
export interface EngineAudio {
  filetype: string;
  path?: string;
  bytes?: Buffer;
}

export interface EngineRequest {
  /** The transcription endpoint (see endpointUrl). */
  url: string;
  model: string;
  /** ISO-639-1 code, or undefined to let the engine detect it. */
  language?: string;
  timeoutMs: number;
}

interface EngineSegment {
  start: number;
  end: number;
  text: string;
}

export interface EngineTranscript {
  /** ISO-639-1 code when the engine named one ('english' is read as 'en'). */
  language?: string;
  segments: EngineSegment[];
}

export interface SpeakerTurn {
  start: number;
  end: number;
  speaker: string;
}

/**
 * Where to POST: a URL that already names an `/audio/transcriptions` (or `/audio/diarization`)
 * path is used as given; a server's base URL gets `/v1/audio/<what>` appended.
 */
export function endpointUrl(base: string, what: 'transcriptions' | 'diarization'): string {
  const trimmed = base.replace(/\/+$/, '');
  return new RegExp(`/audio/${what}$`).test(trimmed) ? trimmed : `${trimmed}/v1/audio/${what}`;
}

/** Whisper names languages in English words in verbose_json; the common ones, as codes. */
const LANGUAGE_NAMES: Record<string, string> = {
  english: 'en',
  german: 'de',
  french: 'fr',
  spanish: 'es',
  italian: 'it',
  portuguese: 'pt',
  dutch: 'nl',
  japanese: 'ja',
  chinese: 'zh',
  korean: 'ko',
  russian: 'ru',
  polish: 'pl',
  turkish: 'tr',
  swedish: 'sv',
  arabic: 'ar',
  hindi: 'hi',
};

function languageCode(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw === '') return undefined;
  const lower = raw.toLowerCase();
  if (/^[a-z]{2,3}(-[a-z0-9]{2,8})*$/.test(lower)) return lower.split('-')[0];
  return LANGUAGE_NAMES[lower];
}

async function audioBlob(audio: EngineAudio): Promise<Blob> {
  if (audio.path) return openAsBlob(audio.path);
  return new Blob([audio.bytes ?? Buffer.alloc(0)]);
}

/** The body, read up to `limit` bytes; more is an error (the reader is cancelled). */
async function boundedText(res: Response, limit: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new EngineError(`the speech engine's answer is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** POST the audio as multipart form data; the parsed JSON answer, or an EngineError. */
async function postAudio(
  url: string,
  audio: EngineAudio,
  fields: Record<string, string | undefined>,
  timeoutMs: number,
): Promise<unknown> {
  const form = new FormData();
  form.set('file', await audioBlob(audio), `audio.${audio.filetype}`);
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) form.set(k, v);
  const signal = AbortSignal.timeout(timeoutMs);
  let text: string;
  let status: number;
  try {
    // Never followed: the audio would be sent again to wherever the answer points.
    const res = await fetch(url, { method: 'POST', body: form, signal, redirect: 'manual' });
    status = res.status;
    if (status >= 300 && status < 400) {
      await res.body?.cancel().catch(() => {});
      const to = (res.headers.get('location') ?? '').slice(0, 200);
      throw new EngineError(
        `the speech engine answered a redirect (HTTP ${status}${to ? ` to ${to}` : ''}), not followed with the audio`,
      );
    }
    text = await boundedText(res, MAX_ENGINE_RESPONSE);
  } catch (e) {
    if (e instanceof EngineError) throw e;
    const err = e as Error;
    if (err.name === 'TimeoutError' || signal.aborted)
      throw new EngineError(`the speech engine did not answer within ${Math.round(timeoutMs / 1000)} s`);
    const cause = (err.cause as Error | undefined)?.message ?? err.message;
    throw new EngineError(`the speech engine could not be reached: ${cause}`);
  }
  if (status < 200 || status > 299) {
    const detail = text.replace(/\s+/g, ' ').trim().slice(0, 200);
    throw new EngineError(`the speech engine answered HTTP ${status}${detail ? `: ${detail}` : ''}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new EngineError('the speech engine answered something other than JSON');
  }
}

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;

/** Ask the engine for the words; segments checked (times in order, text a string). */
export async function transcribe(req: EngineRequest, audio: EngineAudio): Promise<EngineTranscript> {
  const body = (await postAudio(
    req.url,
    audio,
    { model: req.model, language: req.language, response_format: 'verbose_json' },
    req.timeoutMs,
  )) as { language?: unknown; segments?: unknown; text?: unknown } | null;
  if (body === null || typeof body !== 'object')
    throw new EngineError('the speech engine answered JSON without a transcript');
  const segments: EngineSegment[] = [];
  if (Array.isArray(body.segments)) {
    for (const s of body.segments as Record<string, unknown>[]) {
      if (!s || !isNum(s.start) || !isNum(s.end) || typeof s.text !== 'string')
        throw new EngineError('the speech engine answered a segment without numeric start/end and text');
      const text = s.text.trim();
      if (text === '') continue;
      segments.push({ start: s.start, end: Math.max(s.start, s.end), text });
    }
  } else if (typeof body.text !== 'string') {
    throw new EngineError(
      'the speech engine answered neither segments nor text (is response_format=verbose_json supported?)',
    );
  }
  const language = languageCode(body.language);
  return { ...(language ? { language } : {}), segments };
}

/** Ask a diarization endpoint (LocalAI's) who spoke when. */
export async function diarize(
  req: Omit<EngineRequest, 'language'>,
  audio: EngineAudio,
): Promise<SpeakerTurn[]> {
  const body = (await postAudio(req.url, audio, { model: req.model }, req.timeoutMs)) as {
    segments?: unknown;
  } | null;
  if (!body || !Array.isArray(body.segments))
    throw new EngineError('the diarization endpoint answered without segments');
  return (body.segments as Record<string, unknown>[]).map((s) => {
    if (!s || !isNum(s.start) || !isNum(s.end))
      throw new EngineError('the diarization endpoint answered a segment without numeric start/end');
    return { start: s.start, end: s.end, speaker: String(s.speaker ?? s.label ?? '0') };
  });
}
