import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { components } from '../spec/admin-types.js';
import { http } from '../testing/http.js';
import { keys } from '../testing/transcriptionKit.js';
import { useWebhookSim } from '../testing/webhookKit.js';

// The receiver of the docs' embedded-SDK webhooks page, as a partner copies it: Express's
// JSON parser, the signature checked over JSON.stringify(req.body) (a re-serialisation, not
// the raw bytes), then `data.transcriptionId` read. It must accept every event the simulator
// sends and find the id where the page reads it.

const { s, newApp, endpoint, advance, settle } = useWebhookSim();

/** The page's helper, as printed (plain `===`: it is the partner's code, not ours). */
function verifyWebhook(payload: string, signature: unknown, timestamp: unknown, secret: string) {
  const message = `${timestamp}.${payload}`;
  const expected = createHmac('sha256', secret).update(message).digest('hex');
  return `sha256=${expected}` === signature;
}

interface Seen {
  valid: boolean;
  event: string;
  transcriptionId: unknown;
  error: unknown;
}

async function docsReceiver(secret: () => string) {
  const seen: Seen[] = [];
  const app = express();
  app.use(express.json({ limit: '10mb' }));
  app.post('/webhooks/plaud', (req, res) => {
    const valid = verifyWebhook(
      JSON.stringify(req.body),
      req.headers['plaud-signature'],
      req.headers['plaud-timestamp'],
      secret(),
    );
    const { event, data } = req.body;
    seen.push({ valid, event, transcriptionId: data?.transcriptionId, error: data?.error });
    if (!valid) return void res.status(401).send('Invalid signature');
    res.sendStatus(200);
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  afterAll(() => new Promise((r) => server.close(r)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/plaud`;
  return { seen, url };
}

type Event = components['schemas']['WebhookEvent'];
const EVERY_EVENT: Event[] = [
  'transcription.completed',
  'transcription.failed',
  'device.connected',
  'device.disconnected',
  'device.recording_completed',
  'device.synced',
  'device.battery_low',
  'device.ota_completed',
  'device.ota_failed',
];

describe('a receiver copied from the docs', () => {
  it('verifies every event over JSON.stringify(req.body) and reads data.transcriptionId and error', async () => {
    let secret = '';
    const rc = await docsReceiver(() => secret);
    const app = await newApp();
    const ep = (await endpoint(app.client_id, { url: rc.url })).body;
    secret = ep.secret;
    expect(ep.payload).toBe('docs');

    // A real completion and a real failure whose message is not ASCII.
    const submit = async (file: string) =>
      (
        await http('POST', `${s.api}/open/partner/ai/transcriptions/`, {
          headers: keys(app),
          json: { file_url: `https://example.com/${file}` },
        })
      ).body.transcription_id as string;
    const done = await submit('a.mp3');
    const failed = await submit('b.mp3');
    const why = 'Codec non pris en charge — «ü» 日本語 🎙 \u2028 "quoted" \\ end';
    await http('PUT', `${s.admin}/transcriptions/${failed}`, { json: { status: 'FAILURE', message: why } });
    await advance(app.client_id, 60_000);
    // A sample of every event the simulator can send, device events included.
    for (const event of EVERY_EVENT)
      expect(
        (await http('POST', `${s.admin}/apps/${app.client_id}/webhooks/${ep.id}/test`, { json: { event } }))
          .status,
      ).toBeLessThan(300);
    await settle();

    expect(rc.seen.length).toBe(2 + EVERY_EVENT.length);
    expect(rc.seen.filter((x) => !x.valid)).toEqual([]);
    expect(new Set(rc.seen.map((x) => x.event))).toEqual(new Set(EVERY_EVENT));
    expect(rc.seen).toContainEqual({
      valid: true,
      event: 'transcription.completed',
      transcriptionId: done,
      error: undefined,
    });
    expect(rc.seen).toContainEqual({
      valid: true,
      event: 'transcription.failed',
      transcriptionId: failed,
      error: why,
    });
    for (const x of rc.seen.filter((y) => y.event.startsWith('transcription.')))
      expect(x.transcriptionId).toMatch(/^task_exec_/);
  });

  it('verifies any result and id the simulator may carry (key order, escapes, unicode), 60 runs', async () => {
    let secret = '';
    const rc = await docsReceiver(() => secret);
    const app = await newApp();
    secret = (await endpoint(app.client_id, { url: rc.url, events: ['transcription.completed'] })).body
      .secret;
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.string({ unit: 'binary', minLength: 1 }), async (result, tail) => {
        const id = `task_exec_${tail}`;
        const data = { transcription_id: id, status: 'SUCCESS', data: result };
        await s.services.webhooks.emit(app.client_id, 'transcription.completed', data, `evt_p${++n}`);
        await settle();
        const last = rc.seen.at(-1)!;
        expect(rc.seen).toHaveLength(n);
        expect(last).toEqual({
          valid: true,
          event: 'transcription.completed',
          transcriptionId: id,
          error: undefined,
        });
      }),
      { numRuns: 60, seed: 49 },
    );
  });
});
