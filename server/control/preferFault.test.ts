import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_US, exchangeToken, http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { preferredFault } from './faultHeader.js';

// Prism's `Prefer: code=…` as an alias of `X-Sim-Fault: status=…`, as a client sees it.

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer();
});
afterAll(() => sim.stop());

const exchange = (headers: Record<string, string>) => exchangeToken(sim.api, DEMO_US, headers);

describe('Prefer: code=… (Prism)', () => {
  it.each([
    'code=503',
    'code=503, dynamic=true',
    'dynamic=true, code=503',
    'CODE = 503',
  ])('answers %s as X-Sim-Fault: status=503, for this request only', async (prefer) => {
    const r = await exchange({ Prefer: prefer });
    expect(r.status).toBe(503);
    expect(r.body.detail).toBe('SERVICE_UNAVAILABLE');
    expect((await exchange({})).status).toBe(200);
  });

  it('journals the fault as `prefer`', async () => {
    await http('DELETE', `${sim.admin}/requests`);
    await exchange({ Prefer: 'code=502' });
    const [entry] = (await http('GET', `${sim.admin}/requests`)).body;
    expect(entry).toMatchObject({ status: 502, fault_id: 'prefer' });
  });

  it('lets X-Sim-Fault win when both are sent', async () => {
    const r = await exchange({ Prefer: 'code=503', 'X-Sim-Fault': 'status=429' });
    expect(r.status).toBe(429);
  });

  it('changes nothing for other preferences', async () => {
    expect((await exchange({ Prefer: 'return=minimal' })).status).toBe(200);
    expect((await exchange({ Prefer: 'dynamic=true' })).status).toBe(200);
    expect(preferredFault('return=representation; respond-async', 'getPartnerToken')).toBeUndefined();
  });

  it.each([
    'code=abc',
    'code=99',
    'code=',
    'code=700',
  ])('refuses %s with 422 naming header.prefer', async (v) => {
    const r = await exchange({ Prefer: v });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['header', 'prefer']);
  });
});
