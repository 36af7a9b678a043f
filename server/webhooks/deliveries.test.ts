import { describe, expect, it } from 'vitest';
import { http } from '../testing/http.js';
import { T0, useWebhookSim } from '../testing/webhookKit.js';
import { RETRY_LADDER_MS } from './model.js';

// A delivery's attempts on the app clock, and what the delivery log keeps of them.

const { s, receiver, newApp, endpoint, advance, settle, log } = useWebhookSim();

describe('delivery', () => {
  it('walks the retry ladder on the app clock, attempt times exact, then fails', async () => {
    const app = await newApp();
    const rc = await receiver({ status: 500, body: 'nope' });
    const ep = (await endpoint(app.client_id, { url: rc.url })).body;
    const sent = await http('POST', `${s.admin}/apps/${app.client_id}/webhooks/${ep.id}/test`, { json: {} });
    expect(sent.status).toBe(202);
    await settle();
    let at = T0;
    const times = [T0];
    for (const step of RETRY_LADDER_MS) {
      // A millisecond early: nothing; on the dot: the next attempt.
      await advance(app.client_id, step - 1);
      expect(rc.got).toHaveLength(times.length);
      await advance(app.client_id, 1);
      at += step;
      times.push(at);
      expect(rc.got).toHaveLength(times.length);
    }
    const [d] = await log(app.client_id);
    expect(d.attempts.map((x: { at: string }) => Date.parse(x.at))).toEqual(times);
    expect(d.attempts.map((x: { attempt: number }) => x.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(d.attempts[0]).toMatchObject({
      response_status: 500,
      response_excerpt: 'nope',
      outcome: 'failure',
    });
    expect(d.status).toBe('failed');
    expect(d.next_attempt_at).toBeNull();
    await advance(app.client_id, 7 * 86_400_000);
    expect(rc.got).toHaveLength(6);
    // Redeliver: the same event again, accepted this time.
    rc.behave({ status: 204 });
    const again = await http(
      'POST',
      `${s.admin}/apps/${app.client_id}/webhook-deliveries/${d.id}/redeliver`,
      {
        json: {},
      },
    );
    expect(again.status).toBe(202);
    await settle();
    expect(JSON.parse(rc.got[6]!.body).id).toBe(JSON.parse(rc.got[0]!.body).id);
    expect((await log(app.client_id))[0]).toMatchObject({ status: 'succeeded', redelivery_of: d.id });
  });

  it('records a redirect without following it, and keeps the inspector fields', async () => {
    const app = await newApp();
    const target = await receiver();
    const rc = await receiver({ status: 302, headers: { location: target.url } });
    const ep = (await endpoint(app.client_id, { url: rc.url })).body;
    await http('POST', `${s.admin}/apps/${app.client_id}/webhooks/${ep.id}/test`, { json: {} });
    await settle();
    expect(target.got).toHaveLength(0);
    const [d] = await log(app.client_id);
    expect(d).toMatchObject({
      endpoint_id: ep.id,
      url: rc.url,
      event: 'transcription.completed',
      status: 'pending',
    });
    expect(d.next_attempt_at).toBe(new Date(T0 + 30_000).toISOString());
    expect(d.attempts[0]).toMatchObject({ response_status: 302, outcome: 'failure' });
    expect(d.attempts[0].request_headers['plaud-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(JSON.stringify(d)).not.toContain(ep.secret);
    expect(JSON.parse(d.request_body).data.test).toBe(true);
  });
});
