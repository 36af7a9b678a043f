import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../index.js';
import { http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { keys } from '../testing/transcriptionKit.js';
import { useReceivers } from '../testing/webhookReceiver.js';
import { RETRY_LADDER_MS } from './model.js';

// Webhooks end to end: a real receiver on loopback, the app's clock frozen and moved by the
// control API, signatures checked with the package's exported helper.

let s: TestServer;
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

beforeAll(async () => {
  s = await startTestServer({ transcriptionDelay: 20_000, webhookTimeoutMs: 500 });
});
afterAll(() => s.stop());

const receiver = useReceivers();

let n = 0;
/** A new app, its clock frozen at T0. */
async function newApp() {
  const app = (await http('POST', `${s.admin}/apps`, { json: { client_id: `wh-${++n}-${Date.now()}` } }))
    .body;
  await http('POST', `${s.admin}/clock`, {
    json: { client_id: app.client_id, now: new Date(T0).toISOString(), freeze: true },
  });
  return app as { client_id: string; api_key: string; secret_key: string };
}

const endpoint = async (clientId: string, json: Record<string, unknown>) =>
  http('POST', `${s.admin}/apps/${clientId}/webhooks`, { json });

/** Move the app's clock and wait until everything that became due was sent. */
async function advance(clientId: string, ms: number) {
  expect(
    (await http('POST', `${s.admin}/clock`, { json: { client_id: clientId, advance_ms: ms } })).status,
  ).toBe(200);
  await settle();
}
async function settle() {
  await s.services.webhooks.tick();
  await s.services.webhooks.idle();
}
const log = async (clientId: string) =>
  (await http('GET', `${s.admin}/apps/${clientId}/webhook-deliveries`)).body;

describe('endpoints', () => {
  it('shows the secret once, lists without it, refuses non-http URLs, and goes with the app', async () => {
    const app = await newApp();
    const made = await endpoint(app.client_id, {
      url: 'http://127.0.0.1:9/hook',
      events: ['transcription.completed'],
    });
    expect(made.status).toBe(201);
    expect(made.body.secret).toMatch(/^whsec_[0-9a-f]{32}$/);
    expect(made.body).toMatchObject({
      scheme: 'current',
      enabled: true,
      events: ['transcription.completed'],
    });
    const listed = (await http('GET', `${s.admin}/apps/${app.client_id}/webhooks`)).body;
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(made.body.secret);
    for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url']) {
      const bad = await endpoint(app.client_id, { url });
      expect(bad.status, url).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'url']);
    }
    const paused = await http('PATCH', `${s.admin}/apps/${app.client_id}/webhooks/${made.body.id}`, {
      json: { enabled: false },
    });
    expect(paused.body.enabled).toBe(false);
    expect((await http('GET', `${s.admin}/apps/nobody/webhooks`)).status).toBe(404);
    expect((await http('DELETE', `${s.admin}/apps/${app.client_id}`)).status).toBe(204);
    await http('POST', `${s.admin}/apps`, { json: { client_id: app.client_id } });
    expect((await http('GET', `${s.admin}/apps/${app.client_id}/webhooks`)).body).toEqual([]);
  });
});

describe('transcription events', () => {
  it('sends completed when the task finishes on the moved app clock, signed in both schemes', async () => {
    const app = await newApp();
    const rc = await receiver();
    const current = (await endpoint(app.client_id, { url: rc.url })).body;
    const legacy = (await endpoint(app.client_id, { url: rc.url, scheme: 'legacy' })).body;
    const task = await http('POST', `${s.api}/open/partner/ai/transcriptions/`, {
      headers: keys(app),
      json: { file_url: 'https://example.com/a.mp3' },
    });
    expect(task.status).toBe(200);
    await advance(app.client_id, 19_999);
    expect(rc.got).toHaveLength(0);
    await advance(app.client_id, 1);
    const got = await rc.waitFor(2);
    const byScheme = (legacyOne: boolean) => got.find((g) => 'plaud-timestamp' in g.headers !== legacyOne)!;
    const cur = byScheme(false);
    const old = byScheme(true);
    expect(verifyWebhook({ secret: current.secret, body: cur.body, headers: cur.headers })).toEqual({
      ok: true,
    });
    expect(
      verifyWebhook({ secret: legacy.secret, body: old.body, headers: old.headers, scheme: 'legacy' }),
    ).toEqual({
      ok: true,
    });
    // The other secret, or the other scheme, fails.
    expect(verifyWebhook({ secret: legacy.secret, body: cur.body, headers: cur.headers }).ok).toBe(false);
    expect(verifyWebhook({ secret: current.secret, body: `${cur.body} `, headers: cur.headers })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    const a = JSON.parse(cur.body);
    const b = JSON.parse(old.body);
    expect(a.event).toBe('transcription.completed');
    expect(b.event).toBe('audio_transcribe.completed');
    expect(a.id).toBe(b.id);
    expect(a.data).toMatchObject({ transcription_id: task.body.transcription_id, status: 'SUCCESS' });
    expect(a.data.data.text ?? a.data.data.results).toBeTruthy();
    // Seen again by later passes: nothing new is sent.
    await advance(app.client_id, 60_000);
    expect(rc.got).toHaveLength(2);
  });

  it('sends failed when the status is forced, once', async () => {
    const app = await newApp();
    const rc = await receiver();
    const ep = (await endpoint(app.client_id, { url: rc.url, events: ['transcription.failed'] })).body;
    const task = await http('POST', `${s.api}/open/partner/ai/transcriptions/`, {
      headers: keys(app),
      json: { file_url: 'https://example.com/b.mp3' },
    });
    const forced = await http('PUT', `${s.admin}/transcriptions/${task.body.transcription_id}`, {
      json: { status: 'FAILURE', message: 'Codec not supported' },
    });
    expect(forced.status).toBe(200);
    await settle();
    const [got] = await rc.waitFor(1);
    expect(verifyWebhook({ secret: ep.secret, body: got!.body, headers: got!.headers }).ok).toBe(true);
    expect(JSON.parse(got!.body)).toMatchObject({
      event: 'transcription.failed',
      data: {
        transcription_id: task.body.transcription_id,
        status: 'FAILURE',
        message: 'Codec not supported',
      },
    });
    await advance(app.client_id, 60_000);
    expect(rc.got).toHaveLength(1);
  });
});

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
