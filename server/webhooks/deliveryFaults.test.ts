import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../index.js';
import { http } from '../testing/http.js';
import { useWebhookSim } from '../testing/webhookKit.js';

// Fault rules on webhookDelivery: duplicate, out of order, wrong signature or timestamp, late, drop.

const { s, receiver, newApp, endpoint, advance, settle, log } = useWebhookSim();

describe('delivery faults', () => {
  const rule = (clientId: string, webhook_fault: string, extra: Record<string, unknown> = {}) =>
    http('POST', `${s.admin}/faults`, {
      json: {
        operation: 'webhookDelivery',
        webhook_fault,
        times: 1,
        match: { client_id: clientId },
        ...extra,
      },
    });
  const test = (clientId: string, ep: string, event = 'transcription.completed') =>
    http('POST', `${s.admin}/apps/${clientId}/webhooks/${ep}/test`, { json: { event } });

  it('duplicate, out of order, wrong signature, wrong timestamp, late and drop', async () => {
    const app = await newApp();
    const rc = await receiver();
    const ep = (await endpoint(app.client_id, { url: rc.url })).body;
    const ok = (i: number) =>
      verifyWebhook({ secret: ep.secret, body: rc.got[i]!.body, headers: rc.got[i]!.headers });

    expect((await rule(app.client_id, 'duplicate')).status).toBe(201);
    await test(app.client_id, ep.id);
    await settle();
    expect(rc.got).toHaveLength(2);
    expect(rc.got[0]!.body).toBe(rc.got[1]!.body);
    expect(ok(1)).toEqual({ ok: true });

    await rule(app.client_id, 'out_of_order');
    const first = (await test(app.client_id, ep.id, 'transcription.completed')).body;
    await settle();
    expect(rc.got).toHaveLength(2);
    await test(app.client_id, ep.id, 'transcription.failed');
    await settle();
    expect(rc.got.slice(2).map((g) => JSON.parse(g.body).event)).toEqual([
      'transcription.failed',
      'transcription.completed',
    ]);
    expect(JSON.parse(rc.got[3]!.body).id).toBe(first.event_id);

    await rule(app.client_id, 'wrong_signature');
    await test(app.client_id, ep.id);
    await settle();
    expect(ok(4)).toEqual({ ok: false, reason: 'bad_signature' });

    await rule(app.client_id, 'wrong_timestamp');
    await test(app.client_id, ep.id);
    await settle();
    expect(ok(5)).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(
      verifyWebhook({
        secret: ep.secret,
        body: rc.got[5]!.body,
        headers: rc.got[5]!.headers,
        toleranceS: 3600,
      }),
    ).toEqual({ ok: true });

    await rule(app.client_id, 'late', { delay_ms: 120_000 });
    await test(app.client_id, ep.id);
    await advance(app.client_id, 119_999);
    expect(rc.got).toHaveLength(6);
    await advance(app.client_id, 1);
    expect(rc.got).toHaveLength(7);

    await rule(app.client_id, 'drop');
    await test(app.client_id, ep.id);
    await advance(app.client_id, 86_400_000);
    expect(rc.got).toHaveLength(7);
    expect((await log(app.client_id))[0]).toMatchObject({ status: 'dropped', fault: 'drop', attempts: [] });
    // Every rule applied once: the next event is plain.
    await test(app.client_id, ep.id);
    await settle();
    expect(rc.got).toHaveLength(8);
    expect(ok(7)).toEqual({ ok: true });
  });

  it('refuses delivery rules that make no sense', async () => {
    const bad = await http('POST', `${s.admin}/faults`, {
      json: { operation: 'webhookDelivery', status: 500 },
    });
    expect(bad.status).toBe(422);
    const wrongOp = await http('POST', `${s.admin}/faults`, {
      json: { operation: 'getPartnerToken', webhook_fault: 'drop' },
    });
    expect(wrongOp.status).toBe(422);
    const delay = await http('POST', `${s.admin}/faults`, {
      json: { operation: 'webhookDelivery', webhook_fault: 'drop', delay_ms: 5 },
    });
    expect(delay.status).toBe(422);
  });
});
