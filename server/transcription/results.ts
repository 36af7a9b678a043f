import { createHash } from 'node:crypto';
import type { Faker } from '@faker-js/faker';
import type { EngineResult } from './engineWork.js';
import { endsWithQuestion, meetingSpeech, newMeeting } from './meetingText.js';
import type { Params, Transcript } from './model.js';
import type { Heard } from './resultShape.js';

/**
 * Deterministic transcripts (words that read like a meeting when nobody attached a transcript).
 * Each part of a result comes from its own faker stream, seeded by
 * the instance seed, the audio (its MD5, or its URL when the simulator cannot read it) and
 * only the params that part depends on — so turning diarization on changes the speakers but
 * not the words, and the same audio with the same params always reads the same.
 */
export interface ResultInput {
  /** Instance seed (--seed). */
  seed: string;
  /** What identifies the audio: `md5:<hex>` or `url:<file_url>`. */
  audioKey: string;
  duration: number;
  params: Params;
}

/** 256, as a third-party description of live answers gives. */
export const EMBEDDING_DIM = 256;
/** The generated words are English, so `auto` "detects" this. */
const DETECTED_LANGUAGE = 'en-US';

let fakerPromise: Promise<Faker> | undefined;
/** @faker-js/faker costs ~175 ms to import: load it at the first result, not at start-up. */
function getFaker(): Promise<Faker> {
  fakerPromise ??= import('@faker-js/faker').then(({ Faker, en, base }) => new Faker({ locale: [en, base] }));
  return fakerPromise;
}

function seeded(f: Faker, ...parts: (string | number | boolean)[]): Faker {
  const h = createHash('sha256').update(parts.join('\u0000')).digest();
  f.seed([h.readUInt32LE(0), h.readUInt32LE(4), h.readUInt32LE(8), h.readUInt32LE(12)]);
  return f;
}

const r2 = (x: number) => Math.round(x * 100) / 100;

interface Draft {
  start: number;
  end: number;
  text: string;
  speaker: number;
}

/**
 * Segments in order, without overlap, within 0…duration; gaps are silence unless decoded.
 * Timings first, then the words: each segment gets about as many words as people say in its
 * time (2–3 a second), as whole sentences of one meeting (meetingText.ts).
 */
function draftSegments(f: Faker, duration: number, decodeSilence: boolean): Draft[] {
  const out: (Draft & { words: number })[] = [];
  const gap = (min: number, max: number) => (decodeSilence ? 0 : f.number.float({ min, max }));
  let t = gap(0.1, 0.5);
  while (t < duration - 0.3) {
    const end = Math.min(t + f.number.float({ min: 1.2, max: 5.5 }), duration);
    const words = Math.max(1, Math.round((end - t) * f.number.float({ min: 2, max: 3 })));
    out.push({ start: r2(t), end: Math.min(r2(end), duration), text: '', speaker: 0, words });
    t = end + gap(0.15, 0.8);
  }
  if (out.length === 0 && duration > 0) out.push({ start: 0, end: duration, text: '', speaker: 0, words: 1 });
  // Decoded silence leaves no gap: the last segment runs to the end of the audio.
  if (decodeSilence && out.length > 0) out[out.length - 1]!.end = duration;
  const meeting = newMeeting(f);
  return out.map(({ words, ...d }, i) => ({
    ...d,
    text: meetingSpeech(f, meeting, words, i === out.length - 1),
  }));
}

/**
 * Speakers numbered in order of first appearance; 2–4 of them, fewer for short audio. A
 * question is answered by someone else; otherwise the turn passes about half the time.
 */
function assignSpeakers(f: Faker, segs: Draft[]): void {
  const count = Math.min(segs.length, f.number.int({ min: 2, max: 4 }));
  const labels = new Map<number, number>();
  let raw = 0;
  let asked = false;
  for (const s of segs) {
    const pass = f.datatype.boolean(0.55);
    if (labels.size > 0 && count > 1 && (pass || asked))
      raw = (raw + f.number.int({ min: 1, max: count - 1 })) % count;
    if (!labels.has(raw)) labels.set(raw, labels.size);
    s.speaker = labels.get(raw)!;
    asked = endsWithQuestion(s.text);
  }
}

function embedding(f: Faker): number[] {
  const v = Array.from({ length: EMBEDDING_DIM }, () => f.number.float({ min: -1, max: 1 }));
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => Math.round((x / norm) * 10_000) / 10_000);
}

const liveLabel = (n: number) => `SPEAKER_${String(n).padStart(2, '0')}`;

/**
 * Live's `speaker_id` for each label, whatever the source calls its speakers: `SPEAKER_00`,
 * `SPEAKER_01`, … in order of first appearance (the docs' transcription examples and the
 * clients that parse them; an attached transcript may say `Speaker 1` or `Alice`).
 */
function liveIds(labels: string[]): Map<string, string> {
  const ids = new Map<string, string>();
  for (const l of labels) if (!ids.has(l)) ids.set(l, liveLabel(ids.size));
  return ids;
}

/**
 * `language_probability` of each segment, one rule for every source: 1 when the task named
 * its language (live, as the docs' results show), else a detection's 0.85–0.99, drawn per
 * audio and segment so the same audio reads the same. An engine's exp(avg_logprob) is a
 * confidence in the words, not in the language, so it is not used for this.
 */
async function languageProbabilities(input: ResultInput, count: number): Promise<number[]> {
  if (input.params.language !== 'auto') return Array.from({ length: count }, () => 1);
  const p = seeded(await getFaker(), input.seed, input.audioKey, 'language-probability');
  return Array.from({ length: count }, () => p.number.float({ min: 0.85, max: 0.99, fractionDigits: 3 }));
}

/** The made-up transcript of audio nobody attached one to. */
export async function fakeHeard(input: ResultInput): Promise<Heard> {
  const f = await getFaker();
  const { seed, audioKey, duration, params } = input;
  const segs = draftSegments(
    seeded(f, seed, audioKey, 'words', params.language, params.model, params.decode_silence),
    duration,
    params.decode_silence,
  );
  if (params.diarization) assignSpeakers(seeded(f, seed, audioKey, 'speakers'), segs);
  const auto = params.language === 'auto';
  const probability = await languageProbabilities(input, segs.length);
  const heard: Heard = {
    language: auto ? DETECTED_LANGUAGE : params.language,
    duration,
    segments: segs.map((s, i) => ({
      start: s.start,
      end: s.end,
      text: s.text,
      speaker: `Speaker ${s.speaker + 1}`,
      speaker_id: liveLabel(s.speaker),
      language_probability: probability[i]!,
    })),
  };
  if (params.return_embedding) {
    heard.embeddings = [...new Set(segs.map((s) => s.speaker))].map((n) => ({
      speaker: `Speaker ${n + 1}`,
      speaker_id: liveLabel(n),
      vector: embedding(seeded(f, seed, audioKey, 'embedding', n)),
    }));
  }
  return heard;
}

/** One embedding per speaker label, seeded by the audio and the label (return_embedding). */
async function withEmbeddings(heard: Heard, input: ResultInput): Promise<Heard> {
  if (!input.params.return_embedding) return heard;
  const f = await getFaker();
  const labels = new Map(heard.segments.map((s) => [s.speaker_id, s.speaker]));
  heard.embeddings = [...labels].map(([id, label]) => ({
    speaker: label,
    speaker_id: id,
    vector: embedding(seeded(f, input.seed, input.audioKey, 'embedding', id)),
  }));
  return heard;
}

/**
 * An attached transcript, exactly: its segments, labels and language. The duration is the
 * audio's, stretched to the last segment's end if the transcript runs longer.
 */
export async function attachedHeard(t: Transcript, input: ResultInput): Promise<Heard> {
  const ids = liveIds(t.segments.map((s) => s.speaker));
  const probability = await languageProbabilities(input, t.segments.length);
  return withEmbeddings(
    {
      language: t.language,
      duration: Math.max(input.duration, ...t.segments.map((s) => s.end)),
      segments: t.segments.map((s, i) => ({
        ...s,
        speaker_id: ids.get(s.speaker)!,
        language_probability: probability[i]!,
      })),
    },
    input,
  );
}

/**
 * What a speech engine heard: its words and times; speakers from its diarization when the
 * task asked for diarization (else everyone is the first speaker); the language the task named,
 * else the one the engine detected (else the made-up one's).
 */
async function engineHeard(r: EngineResult, input: ResultInput): Promise<Heard> {
  const named = input.params.language !== 'auto';
  const language = named ? input.params.language : (r.language ?? DETECTED_LANGUAGE);
  // An engine's times as clients take them: none before 0, in order (a server may answer
  // otherwise; the strictest public client refuses a negative start or unsorted segments).
  const segments = r.segments
    .map((s) => ({ ...s, start: Math.max(0, s.start), end: Math.max(0, s.start, s.end) }))
    .sort((a, b) => a.start - b.start);
  const probability = await languageProbabilities(input, segments.length);
  return withEmbeddings(
    {
      language,
      duration: Math.max(input.duration, ...segments.map((s) => s.end)),
      segments: segments.map((s, i) => {
        const n = input.params.diarization ? (s.speaker ?? 0) : 0;
        return {
          start: s.start,
          end: s.end,
          text: s.text,
          speaker: `Speaker ${n + 1}`,
          speaker_id: liveLabel(n),
          language_probability: probability[i]!,
        };
      }),
    },
    input,
  );
}

/**
 * What a task heard, in this order: what its speech engine heard (an engine given is what
 * speaks: checking one with a fixture audio must not hear the fixture's transcript), else the
 * transcript attached to its audio, else the made-up one (`fake` lets the service put its
 * cache in front of `fakeHeard`). The one place this is decided.
 */
export function heardFor(
  input: ResultInput,
  attached: Transcript | undefined,
  engine: EngineResult | undefined = undefined,
  fake: (input: ResultInput) => Promise<Heard> = fakeHeard,
): Promise<Heard> {
  if (engine) return engineHeard(engine, input);
  if (attached) return attachedHeard(attached, input);
  return fake(input);
}
