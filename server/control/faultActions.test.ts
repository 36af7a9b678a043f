import { describe, expect, it } from 'vitest';
import { completeUpload, md5hex, putPart, startUpload } from '../client/steps.js';
import { failure, useFaultSim } from '../testing/faultKit.js';
import { basicAuth, DEMO_US, http, userToken } from '../testing/http.js';
import { scaledBudget } from '../testing/scaledBudget.js';

// Fault rules that delay, reset, hang, send a malformed body or a wrong ETag, as a real HTTP
// client sees them.

const { sim, tokenUrl, exchange, addFault } = useFaultSim();

describe('fault rules: latency, reset, hang, malformed, wrong ETag', () => {
  it('delays by delay_ms, then answers normally', async () => {
    // A delay long enough that a busy machine cannot blur delayed and undelayed answers: 1 s,
    // stretched as the host is slower (an undelayed answer took longer than 0.9 s on it).
    const delay = scaledBudget(1000);
    await addFault({ operation: 'getPartnerToken', delay_ms: delay, times: 1 });
    const t0 = performance.now();
    const r = await exchange();
    const slow = performance.now() - t0;
    expect(r.status).toBe(200);
    expect(slow).toBeGreaterThanOrEqual(delay - 10);
    const t1 = performance.now();
    await exchange();
    expect(performance.now() - t1).toBeLessThan(delay - 100);
  });

  it('delays, then answers the given status', async () => {
    await addFault({ operation: 'getPartnerToken', delay_ms: 120, status: 504, times: 1 });
    const t0 = performance.now();
    const r = await exchange();
    expect(r.status).toBe(504);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(110);
  });

  it('resets the connection', async () => {
    await addFault({ operation: 'getPartnerToken', action: 'reset', times: 1 });
    const err = await failure(
      fetch(tokenUrl(), { method: 'POST', headers: basicAuth(DEMO_US.client_id, DEMO_US.secret_key) }),
    );
    expect(err.name).toBe('TypeError');
    expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain(err.code);
    expect((await exchange()).status).toBe(200);
  });

  it('hangs until the client gives up, and journals the abandoned request', async () => {
    const f = await addFault({ operation: 'getPartnerToken', action: 'hang', times: 1 });
    const t0 = performance.now();
    const err = await failure(
      fetch(tokenUrl(), {
        method: 'POST',
        headers: basicAuth(DEMO_US.client_id, DEMO_US.secret_key),
        signal: AbortSignal.timeout(300),
      }),
    );
    expect(err.name).toBe('TimeoutError');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    // The entry is written when the server sees the connection close, just after the abort.
    let entry: { status: number; error?: string; fault_id: string } | undefined;
    for (let i = 0; i < 50 && !entry; i++) {
      const j = await http('GET', `${sim.admin}/requests?operation=getPartnerToken&limit=1`);
      if (j.body[0]?.fault_id === f.id) entry = j.body[0];
      else await new Promise((r) => setTimeout(r, 20));
    }
    expect(entry).toMatchObject({ status: 0, fault_id: f.id });
    expect(entry?.error).toContain('hang');
  });

  it('sends a truncated JSON body with 200', async () => {
    await addFault({ operation: 'getPartnerToken', action: 'malformed', times: 1 });
    const r = await fetch(tokenUrl(), {
      method: 'POST',
      headers: basicAuth(DEMO_US.client_id, DEMO_US.secret_key),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    const text = await r.text();
    expect(text.startsWith('{"access_token":')).toBe(true);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('returns a wrong ETag for a stored part, so completion with it fails', async () => {
    const { user } = await userToken(sim.api, DEMO_US);
    const bytes = Buffer.from('x'.repeat(1500));
    const s = await startUpload(sim.api, user, bytes.length);
    await addFault({ operation: 'uploadPart', action: 'wrong_etag', match: { part_number: 2 } });
    const p1 = await putPart(s.Parts[0]!.PresignedUrl, bytes.subarray(0, 1024));
    const p2 = await putPart(s.Parts[1]!.PresignedUrl, bytes.subarray(1024));
    expect(p1.etag).toBe(`"${md5hex(bytes.subarray(0, 1024))}"`);
    expect(p2.status).toBe(200);
    expect(p2.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(p2.etag).not.toBe(`"${md5hex(bytes.subarray(1024))}"`);
    const done = await completeUpload(sim.api, user, {
      file_id: s.FileId,
      upload_id: s.UploadId,
      part_list: [
        { PartNumber: 1, ETag: p1.etag! },
        { PartNumber: 2, ETag: p2.etag! },
      ],
    });
    expect(done.status).toBe(400);
    expect(done.body.detail).toBe('InvalidPart');
  });
});
