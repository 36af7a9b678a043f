import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeUpload, md5hex, putPart, startUpload } from '../client/steps.js';
import { DEMO_US, http, OTHER_US, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// GET /__admin/uploads: the dashboard's view of the bucket; GET /__admin/devices/{sn}/recovery.

const CHUNK = 64 * 1024;
let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer({ chunkSize: CHUNK });
});
afterAll(() => sim.stop());

describe('GET /__admin/uploads', () => {
  it('lists parts received with sizes and ETags, then the completed file with a working download URL', async () => {
    const token = (await userToken(sim.api, DEMO_US)).user;
    const other = (await userToken(sim.api, OTHER_US)).user;
    await startUpload(sim.api, other, 10);
    const bytes = randomBytes(CHUNK + 100);
    const s = await startUpload(sim.api, token, bytes.length);
    const first = await putPart(s.Parts[0]!.PresignedUrl, bytes.subarray(0, CHUNK));

    const mid = await http('GET', `${sim.admin}/uploads?client_id=${DEMO_US.client_id}`);
    expect(mid.status).toBe(200);
    const session = mid.body.uploads.find((u: { upload_id: string }) => u.upload_id === s.UploadId);
    expect(session).toMatchObject({ file_id: s.FileId, client_id: DEMO_US.client_id, part_count: 2 });
    expect(session.parts).toEqual([{ part_number: 1, size: CHUNK, etag: first.etag }]);
    expect(mid.body.uploads.every((u: { client_id: string }) => u.client_id === DEMO_US.client_id)).toBe(
      true,
    );

    const second = await putPart(s.Parts[1]!.PresignedUrl, bytes.subarray(CHUNK));
    const done = await completeUpload(sim.api, token, {
      file_id: s.FileId,
      upload_id: s.UploadId,
      part_list: [
        { PartNumber: 1, ETag: first.etag! },
        { PartNumber: 2, ETag: second.etag! },
      ],
      file_md5: md5hex(bytes),
    });
    expect(done.status).toBe(200);
    const after = await http('GET', `${sim.admin}/uploads?client_id=${DEMO_US.client_id}`);
    const file = after.body.files.find((f: { file_id: string }) => f.file_id === s.FileId);
    expect(file).toMatchObject({ size: bytes.length, md5: md5hex(bytes), filetype: 'mp3' });
    const got = await fetch(file.download_url);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);

    const all = await http('GET', `${sim.admin}/uploads`);
    expect(new Set(all.body.uploads.map((u: { client_id: string }) => u.client_id))).toContain(
      OTHER_US.client_id,
    );
  });
});

describe('GET /__admin/devices/{sn}/recovery', () => {
  const A = 'client_user_3f2c8a90-1b2c-4d5e-8f90-123456789abc';
  const B = 'client_user_9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
  const plan = async (sn: string, state: unknown) => {
    expect((await http('PUT', `${sim.admin}/devices/${sn}`, { json: state })).status).toBe(200);
    return http('GET', `${sim.admin}/devices/${sn}/recovery`);
  };

  it('answers planRecovery of the stored state: refuse, none, or the distinct candidates newest first', async () => {
    expect((await plan('8810RECOV0000001', { is_bind: true, bind_history: [A] })).body).toEqual({
      action: 'refuse',
      message: 'owner must unbind first',
    });
    expect((await plan('8810RECOV0000002', { is_bind: null })).body).toEqual({
      action: 'none',
      message: 'no bind history',
    });
    expect((await plan('8820RECOV0000003', { is_bind: false, bind_history: [B, A, B, A] })).body).toEqual({
      action: 'try',
      candidates: [B, A],
      omitted: 0,
    });
  });

  it('answers 404 DEVICE_NOT_FOUND for an unknown serial', async () => {
    const r = await http('GET', `${sim.admin}/devices/8810RECOV9999999/recovery`);
    expect(r.status).toBe(404);
    expect(r.body.detail).toBe('DEVICE_NOT_FOUND');
  });
});
