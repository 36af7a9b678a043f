import { describe, expect, it } from 'vitest';
import { failure, useFaultSim } from '../testing/faultKit.js';
import { basicAuth, DEMO_US } from '../testing/http.js';

// The X-Sim-Fault request header: a fault for that one request.

const { tokenUrl, exchange } = useFaultSim();

describe('X-Sim-Fault header', () => {
  it('injects a status with Retry-After for this request only', async () => {
    const r = await exchange(DEMO_US, { 'X-Sim-Fault': 'status=503; retry_after=2' });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('2');
    expect(r.body.detail).toBe('SERVICE_UNAVAILABLE');
    expect((await exchange()).status).toBe(200);
  });

  it('injects latency and a reset', async () => {
    const t0 = performance.now();
    expect((await exchange(DEMO_US, { 'X-Sim-Fault': 'delay_ms=150' })).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    const err = await failure(
      fetch(tokenUrl(), {
        method: 'POST',
        headers: { ...basicAuth(DEMO_US.client_id, DEMO_US.secret_key), 'X-Sim-Fault': 'action=reset' },
      }),
    );
    expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain(err.code);
  });

  it.each([
    'status=abc',
    'colour=red',
    'retry_after=2',
    'action=wrong_etag',
    'action=explode',
  ])('refuses %s with 422 naming the header', async (value) => {
    const r = await exchange(DEMO_US, { 'X-Sim-Fault': value });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['header', 'x-sim-fault']);
  });
});
