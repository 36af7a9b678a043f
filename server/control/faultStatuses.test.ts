import { describe, expect, it } from 'vitest';
import { putPart, startUpload } from '../client/steps.js';
import { uploadAll } from '../client/upload.js';
import { useFaultSim } from '../testing/faultKit.js';
import { bearer, DEMO_US, http, userToken } from '../testing/http.js';

// Fault rules that answer a status, as a real HTTP client sees them.

const { sim, exchange, addFault } = useFaultSim();

describe('fault rules: statuses', () => {
  it('answers 503 `times` times, then normally, and counts down in the listing', async () => {
    const f = await addFault({ operation: 'getPartnerToken', status: 503, times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await exchange()).status);
    expect(statuses).toEqual([503, 503, 200]);
    const list = await http('GET', `${sim.admin}/faults`);
    expect(list.body).toEqual([expect.objectContaining({ id: f.id, remaining: 0, hits: 2, times: 2 })]);
  });

  it('gives 429 a Retry-After and the error body of the surface', async () => {
    await addFault({ operation: 'getPartnerToken', status: 429, times: 1 });
    const r = await exchange();
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.body).toMatchObject({ detail: 'RATE_LIMITED' });
  });

  it.each([500, 502, 503])('answers %i once with the default error body', async (status) => {
    const { partner } = await userToken(sim.api, DEMO_US);
    await addFault({ operation: 'createUserToken', status, times: 1 });
    const mint = () =>
      http('POST', `${sim.api}/open/partner/users/access-token`, {
        headers: bearer(partner),
        json: { user_id: 'fault-user-01' },
      });
    const r = await mint();
    expect(r.status).toBe(status);
    expect(r.body).toEqual({
      detail: expect.any(String),
      message: expect.stringContaining('Injected fault'),
    });
    expect((await mint()).status).toBe(200);
  });

  it('sends a custom status, body and headers exactly as given', async () => {
    const { partner } = await userToken(sim.api, DEMO_US);
    await addFault({
      operation: 'createUserToken',
      status: 502,
      body: { detail: 'UPSTREAM', message: 'boom' },
      headers: { 'Retry-After': '7', 'X-Trace': 'abc' },
    });
    const r = await http('POST', `${sim.api}/open/partner/users/access-token`, {
      headers: bearer(partner),
      json: { user_id: 'fault-user-01' },
    });
    expect(r.status).toBe(502);
    expect(r.body).toEqual({ detail: 'UPSTREAM', message: 'boom' });
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.headers.get('x-trace')).toBe('abc');
  });

  it('answers storage faults as S3 XML errors', async () => {
    const { user } = await userToken(sim.api, DEMO_US);
    const s = await startUpload(sim.api, user, 10);
    await addFault({ operation: 'uploadPart', status: 503, times: 1 });
    const r = await putPart(s.Parts[0]!.PresignedUrl, Buffer.alloc(10));
    expect(r.status).toBe(503);
    expect(r.headers.get('content-type')).toContain('application/xml');
    expect(r.text).toContain('<Code>ServiceUnavailable</Code>');
    expect((await putPart(s.Parts[0]!.PresignedUrl, Buffer.alloc(10))).status).toBe(200);
  });

  it('treats HEAD of a file as headFile, for rules and the journal, apart from downloadFile', async () => {
    const { user } = await userToken(sim.api, DEMO_US);
    const file = await uploadAll(sim.api, user, 10, (_p, n) => new Uint8Array(n).fill(3));
    await http('DELETE', `${sim.admin}/requests`);
    await addFault({ operation: 'headFile', status: 503, times: 1 });
    expect((await fetch(file.DownloadUrl)).status).toBe(200);
    expect((await fetch(file.DownloadUrl, { method: 'HEAD' })).status).toBe(503);
    expect((await fetch(file.DownloadUrl, { method: 'HEAD' })).status).toBe(200);
    await addFault({ operation: 'downloadFile', status: 502, times: 1 });
    expect((await fetch(file.DownloadUrl, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(file.DownloadUrl)).status).toBe(502);
    const journal = await http('GET', `${sim.admin}/requests?client_id=${DEMO_US.client_id}`);
    const ops = (journal.body as { operation: string; method: string; status: number }[])
      .filter((e) => e.operation === 'headFile' || e.operation === 'downloadFile')
      .map((e) => `${e.method} ${e.operation} ${e.status}`)
      .reverse();
    expect(ops).toEqual([
      'GET downloadFile 200',
      'HEAD headFile 503',
      'HEAD headFile 200',
      'HEAD headFile 200',
      'GET downloadFile 502',
    ]);
  });
});
