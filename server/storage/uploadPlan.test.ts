import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, DEMO_US, http, userToken } from '../testing/http.js';
import { MAX_CHUNK, planProblems } from '../testing/strictClient.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { MAX_PARTS } from './partUpload.js';

// Every upload size, as the strictest public TS client checks the plan (testing/strictClient.ts):
// parts 1..n in order, none twice, n = ceil(size / ChunkSize), ChunkSize in 1..250 MiB, URLs
// without credentials or a fragment; a size the simulator refuses gets a 422, never a plan.
// Three ChunkSizes: the smallest, the docs' 5 MiB and the client's largest.

const MAX_FILE = 5 * 1024 ** 3;
const CHUNKS = [1, 5 * 1024 * 1024, MAX_CHUNK];
const sims: { chunk: number; s: TestServer; user: string }[] = [];

beforeAll(async () => {
  for (const chunk of CHUNKS) {
    const s = await startTestServer({ chunkSize: chunk, maxFileSize: MAX_FILE });
    sims.push({ chunk, s, user: (await userToken(s.api, DEMO_US)).user });
  }
});
afterAll(() => Promise.all(sims.map((x) => x.s.stop())));

const plan = (x: (typeof sims)[number], filesize: unknown) =>
  http('POST', `${x.s.api}/open/partner/files/upload/generate-presigned-urls`, {
    headers: bearer(x.user),
    json: { filesize, filetype: 'mp3' },
  });

describe('upload plans for every size', () => {
  it.each(CHUNKS.map((c, i) => [c, i] as const))('ChunkSize %i', async (chunk, i) => {
    const x = sims[i]!;
    const max = Math.min(MAX_FILE, chunk * MAX_PARTS);
    const size = fc.oneof(
      fc.integer({ min: 1, max }),
      fc
        .constantFrom(1, max, chunk, chunk + 1, Math.max(1, chunk - 1), max - 1)
        .filter((n) => n >= 1 && n <= max),
    );
    await fc.assert(
      fc.asyncProperty(size, async (filesize) => {
        const r = await plan(x, filesize);
        expect(r.status).toBe(200);
        expect(r.body.ChunkSize).toBe(chunk);
        expect(planProblems(r.body, filesize)).toEqual([]);
      }),
      // A ChunkSize of 1 plans up to 10,000 signed parts a request (3 MB of JSON): 15 runs
      // (half of them the edge sizes) keep it within the suite's budget beside busy loops.
      { numRuns: chunk === 1 ? 15 : 40, seed: 49 },
    );
    for (const bad of [0, -1, max + 1, 1.5, '10']) {
      const r = await plan(x, bad);
      expect(r.status, String(bad)).toBe(422);
      expect(r.body.Parts).toBeUndefined();
    }
  });
});
