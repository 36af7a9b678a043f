import { describe, expect, it } from 'vitest';
import { type DEMO_US, http } from '../testing/http.js';
import {
  advance,
  DELAY,
  expectValidTask,
  externalUrl,
  poll,
  submit,
  useTranscriptionServers,
} from '../testing/transcriptionKit.js';

const { sim, start } = useTranscriptionServers();

// Two readers written as the public clients are: the iOS/Android templates read only
// `data.results[]`; the seed-following libraries read only `data.segments[]`.
type Data = Record<string, unknown>;
const resultsReader = (d: Data) =>
  ((d.results as { text: string }[] | undefined) ?? [])
    .map((r) => r.text)
    .join(' ')
    .split(/\s+/)
    .filter(Boolean);
const segmentsReader = (d: Data) =>
  ((d.segments as { text: string }[] | undefined) ?? [])
    .map((s) => s.text)
    .join(' ')
    .split(/\s+/)
    .filter(Boolean);

async function finished(s = sim(), app?: typeof DEMO_US, params?: unknown) {
  const id = (await submit(s, { file_url: externalUrl(), ...(params ? { params } : {}) }, app)).body
    .transcription_id;
  await advance(s, DELAY);
  const r = await poll(s, id, app);
  expect(r.body.status).toBe('SUCCESS');
  return r.body;
}

describe('default result shape (both)', () => {
  it('gives a results[]-only reader and a segments-only reader the same words', async () => {
    const body = await finished();
    expectValidTask(body);
    const fromResults = resultsReader(body.data);
    expect(fromResults.length).toBeGreaterThan(3);
    expect(segmentsReader(body.data)).toEqual(fromResults);
    expect(body.data.text.split(/\s+/)).toEqual(fromResults);
    expect(body.data.results[0]).toMatchObject({ speaker_id: 'SPEAKER_00', language: 'en' });
    expect(body.data.segments[0].speaker).toBe('Speaker 1');
  });

  it('adds 256-float embeddings keyed by the live speaker labels with return_embedding', async () => {
    const params = { diarization: { enabled: true, return_embedding: true } };
    const body = await finished(sim(), undefined, params);
    expectValidTask(body);
    const ids = [...new Set(body.data.results.map((r: { speaker_id: string }) => r.speaker_id))].sort();
    expect(Object.keys(body.data.embeddings).sort()).toEqual(ids);
    for (const v of Object.values(body.data.embeddings) as number[][]) expect(v).toHaveLength(256);
  });
});

describe('one-form shapes', () => {
  it('spec (flag) answers the seed fields only and validates against openapi.yaml', async () => {
    const s = await start({ transcriptionDelay: DELAY, resultShape: 'spec' });
    const body = await finished(s);
    expectValidTask(body);
    expect(Object.keys(body.data).sort()).toEqual(['duration', 'language', 'segments', 'text']);
    expect(resultsReader(body.data)).toEqual([]);
  });

  it('live (app switch) answers the live fields (results[], no segments) and validates; the app switch wins over the flag', async () => {
    const app = (await http('POST', `${sim().admin}/apps`, { json: { result_shape: 'live' } })).body;
    const body = await finished(sim(), app);
    expectValidTask(body);
    expect(Object.keys(body.data).sort()).toEqual(['duration', 'language', 'results', 'text']);
    const s = await start({ transcriptionDelay: DELAY, resultShape: 'live' });
    const both = (await http('POST', `${s.admin}/apps`, { json: { result_shape: 'both' } })).body;
    const data = (await finished(s, both)).data;
    expect(segmentsReader(data)).toEqual(resultsReader(data));
  });

  it('gives the same embedding for the same audio and speaker on every poll and server', async () => {
    const url = externalUrl();
    const params = { diarization: { enabled: true, return_embedding: true } };
    const read = async (s = sim()) => {
      const id = (await submit(s, { file_url: url, params })).body.transcription_id;
      await advance(s, DELAY);
      return (await poll(s, id)).body.data.embeddings;
    };
    const a = await read();
    expect(await read(await start({ transcriptionDelay: DELAY }))).toEqual(a);
  });
});
