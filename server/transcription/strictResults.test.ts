import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pollProblems } from '../testing/strictClient.js';
import type { EngineResult } from './engineWork.js';
import { normalizeParams, type ResultShape, type Transcript } from './model.js';
import { shapeResult } from './resultShape.js';
import { heardFor, type ResultInput } from './results.js';
import { taskBody } from './taskBodies.js';

// The strictest public TS client's poll checks (testing/strictClient.ts) over every result
// source and shape: made-up words, an attached transcript, the audio fixtures' own sidecars,
// a speech engine's answer (as engineClient.ts hands it on: any finite times, in any order),
// each in the spec, live and both shapes, under any params and duration.

const fixture = (file: string, duration: number) => ({
  duration,
  transcript: JSON.parse(
    readFileSync(new URL(`../../fixtures/audio/${file}.transcript.json`, import.meta.url), 'utf8'),
  ) as Transcript,
});
// Durations as the simulator reads them (fixtures/audio/README.md).
const FIXTURES = [fixture('hello.wav', 4.695), fixture('meeting.mp3', 5.94), fixture('note.m4a', 4.325)];

const params = fc.record({
  transcribe: fc.record({ language: fc.constantFrom('auto', 'en-US', 'de-DE', 'ja') }),
  diarization: fc.record({ enabled: fc.boolean(), return_embedding: fc.boolean() }),
  vad: fc.record({ decode_silence: fc.boolean() }),
});
const shape = fc.constantFrom<ResultShape>('spec', 'live', 'both');
const duration = fc.double({ min: 0.05, max: 3 * 3600, noNaN: true });
const time = fc.double({ min: -30, max: 4 * 3600, noNaN: true });
const text = fc.string({ minLength: 1, maxLength: 20 }).filter((t) => t.trim() !== '');

/** Valid as the control API takes it: in order, no overlap (transcripts.ts checks that on PUT). */
const attached = fc
  .array(
    fc.tuple(
      fc.double({ min: 0, max: 60, noNaN: true }),
      fc.double({ min: 0.01, max: 60, noNaN: true }),
      text,
      fc.constantFrom('Speaker 1', 'Speaker 2', 'Anna', 'SPEAKER_07'),
    ),
    {
      minLength: 1,
      maxLength: 12,
    },
  )
  .map((rows): Transcript => {
    let t = 0;
    const segments = rows.map(([gap, len, words, speaker]) => {
      const start = Math.round((t + gap) * 1000) / 1000;
      t = Math.round((start + len) * 1000) / 1000;
      return { start, end: t, text: words, speaker };
    });
    return { language: 'en-US', segments };
  });

/** What engineClient.ts passes on: finite times, `end` at least `start`, non-empty text. */
const engine = fc
  .array(fc.tuple(time, time, text, fc.option(fc.nat(3), { nil: undefined })), {
    minLength: 1,
    maxLength: 12,
  })
  .map(
    (rows): EngineResult => ({
      key: 'k',
      md5: 'm',
      language: 'en',
      segments: rows.map(([start, end, words, speaker]) => ({
        start,
        end: Math.max(start, end),
        text: words,
        ...(speaker === undefined ? {} : { speaker }),
      })),
    }),
  );

const source = fc.oneof(
  fc.record({ kind: fc.constant('made-up' as const), duration }),
  fc.record({ kind: fc.constant('attached' as const), duration, transcript: attached }),
  fc.record({ kind: fc.constant('fixture' as const), n: fc.nat(FIXTURES.length - 1) }),
  fc.record({ kind: fc.constant('engine' as const), duration, result: engine }),
);

describe("every result source, as the strictest client's poll reads it", () => {
  it('answers SUCCESS with segments in order, starts >= 0, start <= end <= duration, id as asked', async () => {
    await fc.assert(
      fc.asyncProperty(
        source,
        params,
        shape,
        fc.stringMatching(/^[0-9a-f]{8,32}$/),
        async (src, p, sh, hex) => {
          const input = (d: number): ResultInput => ({
            seed: 'strict',
            audioKey: `md5:${hex}`,
            duration: d,
            params: normalizeParams(p),
          });
          const heard =
            src.kind === 'made-up'
              ? await heardFor(input(src.duration), undefined)
              : src.kind === 'attached'
                ? await heardFor(input(src.duration), src.transcript)
                : src.kind === 'fixture'
                  ? await heardFor(input(FIXTURES[src.n]!.duration), FIXTURES[src.n]!.transcript)
                  : await heardFor(input(src.duration), undefined, src.result);
          const id = `task_exec_${hex}`;
          const body = taskBody(id, { status: 'SUCCESS' }, shapeResult(heard, sh));
          expect(pollProblems(body as unknown as Record<string, unknown>, id)).toEqual([]);
        },
      ),
      { numRuns: 300, seed: 49 },
    );
  });
});
