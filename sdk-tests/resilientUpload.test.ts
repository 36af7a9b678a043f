import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RetryEvent, UploadError, uploadBytes } from '../server/client/upload.js';
import { DEMO_US, http, userToken } from '../server/testing/http.js';
import { startTestServer, type TestServer } from '../server/testing/testServer.js';

// A partner's resilient multipart upload against injected storage failures. The simulator's
// fault rules arrange the failures; its request journal shows what the client really sent.

const CHUNK = 1024;
let sim: TestServer;
let token: string;
beforeAll(async () => {
  sim = await startTestServer({ chunkSize: CHUNK });
  token = (await userToken(sim.api, DEMO_US, 'resilient-user')).user;
});
afterAll(() => sim.stop());
beforeEach(async () => {
  await http('DELETE', `${sim.admin}/faults`);
  await http('DELETE', `${sim.admin}/requests`);
});

const fault = async (json: Record<string, unknown>) => {
  const r = await http('POST', `${sim.admin}/faults`, { json });
  expect(r.status, r.text).toBe(201);
};
const bytesOf = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + 7) % 251));
const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('hex');
/** The client's waits are recorded, not slept: the test stays fast and sees the back-off. */
const recorder = () => {
  const events: RetryEvent[] = [];
  // One part at a time: the journal order below is then the client's order.
  return {
    events,
    opts: { concurrency: 1, sleep: async () => {}, onRetry: (e: RetryEvent) => events.push(e) },
  };
};
/** uploadPart requests as the journal saw them, oldest first: `part:status`. */
const partLog = async () => {
  const r = await http('GET', `${sim.admin}/requests?operation=uploadPart&limit=1000`);
  return (r.body as { path: string; status: number }[])
    .reverse()
    .map((e) => `${/partNumber=(\d+)/.exec(e.path)?.[1]}:${e.status}`);
};

describe('resilient upload', () => {
  it('retries a part after an injected 503, then completes with the right MD5', async () => {
    await fault({ operation: 'uploadPart', status: 503, times: 1, match: { part_number: 2 } });
    const bytes = bytesOf(3 * CHUNK - 100);
    const { events, opts } = recorder();
    const file = await uploadBytes(sim.api, token, bytes, 'mp3', opts);
    expect(file.FileMd5).toBe(md5(bytes));
    expect(await partLog()).toEqual(['1:200', '2:503', '2:200', '3:200']);
    expect(events).toEqual([
      { step: 'part', part: 2, attempt: 1, reason: 'HTTP 503', waitMs: expect.any(Number) },
    ]);
    const download = Buffer.from(await (await fetch(file.DownloadUrl)).arrayBuffer());
    expect(md5(download)).toBe(md5(bytes));
  });

  it('survives a reset connection, a 429 with Retry-After and a wrong ETag', async () => {
    await fault({
      operation: 'generatePresignedUrls',
      status: 429,
      headers: { 'Retry-After': '3' },
      times: 1,
    });
    await fault({ operation: 'uploadPart', action: 'reset', times: 1, match: { part_number: 1 } });
    await fault({ operation: 'uploadPart', action: 'wrong_etag', times: 1, match: { part_number: 2 } });
    const bytes = bytesOf(2 * CHUNK);
    const { events, opts } = recorder();
    const file = await uploadBytes(sim.api, token, bytes, 'mp3', opts);
    expect(file.FileMd5).toBe(md5(bytes));
    expect(events.map((e) => [e.step, e.part, e.reason])).toEqual([
      ['presign', undefined, 'HTTP 429'],
      ['part', 1, expect.stringMatching(/^network: /)],
      ['part', 2, expect.stringContaining('is not the MD5 of the part')],
    ]);
    // Retry-After is a floor under the jittered back-off.
    expect(events[0]!.waitMs).toBeGreaterThanOrEqual(3000);
    expect(await partLog()).toEqual(['1:0', '1:200', '2:200', '2:200']);
  });

  it('gives up after its tries, naming the part and the status', async () => {
    await fault({ operation: 'uploadPart', status: 500, match: { part_number: 1 } });
    const { opts } = recorder();
    const err = await uploadBytes(sim.api, token, bytesOf(10), 'mp3', { ...opts, attempts: 3 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UploadError);
    expect(err).toMatchObject({ step: 'part', part: 1, status: 500 });
    expect(await partLog()).toEqual(['1:500', '1:500', '1:500']);
  });

  it('does not retry a client mistake', async () => {
    const err = await uploadBytes(sim.api, 'not-a-token', bytesOf(10), 'mp3', recorder().opts).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ step: 'presign', status: 401 });
    const presigns = await http('GET', `${sim.admin}/requests?operation=generatePresignedUrls`);
    expect(presigns.body).toHaveLength(1);
  });
});
