import type { LiveResult, Result, ResultShape, SpecResult } from './model.js';

/** One segment of a transcript with both of its speaker labels (seed and live naming). */
interface HeardSegment {
  start: number;
  end: number;
  text: string;
  /** Seed label, e.g. `Speaker 1`. */
  speaker: string;
  /** Live label, e.g. `SPEAKER_00`. */
  speaker_id: string;
  language_probability: number;
}

/** What a task heard, before it is put in the shape a client asked for. */
export interface Heard {
  /** BCP-47 code, e.g. `en-US`. */
  language: string;
  duration: number;
  segments: HeardSegment[];
  /** Only with `return_embedding`: one vector per speaker, in order of first appearance. */
  embeddings?: { speaker: string; speaker_id: string; vector: number[] }[];
}

const embeddingsBy = (h: Heard, key: 'speaker' | 'speaker_id') =>
  h.embeddings ? { embeddings: Object.fromEntries(h.embeddings.map((e) => [e[key], e.vector])) } : {};

/**
 * The result in the shape asked for. `both` is the seed's fields plus the live `results[]`
 * (what every known client parses); its embeddings are keyed by the live labels, since
 * embeddings are a live-observed field and `results[]` readers look them up by `speaker_id`.
 */
export function shapeResult(h: Heard, shape: ResultShape): Result {
  // Live (faster-whisper style) names the primary language subtag only.
  const short = h.language.split('-')[0]!.toLowerCase();
  const results = h.segments.map((s) => ({
    start: s.start,
    end: s.end,
    text: s.text,
    speaker_id: s.speaker_id,
    language: short,
    language_probability: s.language_probability,
  }));
  const text = h.segments.map((s) => s.text).join(' ');
  if (shape === 'live') {
    const live: LiveResult = { text, language: short, duration: h.duration, results };
    return { ...live, ...embeddingsBy(h, 'speaker_id') };
  }
  const spec: SpecResult = {
    text,
    language: h.language,
    duration: h.duration,
    segments: h.segments.map((s) => ({ start: s.start, end: s.end, text: s.text, speaker: s.speaker })),
  };
  if (shape === 'spec') return { ...spec, ...embeddingsBy(h, 'speaker') };
  return { ...spec, results, ...embeddingsBy(h, 'speaker_id') };
}
