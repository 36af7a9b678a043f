import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Random } from '../core/random.js';
import { DEMO_US, exchangeToken, http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { RequestIds } from './requestId.js';

describe('RequestIds', () => {
  const ids = new RequestIds(new Random('request-ids'));

  it.each([
    'b2a3c9e0-6f1d-4d3a-9c1e-0f6b8f1a2c3d',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    'ci-job-42/step.3',
  ])('echoes a safe id as sent: %s', (id) => {
    expect(ids.of(id)).toBe(id);
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['spaces', 'a b'],
    ['a script', '<script>alert(1)</script>'],
    ['quotes', '"x"'],
    ['non-ASCII', 'ïd'],
    ['empty', ''],
    ['several', ['a', 'b']],
  ])('never echoes %s: a fresh, bounded id instead', (_why, sent) => {
    const id = ids.of(sent);
    expect(id).not.toBe(sent);
    expect(id).toMatch(/^sim-[0-9a-f]{12}-[0-9a-z]+$/);
  });

  it('makes distinct ids, and instances differ', () => {
    const a = [ids.of(undefined), ids.of(undefined)];
    expect(a[0]).not.toBe(a[1]);
    expect(new RequestIds(new Random('other')).of(undefined)).not.toBe(
      new RequestIds(new Random('x')).of(undefined),
    );
  });
});

describe('X-Request-Id on the wire', () => {
  let sim: TestServer;
  beforeAll(async () => {
    sim = await startTestServer();
  });
  afterAll(() => sim.stop());

  it('echoes a safe id on every surface and answer, errors and unknown paths included', async () => {
    const h = { 'X-Request-Id': 'ci-run-7' };
    expect((await exchangeToken(sim.api, DEMO_US, h)).headers.get('x-request-id')).toBe('ci-run-7');
    const wrong = await exchangeToken(sim.api, { ...DEMO_US, secret_key: 'wrong' }, h);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('x-request-id')).toBe('ci-run-7');
    for (const url of [`${sim.api}/no/such/path`, `${sim.url}/storage/nothing`, `${sim.admin}/clock`]) {
      expect((await http('GET', url, { headers: h })).headers.get('x-request-id'), url).toBe('ci-run-7');
    }
  });

  it('generates one when absent or unsafe, and the journal keeps it', async () => {
    await http('DELETE', `${sim.admin}/requests`);
    const plain = await exchangeToken(sim.api, DEMO_US);
    const hostile = await exchangeToken(sim.api, DEMO_US, { 'X-Request-Id': `x${'%0d'.repeat(100)}` });
    const [a, b] = [plain.headers.get('x-request-id'), hostile.headers.get('x-request-id')];
    expect(a).toMatch(/^sim-[0-9a-f]{12}-[0-9a-z]+$/);
    expect(b).toMatch(/^sim-[0-9a-f]{12}-[0-9a-z]+$/);
    expect(a).not.toBe(b);
    const entries = (await http('GET', `${sim.admin}/requests`)).body as { request_id: string }[];
    expect(entries.map((e) => e.request_id)).toEqual([b, a]);
  });
});
