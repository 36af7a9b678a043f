import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { useReceivers } from '../testing/webhookReceiver.js';
import { parseEgress, WebhookEgress } from './egress.js';
import type { EndpointRecord } from './model.js';
import { postOnce } from './sender.js';

// Where webhook deliveries may go (issue 30 item 3): never the simulator itself, never a
// link-local (metadata) address; `--webhook-egress` narrows further. Loopback receivers only.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ webhookTimeoutMs: 500 });
});
afterAll(() => s.stop());

const receiver = useReceivers();

let n = 0;
async function newApp(on: TestServer = s): Promise<string> {
  const made = await http('POST', `${on.admin}/apps`, { json: { client_id: `eg-${++n}-${Date.now()}` } });
  return made.body.client_id as string;
}
const endpoint = (clientId: string, url: string, on: TestServer = s) =>
  http('POST', `${on.admin}/apps/${clientId}/webhooks`, { json: { url } });

describe('webhook egress', () => {
  it("refuses the simulator's own address on any path and link-local addresses with a 422 naming why", async () => {
    const app = await newApp();
    const port = new URL(s.url).port;
    const refused: Array<[string, RegExp]> = [
      [`http://127.0.0.1:${port}/__admin/reset`, /own listening address/],
      [`http://localhost:${port}/__admin/apps`, /localhost resolves to .*own listening address/],
      [`http://127.0.0.1:${port}/anything/else`, /own listening address/],
      ['http://169.254.169.254/latest/meta-data/', /link-local/],
      ['http://[::ffff:169.254.169.254]/', /link-local/],
      ['http://[fe80::1]/hook', /link-local/],
    ];
    for (const [url, why] of refused) {
      const r = await endpoint(app, url);
      expect(r.status, url).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['body', 'url']);
      expect(r.body.detail[0].msg, url).toMatch(why);
    }
    // A local receiver on loopback, the main use, stays allowed; so does a change to it.
    const ok = await endpoint(app, (await receiver()).url);
    expect(ok.status).toBe(201);
    const moved = await http('PATCH', `${s.admin}/apps/${app}/webhooks/${ok.body.id}`, {
      json: { url: `http://127.0.0.1:${port}/__admin/reset` },
    });
    expect(moved.status).toBe(422);
  });

  it('checks again at delivery: a stored endpoint aimed at the simulator is never called', async () => {
    const app = await newApp();
    const bystander = await newApp();
    // As an endpoint stored before the rule (an older version, a shared store) would be.
    const id = `whe_self${Date.now()}`;
    await s.services.deps.store.mirrored<EndpointRecord>('webhookEndpoints').put(id, {
      id,
      client_id: app,
      url: `${s.url}/__admin/reset`,
      scheme: 'current',
      events: null,
      enabled: true,
      created_at: new Date().toISOString(),
      secret: 'whsec_x',
      seq: 1000,
    });
    const sent = await http('POST', `${s.admin}/apps/${app}/webhooks/${id}/test`, { json: {} });
    expect(sent.status).toBe(202);
    await s.services.webhooks.tick();
    await s.services.webhooks.idle();
    const [d] = (await http('GET', `${s.admin}/apps/${app}/webhook-deliveries`)).body;
    expect(d.attempts[0]).toMatchObject({ outcome: 'failure' });
    expect(d.attempts[0].error).toMatch(/^refused: .*own listening address/);
    // No reset happened: the other app is still there.
    expect(s.services.apps.get(bystander)).toBeDefined();
  });

  it('resolves a name at delivery and refuses what it resolves to, before connecting', async () => {
    const r = await receiver();
    const port = Number(new URL(r.url).port);
    const egress = new WebhookEgress('local-and-public', () => [{ address: '127.0.0.1', port }]);
    const url = `http://localhost:${port}/hook`;
    const guard = egress.forDelivery(url);
    expect('lookup' in guard).toBe(true);
    const result = await postOnce(
      url,
      {},
      '{}',
      2000,
      undefined,
      'lookup' in guard ? guard.lookup : undefined,
    );
    expect(result.error).toMatch(/^refused: localhost resolves to .*own listening address/);
    expect(r.got).toHaveLength(0);
  });

  it('--webhook-egress public refuses loopback receivers; a host list allows only its hosts', async () => {
    const pub = await startTestServer({ webhookEgress: 'public' });
    const listed = await startTestServer({ webhookEgress: parseEgress('hooks.example.test') });
    try {
      const url = (await receiver()).url;
      const a = await endpoint(await newApp(pub), url, pub);
      expect(a.status).toBe(422);
      expect(a.body.detail[0].msg).toMatch(/not a public address \(--webhook-egress public\)/);
      const b = await endpoint(await newApp(listed), url, listed);
      expect(b.status).toBe(422);
      expect(b.body.detail[0].msg).toMatch(
        /not one of the hosts --webhook-egress allows \(hooks\.example\.test\)/,
      );
    } finally {
      await pub.stop();
      await listed.stop();
    }
  });

  it('parses the option: two keywords or a host list', () => {
    expect(parseEgress('public')).toBe('public');
    expect(parseEgress('LOCAL-AND-PUBLIC')).toBe('local-and-public');
    expect(parseEgress('a.example, [::1]')).toEqual({ hosts: ['a.example', '::1'] });
    expect(() => parseEgress('http://x/')).toThrow(/comma list of host names/);
  });
});

describe('receiver answers', () => {
  it('a 200 whose body stalls past the deadline is a failed attempt', async () => {
    const app = await newApp();
    const r = await receiver({ stallBody: true });
    const ep = (await endpoint(app, r.url)).body;
    await http('POST', `${s.admin}/apps/${app}/webhooks/${ep.id}/test`, { json: {} });
    await s.services.webhooks.tick();
    await s.services.webhooks.idle();
    const [d] = (await http('GET', `${s.admin}/apps/${app}/webhook-deliveries`)).body;
    expect(d.attempts[0]).toMatchObject({ response_status: 200, outcome: 'failure' });
    expect(d.attempts[0].error).toBe('answer not finished within 500 ms');
    expect(d.status).toBe('pending');
  });
});
