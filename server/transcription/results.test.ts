import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EngineResult } from './engineWork.js';
import {
  type LiveResult,
  normalizeParams,
  type ResultShape,
  type SpecResult,
  type Transcript,
} from './model.js';
import { shapeResult } from './resultShape.js';
import { attachedHeard, EMBEDDING_DIM, heardFor, type ResultInput } from './results.js';

const input = (
  over: Partial<ResultInput> = {},
  params: Parameters<typeof normalizeParams>[0] = {},
): ResultInput => ({
  seed: 'test-seed',
  audioKey: 'md5:22db4d5daff5fd43c52c3c7d2e6d618d',
  duration: 47.3,
  params: normalizeParams(params),
  ...over,
});
const buildResult = async (i: ResultInput, shape: ResultShape, t?: Transcript) =>
  shapeResult(await heardFor(i, t), shape);
const spec = async (i: ResultInput) => (await buildResult(i, 'spec')) as SpecResult;
const live = async (i: ResultInput) => (await buildResult(i, 'live')) as LiveResult;

function checkSegments(segs: { start: number; end: number }[], duration: number) {
  let prevEnd = 0;
  for (const s of segs) {
    expect(s.start).toBeGreaterThanOrEqual(prevEnd);
    expect(s.end).toBeGreaterThan(s.start);
    expect(s.end).toBeLessThanOrEqual(duration);
    prevEnd = s.end;
  }
}

describe('deterministic results', () => {
  it('are the same for the same audio, seed and params, and differ otherwise', async () => {
    const a = await spec(input());
    expect(await spec(input())).toEqual(a);
    expect((await spec(input({ seed: 'other' }))).text).not.toBe(a.text);
    expect((await spec(input({ audioKey: 'md5:00000000000000000000000000000000' }))).text).not.toBe(a.text);
  });

  it('has text equal to the segments joined, segments ordered within 0…duration', async () => {
    for (const duration of [0.2, 1, 4.695, 47.3, 600]) {
      for (const decode_silence of [false, true]) {
        const r = await spec(input({ duration }, { vad: { decode_silence } }));
        expect(r.duration).toBe(duration);
        expect(r.segments.length).toBeGreaterThan(0);
        expect(r.text).toBe(r.segments.map((s) => s.text).join(' '));
        checkSegments(r.segments, duration);
        if (decode_silence) {
          expect(r.segments[0]!.start).toBe(0);
          expect(r.segments.at(-1)!.end).toBe(duration);
        }
      }
    }
  });

  it('uses one speaker without diarization, several in order of appearance with it, same words', async () => {
    const off = await spec(input());
    expect(new Set(off.segments.map((s) => s.speaker))).toEqual(new Set(['Speaker 1']));
    const on = await spec(input({}, { diarization: { enabled: true } }));
    expect(on.text).toBe(off.text);
    const order = [...new Set(on.segments.map((s) => s.speaker))];
    expect(order.length).toBeGreaterThan(1);
    expect(order).toEqual(order.map((_, i) => `Speaker ${i + 1}`));
    expect(off.embeddings).toBeUndefined();
  });

  it('reports the requested language, or en-US for auto', async () => {
    expect((await spec(input())).language).toBe('en-US');
    expect((await spec(input({}, { transcribe: { language: 'ja-JP' } }))).language).toBe('ja-JP');
  });

  it('returns one unit-length embedding per speaker only with return_embedding', async () => {
    const r = await spec(input({}, { diarization: { enabled: true, return_embedding: true } }));
    const speakers = [...new Set(r.segments.map((s) => s.speaker))].sort();
    expect(Object.keys(r.embeddings ?? {}).sort()).toEqual(speakers);
    for (const v of Object.values(r.embeddings!)) {
      expect(v).toHaveLength(EMBEDDING_DIM);
      expect(Math.hypot(...v)).toBeCloseTo(1, 2);
    }
  });

  it('has a live shape with speaker_id, short language and probability', async () => {
    const s = await spec(input({}, { diarization: { enabled: true, return_embedding: true } }));
    const l = await live(input({}, { diarization: { enabled: true, return_embedding: true } }));
    expect(l.results.map((x) => x.text)).toEqual(s.segments.map((x) => x.text));
    expect(l.results[0]).toMatchObject({ speaker_id: 'SPEAKER_00', language: 'en' });
    for (const x of l.results) {
      expect(x.speaker_id).toMatch(/^SPEAKER_\d\d$/);
      expect(x.language_probability).toBeGreaterThanOrEqual(0.85);
      expect(x.language_probability).toBeLessThanOrEqual(0.99);
    }
    expect(Object.keys(l.embeddings!).every((k) => k.startsWith('SPEAKER_'))).toBe(true);
    const named = await live(input({}, { transcribe: { language: 'de-DE' } }));
    expect(named.results.every((x) => x.language === 'de' && x.language_probability === 1)).toBe(true);
  });
});

describe('attached transcripts', () => {
  const t = {
    language: 'en-GB',
    segments: [
      { start: 0, end: 2, text: 'Hello there.', speaker: 'Alice' },
      { start: 2.5, end: 60, text: 'Goodbye.', speaker: 'Bob' },
    ],
  };

  it('are returned exactly, with the duration stretched to the last end only if the audio is shorter', async () => {
    const h = await attachedHeard(t, input({ duration: 47.3 }));
    expect(h.duration).toBe(60);
    expect((await attachedHeard(t, input({ duration: 75 }))).duration).toBe(75);
    const r = (await buildResult(input({ duration: 75 }), 'spec', t)) as SpecResult;
    expect(r).toEqual({
      text: 'Hello there. Goodbye.',
      language: 'en-GB',
      duration: 75,
      segments: t.segments,
    });
    // Live's ids, in order of appearance, whatever the transcript calls its speakers.
    const l = (await buildResult(input({}, { transcribe: { language: 'en-GB' } }), 'live', t)) as LiveResult;
    expect(l.results.map((x) => [x.speaker_id, x.language, x.language_probability])).toEqual([
      ['SPEAKER_00', 'en', 1],
      ['SPEAKER_01', 'en', 1],
    ]);
  });

  it('get one deterministic embedding per speaker label with return_embedding', async () => {
    const params = { diarization: { return_embedding: true } };
    const a = await attachedHeard(t, input({}, params));
    expect(a.embeddings?.map((e) => [e.speaker, e.speaker_id])).toEqual([
      ['Alice', 'SPEAKER_00'],
      ['Bob', 'SPEAKER_01'],
    ]);
    expect(a.embeddings?.[0]?.vector).toHaveLength(EMBEDDING_DIM);
    expect((await attachedHeard(t, input({}, params))).embeddings).toEqual(a.embeddings);
    expect((await attachedHeard(t, input())).embeddings).toBeUndefined();
  });
});

describe('every source names speakers and language probability one way', () => {
  // The fixture's own sidecar (meeting.mp3, "Speaker 1"), a transcript labelled by name, an
  // engine's answer and the made-up words: live's SPEAKER_NN in order of appearance, and the
  // probability 1 when the task named its language, a detection's 0.85-0.99 for auto.
  const sidecar = JSON.parse(
    readFileSync(new URL('../../fixtures/audio/meeting.mp3.transcript.json', import.meta.url), 'utf8'),
  ) as Transcript;
  const named: Transcript = {
    language: 'en-US',
    segments: [
      { start: 0, end: 1, text: 'One.', speaker: 'Bob' },
      { start: 1, end: 2, text: 'Two.', speaker: 'Alice' },
      { start: 2, end: 3, text: 'Three.', speaker: 'Bob' },
    ],
  };
  const engine: EngineResult = {
    key: 'k',
    md5: 'm',
    language: 'en',
    segments: [
      // As engineWork.ts numbers the diarization's speakers: in order of appearance.
      { start: 0, end: 1, text: 'Hi.', speaker: 0 },
      { start: 1, end: 2, text: 'Yes.', speaker: 1 },
      { start: 2, end: 3, text: 'Right.', speaker: 0 },
    ],
  };
  const sources = {
    fixture: (i: ResultInput) => heardFor(i, sidecar),
    attached: (i: ResultInput) => heardFor(i, named),
    engine: (i: ResultInput) => heardFor(i, undefined, engine),
    fake: (i: ResultInput) => heardFor(i, undefined),
  };

  it.each(Object.entries(sources))('%s', async (_name, heard) => {
    const diarized = { diarization: { enabled: true, return_embedding: true } };
    for (const language of ['auto', 'de-DE']) {
      const i = input({}, { ...diarized, transcribe: { language } });
      const l = shapeResult(await heard(i), 'live') as LiveResult;
      const ids = l.results.map((x) => x.speaker_id);
      expect(ids.every((x) => /^SPEAKER_\d\d$/.test(x))).toBe(true);
      const order = [...new Set(ids)];
      expect(order).toEqual(order.map((_, n) => `SPEAKER_${String(n).padStart(2, '0')}`));
      expect(Object.keys(l.embeddings ?? {})).toEqual(order);
      for (const x of l.results)
        if (language === 'auto') {
          expect(x.language_probability).toBeGreaterThanOrEqual(0.85);
          expect(x.language_probability).toBeLessThanOrEqual(0.99);
        } else expect(x.language_probability).toBe(1);
      // The same audio reads the same.
      expect(shapeResult(await heard(i), 'live')).toEqual(l);
    }
  });
});
