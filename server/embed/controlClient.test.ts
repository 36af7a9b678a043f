import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { components } from '../spec/admin-types.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { ControlClient, ControlError } from './controlClient.js';
import type { ControlArgs, ControlResult } from './controlTypes.js';

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer({ adminToken: 'control-client-test-token' });
});
afterAll(() => sim.stop());

describe('ControlClient', () => {
  it('sends the admin token; without it the refusal is a ControlError naming the call', async () => {
    const anonymous = new ControlClient(sim.admin);
    const err = await anonymous.listApps().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControlError);
    expect(err).toMatchObject({ status: 401, operationId: 'listApps' });
    expect((err as Error).message).toMatch(/^control API GET \/apps \(listApps\) answered 401/);
    expect((err as Error).message).not.toContain('control-client-test-token');

    const control = new ControlClient(`${sim.admin}/`, { adminToken: 'control-client-test-token' });
    expect((await control.listApps()).length).toBeGreaterThan(0);
  });

  it('encodes path parameters, so an id with a slash stays one segment', async () => {
    const control = new ControlClient(sim.admin, { adminToken: 'control-client-test-token' });
    const err = await control.deleteApp('a/b').catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 404, operationId: 'deletePartnerApp' });
    expect((err as Error).message).toContain('/apps/a%2Fb');
  });

  it('leaves undefined query values out and sends the rest', async () => {
    const seen: string[] = [];
    const control = new ControlClient(sim.admin, {
      adminToken: 'control-client-test-token',
      fetch: (url, init) => {
        seen.push(String(url));
        return fetch(url, init);
      },
    });
    await control.requests({ limit: 2, client_id: undefined, operation: 'getPartnerToken' });
    expect(seen).toEqual([`${sim.admin}/requests?limit=2&operation=getPartnerToken`]);
  });

  it('reads every page of a listing for its list shorthands, following the Link header', async () => {
    const seen: string[] = [];
    const control = new ControlClient(sim.admin, {
      adminToken: 'control-client-test-token',
      // Pages of 3, so the fixtures' devices take several.
      fetch: (url, init) => {
        const u = new URL(String(url));
        if (!u.searchParams.has('limit')) u.searchParams.set('limit', '3');
        seen.push(u.href);
        return fetch(u, init);
      },
    });
    const one = await control.call('listDevices', { query: { limit: 1000 } });
    seen.length = 0;
    const devices = await control.listDevices();
    expect(devices).toEqual(one);
    expect(seen.length).toBe(Math.ceil(one.length / 3));
    expect(seen.slice(1).every((u) => new URL(u).searchParams.has('cursor'))).toBe(true);
  });

  it('reads every page of an app-scoped listing, its app given as a path parameter', async () => {
    const seen: string[] = [];
    const control = new ControlClient(sim.admin, {
      adminToken: 'control-client-test-token',
      fetch: (url, init) => {
        const u = new URL(String(url));
        if (init?.method === 'GET' && !u.searchParams.has('limit')) u.searchParams.set('limit', '2');
        seen.push(u.href);
        return fetch(u, init);
      },
    });
    const app = await control.createApp({ client_id: 'control-client-hooks' });
    const path = { client_id: app.client_id };
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push(
        (await control.call('createWebhookEndpoint', { path, body: { url: `http://127.0.0.1:9/h${i}` } })).id,
      );
    seen.length = 0;
    const endpoints = await control.all('listWebhookEndpoints', { path });
    expect(endpoints.map((e) => e.id)).toEqual(made);
    expect(seen.map((u) => new URL(u).pathname)).toEqual(
      Array(3).fill('/__admin/apps/control-client-hooks/webhooks'),
    );
  });

  it('refuses a call whose path parameter is missing before sending anything', async () => {
    const control = new ControlClient(sim.admin, { fetch: () => Promise.reject(new Error('sent')) });
    await expect(control.call('getDevice', { path: {} } as never)).rejects.toThrow(
      /getDevice: path parameter sn is missing/,
    );
  });

  it('types inputs and results from the generated admin types', () => {
    expectTypeOf<ControlResult<'getDevice'>>().toEqualTypeOf<components['schemas']['Device']>();
    expectTypeOf<ControlResult<'deleteDevice'>>().toEqualTypeOf<undefined>();
    expectTypeOf<ControlResult<'getAdminSpec'>>().toEqualTypeOf<string>();
    // No required input: the argument may be left out; a required body or path may not.
    type Omittable<A> = [] extends A ? true : false;
    expectTypeOf<Omittable<ControlArgs<'listApps'>>>().toEqualTypeOf<true>();
    expectTypeOf<Omittable<ControlArgs<'putDevice'>>>().toEqualTypeOf<false>();
    type PutDevice = ControlArgs<'putDevice'>[0];
    expectTypeOf<PutDevice['body']>().toEqualTypeOf<components['schemas']['DeviceState']>();
    expectTypeOf<PutDevice['path']>().toEqualTypeOf<{ sn: string }>();
  });
});
