import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../index.js';
import { http } from '../testing/http.js';
import { keys } from '../testing/transcriptionKit.js';
import { useWebhookSim } from '../testing/webhookKit.js';

// A transcription's end as webhook events, signatures checked with the package's exported helper.

const { s, receiver, newApp, endpoint, advance, settle } = useWebhookSim();

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
    // The docs' form (default): the id where the docs' receiver reads it.
    expect(a.data).toMatchObject({ transcriptionId: task.body.transcription_id, status: 'SUCCESS' });
    expect(a.data).not.toHaveProperty('transcription_id');
    expect(a.data.data.text ?? a.data.data.results).toBeTruthy();
    // Seen again by later passes: nothing new is sent.
    await advance(app.client_id, 60_000);
    expect(rc.got).toHaveLength(2);
  });

  it('sends failed when the status is forced, once, in the poll form when the endpoint asks', async () => {
    const app = await newApp();
    const rc = await receiver();
    const ep = (
      await endpoint(app.client_id, { url: rc.url, events: ['transcription.failed'], payload: 'poll' })
    ).body;
    expect(ep.payload).toBe('poll');
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
