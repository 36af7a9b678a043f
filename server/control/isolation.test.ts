import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeUpload, md5hex, putPart, startUpload } from '../client/steps.js';
import { bearer, exchangeToken, http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// Two CI jobs sharing one simulator, each with its own partner app, run the same scenario at
// the same time: app-scoped faults, tokens, an upload, a transcription. Neither may see the
// other's faults, journal entries, uploads or tasks, and a per-app reset touches one app only.

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer({ chunkSize: 1024, transcriptionDelay: 0 });
});
afterAll(() => sim.stop());

interface App {
  client_id: string;
  secret_key: string;
  api_key: string;
}

/** A request retried while it answers 503, as a partner client would. */
async function retry503<T extends { status: number }>(send: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    const r = await send();
    if (r.status !== 503 || i === 3) return r;
  }
}

async function scenario(app: App) {
  const admin = (json: unknown) => http('POST', `${sim.admin}/faults`, { json });
  await admin({ operation: 'createUserToken', status: 503, times: 1, match: { client_id: app.client_id } });
  await admin({
    operation: 'uploadPart',
    status: 503,
    times: 1,
    match: { client_id: app.client_id, part_number: 2 },
  });

  const p = await exchangeToken(sim.api, app);
  const u = await retry503(() =>
    http('POST', `${sim.api}/open/partner/users/access-token`, {
      headers: bearer(p.body.access_token),
      json: { user_id: 'same-user-id-in-both-jobs' },
    }),
  );
  expect(u.status).toBe(200);
  const bytes = Buffer.from(`${app.client_id} `.repeat(200));
  const s = await startUpload(sim.api, u.body.access_token, bytes.length);
  const part_list = [];
  for (const part of s.Parts) {
    const chunk = bytes.subarray((part.PartNumber - 1) * 1024, part.PartNumber * 1024);
    const r = await retry503(() => putPart(part.PresignedUrl, chunk));
    expect(r.status).toBe(200);
    part_list.push({ PartNumber: part.PartNumber, ETag: r.etag! });
  }
  const done = await completeUpload(sim.api, u.body.access_token, {
    file_id: s.FileId,
    upload_id: s.UploadId,
    part_list,
    file_md5: md5hex(bytes),
  });
  expect(done.status).toBe(200);
  const headers = { 'x-client-id': app.client_id, 'x-client-api-key': app.api_key };
  const task = await http('POST', `${sim.api}/open/partner/ai/transcriptions/`, {
    headers,
    json: { file_url: done.body.DownloadUrl },
  });
  expect(task.status).toBe(200);
  return { downloadUrl: done.body.DownloadUrl as string, taskId: task.body.transcription_id as string };
}

// biome-ignore lint/suspicious/noExplicitAny: control API answers are read as JSON
const get = async (path: string): Promise<any[]> => (await http('GET', `${sim.admin}${path}`)).body;
const opCounts = (entries: { operation: string; status: number }[]) => {
  const out: Record<string, number> = {};
  for (const e of entries) out[`${e.operation} ${e.status}`] = (out[`${e.operation} ${e.status}`] ?? 0) + 1;
  return out;
};

describe('two apps on one instance', () => {
  it('run the same scenario in parallel without seeing each other, and reset one at a time', async () => {
    const apps: App[] = [];
    for (const id of ['iso-app-a', 'iso-app-b']) {
      const r = await http('POST', `${sim.admin}/apps`, { json: { client_id: id } });
      expect(r.status).toBe(201);
      apps.push(r.body);
    }
    const [a, b] = apps as [App, App];
    const [ra, rb] = await Promise.all([scenario(a), scenario(b)]);

    for (const app of apps) {
      const faults = await get(`/faults?client_id=${app.client_id}`);
      // Each app's one-shot rules fired once each: the other job never consumed them.
      expect(faults.map((f) => [f.operation, f.hits, f.remaining])).toEqual([
        ['createUserToken', 1, 0],
        ['uploadPart', 1, 0],
      ]);
      const journal = await get(`/requests?client_id=${app.client_id}&limit=1000`);
      expect(journal.every((e) => e.client_id === app.client_id)).toBe(true);
      expect(opCounts(journal)).toEqual({
        'getPartnerToken 200': 1,
        'createUserToken 503': 1,
        'createUserToken 200': 1,
        'generatePresignedUrls 200': 1,
        'uploadPart 200': 2,
        'uploadPart 503': 1,
        'completeUpload 200': 1,
        'createTranscription 200': 1,
      });
      const tasks = await get(`/transcriptions?client_id=${app.client_id}`);
      expect(tasks.map((t) => t.transcription_id)).toEqual([app === a ? ra.taskId : rb.taskId]);
    }

    expect((await http('POST', `${sim.admin}/reset`, { json: { client_id: a.client_id } })).status).toBe(204);
    expect(await get(`/faults?client_id=${a.client_id}`)).toEqual([]);
    expect(await get(`/requests?client_id=${a.client_id}`)).toEqual([]);
    expect(await get(`/transcriptions?client_id=${a.client_id}`)).toEqual([]);
    expect((await fetch(ra.downloadUrl)).status).toBe(404);
    // B is untouched, and A keeps its credentials.
    expect(await get(`/faults?client_id=${b.client_id}`)).toHaveLength(2);
    expect((await get(`/requests?client_id=${b.client_id}&limit=1000`)).length).toBe(9);
    expect(await get(`/transcriptions?client_id=${b.client_id}`)).toHaveLength(1);
    expect((await fetch(rb.downloadUrl)).status).toBe(200);
    const again = await exchangeToken(sim.api, a);
    expect(again.status).toBe(200);
  });
});
