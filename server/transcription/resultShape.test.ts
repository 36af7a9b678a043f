import { describe, expect, it } from 'vitest';
import type { LiveResult, SpecResult } from './model.js';
import { type Heard, shapeResult } from './resultShape.js';

const heard: Heard = {
  language: 'pt-BR',
  duration: 3,
  segments: [
    {
      start: 0,
      end: 1,
      text: 'Olá.',
      speaker: 'Speaker 1',
      speaker_id: 'SPEAKER_00',
      language_probability: 0.9,
    },
    {
      start: 1,
      end: 3,
      text: 'Tudo bem?',
      speaker: 'Speaker 2',
      speaker_id: 'SPEAKER_01',
      language_probability: 0.9,
    },
  ],
  embeddings: [
    { speaker: 'Speaker 1', speaker_id: 'SPEAKER_00', vector: [1, 0] },
    { speaker: 'Speaker 2', speaker_id: 'SPEAKER_01', vector: [0, 1] },
  ],
};

describe('result shapes', () => {
  it('both: the seed fields and live results[] of the same segments; embeddings by live label', () => {
    const r = shapeResult(heard, 'both') as SpecResult;
    expect(r.text).toBe('Olá. Tudo bem?');
    expect(r.segments.map((s) => s.speaker)).toEqual(['Speaker 1', 'Speaker 2']);
    expect(r.results?.map((s) => [s.text, s.speaker_id, s.language])).toEqual([
      ['Olá.', 'SPEAKER_00', 'pt'],
      ['Tudo bem?', 'SPEAKER_01', 'pt'],
    ]);
    expect(r.embeddings).toEqual({ SPEAKER_00: [1, 0], SPEAKER_01: [0, 1] });
  });

  it('spec: seed fields only, embeddings by seed label; live: the live fields, no segments', () => {
    const s = shapeResult(heard, 'spec') as SpecResult;
    expect(Object.keys(s).sort()).toEqual(['duration', 'embeddings', 'language', 'segments', 'text']);
    expect(Object.keys(s.embeddings ?? {})).toEqual(['Speaker 1', 'Speaker 2']);
    const l = shapeResult({ ...heard, embeddings: undefined }, 'live') as LiveResult;
    expect(Object.keys(l).sort()).toEqual(['duration', 'language', 'results', 'text']);
    expect(l.results).toHaveLength(2);
  });
});
