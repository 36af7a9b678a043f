import { describe, expect, it } from 'vitest';
import { http } from '../testing/http.js';
import { useWebhookSim } from '../testing/webhookKit.js';

// Receivers that hang, reset or answer too much, beside a well-behaved one.

const { s, receiver, newApp, endpoint, log } = useWebhookSim();

describe('hostile receivers', () => {
  it('a hang, a reset and a 5 MB answer are recorded and change nothing for another app', async () => {
    const bad = await newApp();
    const good = await newApp();
    const hang = await receiver({ hang: true });
    const reset = await receiver({ reset: true });
    const huge = await receiver({ hugeMb: 5 });
    const fine = await receiver();
    const eps = [];
    for (const r of [hang, reset, huge]) eps.push((await endpoint(bad.client_id, { url: r.url })).body);
    const okEp = (await endpoint(good.client_id, { url: fine.url })).body;
    for (const ep of eps)
      await http('POST', `${s.admin}/apps/${bad.client_id}/webhooks/${ep.id}/test`, { json: {} });
    await http('POST', `${s.admin}/apps/${good.client_id}/webhooks/${okEp.id}/test`, { json: {} });
    await s.services.webhooks.tick();
    await fine.waitFor(1);
    // The good app's delivery did not wait for the hanging one: that one has no attempt recorded
    // yet (it is recorded when its 500 ms deadline ends).
    const hanging = (await log(bad.client_id)).find((x: { url: string }) => x.url === hang.url);
    expect(hanging.attempts).toEqual([]);
    // A partner API request meanwhile is answered as usual.
    const health = await http('GET', `${s.admin}/health`);
    expect(health.status).toBe(200);
    await s.services.webhooks.idle();
    const d = await log(bad.client_id);
    const byUrl = (u: string) => d.find((x: { url: string }) => x.url === u).attempts[0];
    expect(byUrl(hang.url)).toMatchObject({ outcome: 'failure', error: 'timeout after 500 ms' });
    expect(byUrl(reset.url).error).toMatch(/ECONNRESET|socket hang up|reset/);
    const h = byUrl(huge.url);
    expect(h).toMatchObject({ response_status: 500, outcome: 'failure' });
    expect(h.response_excerpt.length).toBe(2048);
    expect((await log(good.client_id))[0].status).toBe('succeeded');
  });
});
