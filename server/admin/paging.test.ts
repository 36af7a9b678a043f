import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpload } from '../client/steps.js';
import { uploadAll } from '../client/upload.js';
import { adminSpec } from '../spec/openapi.js';
import { COLLECTIONS } from '../store/collections.js';
import { DEMO_US, http, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// Every listing of the control API pages alike (issue 20, item 12): `limit`, an opaque
// `cursor`, a `Link: <…>; rel="next"` header while more follow; and no listing reads a whole
// collection (`Collection.list`), so a page costs the same however much the store holds.

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer({ chunkSize: 1024, transcriptionDelay: 60_000 });
  const admin = (method: string, path: string, json?: unknown) =>
    http(method, `${sim.admin}${path}`, json === undefined ? {} : { json });
  for (const id of ['page-app-1', 'page-app-2', 'page-app-3'])
    await admin('POST', '/apps', { client_id: id });
  for (const sn of ['881PAGE000001', '881PAGE000002', '882PAGE000003'])
    await admin('PUT', `/devices/${sn}`, { is_bind: false });
  const md5s = ['0'.repeat(32), '1'.repeat(32), '2'.repeat(32)];
  for (const md5 of md5s)
    await admin('PUT', `/transcripts/${md5}`, {
      language: 'en',
      segments: [{ start: 0, end: 1, text: 'x', speaker: 'S' }],
    });
  for (const operation of ['getPartnerToken', 'uploadPart', 'createUserToken'])
    await admin('POST', '/faults', { operation, delay_ms: 0, match: { client_id: 'nobody' } });
  const token = (await userToken(sim.api, DEMO_US)).user;
  for (let i = 0; i < 3; i++) {
    await startUpload(sim.api, token, 10);
    await uploadAll(sim.api, token, 10, (_p, n) => new Uint8Array(n).fill(i));
  }
  const keys = { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.api_key };
  for (let i = 0; i < 3; i++)
    await http('POST', `${sim.api}/open/partner/ai/transcriptions/`, {
      headers: keys,
      json: { file_url: `https://example.com/${i}.mp3` },
    });
  for (const sn of ['881PAGE000001', '881PAGE000002', '882PAGE000003'])
    await admin('PUT', `/recorders/${sn}`, {});
  for (let i = 0; i < 3; i++)
    await http('POST', `${sim.url}/__device/phones`, {
      headers: { authorization: `Bearer ${token}` },
      json: { timing: 'instant' },
    });
  // Endpoints nobody listens on (loopback, refused) and a test event to each: the delivery log.
  for (let i = 0; i < 3; i++) {
    const ep = await admin('POST', `/apps/${DEMO_US.client_id}/webhooks`, {
      url: `http://127.0.0.1:9/hook${i}`,
    });
    expect(ep.status).toBe(201);
    await admin('POST', `/apps/${DEMO_US.client_id}/webhooks/${ep.body.id}/test`, {});
  }
  await sim.services.webhooks.tick();
  await sim.services.webhooks.idle();
});
afterAll(() => sim?.stop());

/** The operations of the control API that answer a listing: a GET whose 200 body is a list. */
const listings = [...adminSpec().operations.values()].filter((op) => op.id.startsWith('list'));

/** A listing's URL path: the app-scoped ones (webhooks) name the app holding the records. */
const pathOf = (path: string) => path.replace('{client_id}', DEMO_US.client_id);

/** A listing's records as one array (listUploads: sessions then files). */
// biome-ignore lint/suspicious/noExplicitAny: control API answers are read as JSON
const records = (id: string, body: any): unknown[] =>
  id === 'listUploads' ? [...body.uploads, ...body.files] : body;

async function walk(path: string, id: string, limit: number) {
  const pages: unknown[][] = [];
  let url: string | undefined = `${sim.admin}${pathOf(path)}?limit=${limit}`;
  while (url) {
    const r: { status: number; headers: Headers; body: unknown } = await http('GET', url);
    expect(r.status, url).toBe(200);
    pages.push(records(id, r.body));
    url = /^<([^>]+)>; rel="next"$/.exec(r.headers.get('link') ?? '')?.[1];
    expect(pages.length).toBeLessThan(100);
  }
  return pages;
}

describe('every control API listing', () => {
  it('is the eleven listings, each declaring the shared Limit and Cursor and the next link', () => {
    expect(listings.map((op) => op.id).sort()).toEqual([
      'listApps',
      'listDevices',
      'listFaults',
      'listPhones',
      'listRecorders',
      'listRequests',
      'listTranscriptions',
      'listTranscripts',
      'listUploads',
      'listWebhookDeliveries',
      'listWebhookEndpoints',
    ]);
    for (const op of listings) {
      const refs = (op.operation.parameters ?? []).map((p) => (p as { $ref?: string }).$ref);
      expect(refs, op.id).toEqual(
        expect.arrayContaining(['#/components/parameters/Limit', '#/components/parameters/Cursor']),
      );
      const ok = adminSpec().response(op, 200) as { headers?: Record<string, { $ref?: string }> };
      expect(ok.headers?.Link?.$ref, op.id).toBe('#/components/headers/NextPage');
    }
  });

  it.each(
    listings.map((op) => [op.id, op.path] as const),
  )('%s pages through everything once, limit at a time, following the Link header', async (id, path) => {
    const whole = records(id, (await http('GET', `${sim.admin}${pathOf(path)}?limit=1000`)).body);
    expect(whole.length, id).toBeGreaterThan(2);
    const pages = await walk(path, id, 2);
    expect(pages.length).toBeGreaterThan(1);
    // listUploads pages sessions and files side by side: up to `limit` of each.
    for (const p of pages) expect(p.length).toBeLessThanOrEqual(id === 'listUploads' ? 4 : 2);
    // Download URLs are signed afresh on each read: files and sessions compare by id; so do
    // deliveries, whose attempts may be added while the pages are read.
    const key = (r: unknown) =>
      id === 'listUploads'
        ? JSON.stringify(
            (r as { file_id: string; upload_id?: string }).upload_id ?? (r as { file_id: string }).file_id,
          )
        : id === 'listWebhookDeliveries'
          ? (r as { id: string }).id
          : JSON.stringify(r);
    const seen = pages.flat().map(key);
    // The journal gains an entry per page read, so compare what the first listing held.
    if (id === 'listRequests') expect(seen).toEqual(expect.arrayContaining(whole.slice(0, 5).map(key)));
    // listUploads interleaves sessions and files page by page; each keeps its own order.
    else if (id === 'listUploads') expect([...seen].sort()).toEqual(whole.map(key).sort());
    else expect(seen).toEqual(whole.map(key));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it.each(
    listings.map((op) => [op.id, op.path] as const),
  )('%s refuses a cursor it did not give, and a limit over 1,000, with a 422', async (_id, path) => {
    for (const q of [
      'cursor=nonsense',
      `cursor=${Buffer.from('{"x":1}').toString('base64url')}`,
      'limit=1001',
    ]) {
      const r = await http('GET', `${sim.admin}${pathOf(path)}?${q}`);
      expect(r.status, q).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['query', q.split('=')[0]]);
    }
  });

  it('keeps its filters in the next link, and never reads a whole collection', async () => {
    const store = sim.services.deps.store;
    let scans = 0;
    for (const name of Object.keys(COLLECTIONS)) {
      const c = COLLECTIONS[name as keyof typeof COLLECTIONS].mirrored
        ? store.mirrored(name)
        : store.collection(name);
      const list = c.list.bind(c);
      c.list = () => {
        scans++;
        return list();
      };
    }
    const first = await http('GET', `${sim.admin}/transcriptions?client_id=${DEMO_US.client_id}&limit=1`);
    expect(first.body).toHaveLength(1);
    expect(first.headers.get('link')).toMatch(
      new RegExp(
        `^<${sim.admin}/transcriptions\\?client_id=${DEMO_US.client_id}&limit=1&cursor=[\\w-]+>; rel="next"$`,
      ),
    );
    for (const op of listings)
      expect((await http('GET', `${sim.admin}${pathOf(op.path)}?limit=2`)).status).toBe(200);
    expect(scans).toBe(0);
  });

  it.each(
    listings.filter((op) => !op.path.includes('{client_id}')).map((op) => [op.id, op.path] as const),
  )('%s filters by client_id, or refuses it with a 422 naming it: never a 500', async (id, path) => {
    const r = await http('GET', `${sim.admin}${path}?client_id=page-app-2&limit=5`);
    if (id === 'listRecorders' || id === 'listTranscripts') {
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['query', 'client_id']);
      return;
    }
    expect(r.status).toBe(200);
    if (id === 'listApps')
      expect(r.body.map((a: { client_id: string }) => a.client_id)).toEqual(['page-app-2']);
    // None of the fixture devices is bound through page-app-2.
    if (id === 'listDevices') expect(r.body).toEqual([]);
  });
});
