import { describe, expect, it } from 'vitest';
import type { Params } from './model.js';
import { fakeHeard } from './results.js';

const params = (p: Partial<Params> = {}): Params =>
  ({
    language: 'auto',
    model: 'm',
    decode_silence: false,
    diarization: true,
    return_embedding: false,
    ...p,
  }) as Params;
const heard = (audioKey: string, duration = 90, p: Partial<Params> = {}) =>
  fakeHeard({ seed: 'meeting', audioKey, duration, params: params(p) });
// A sentence: a capital (or a name) first, words, then . ? or ! — what a reader expects.
const SENTENCE = /^[A-Z][^.?!]*[.?!]$/;
const sentencesOf = (text: string) => text.match(/[^.?!]+[.?!]/g)?.map((s) => s.trim()) ?? [];

describe('readable made-up speech (no engine, no attached transcript)', () => {
  it('is whole sentences with punctuation, opening and closing like a meeting', async () => {
    for (const key of ['md5:a', 'md5:b', 'md5:c', 'url:https://x/y.mp3']) {
      const h = await heard(key);
      for (const s of h.segments) {
        expect(s.text, key).toBe(sentencesOf(s.text).join(' '));
        for (const sentence of sentencesOf(s.text)) expect(sentence, key).toMatch(SENTENCE);
      }
      const all = h.segments.map((s) => s.text).join(' ');
      // Word salad has almost no function words; a meeting is full of them.
      const words = all.toLowerCase().match(/[a-z']+/g) ?? [];
      const common = words.filter((w) => ['the', 'we', 'i', 'to', 'on', 'with', 'is', 'about'].includes(w));
      expect(common.length / words.length, key).toBeGreaterThan(0.15);
      expect(h.segments.at(-1)?.text).toMatch(/(Thank|Thanks)/);
    }
  });

  it('is the same for the same audio and differs between audio', async () => {
    expect(await heard('md5:same')).toEqual(await heard('md5:same'));
    const a = (await heard('md5:one')).segments.map((s) => s.text).join(' ');
    const b = (await heard('md5:two')).segments.map((s) => s.text).join(' ');
    expect(a).not.toBe(b);
  });

  it('passes turns between several speakers with diarization, and a question is answered by another', async () => {
    let questions = 0;
    for (const key of ['md5:d1', 'md5:d2', 'md5:d3']) {
      const segs = (await heard(key, 180)).segments;
      expect(new Set(segs.map((s) => s.speaker)).size, key).toBeGreaterThan(1);
      segs.forEach((s, i) => {
        const next = segs[i + 1];
        if (!next || !s.text.endsWith('?')) return;
        questions++;
        expect(next.speaker, `${key}: "${s.text}" → "${next.text}"`).not.toBe(s.speaker);
      });
    }
    expect(questions).toBeGreaterThan(0);
  });
});
