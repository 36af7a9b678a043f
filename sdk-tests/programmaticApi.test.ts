import { ControlError, type SimulatorHandle, startSimulator } from 'partner-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The package entry used exactly as a partner's test suite would: start an in-memory
// simulator, arrange a device through the typed control client, call the partner API over
// HTTP with plain fetch, stop. `partner-sim` resolves to server/index.ts here (see
// vitest.config.ts) and to dist/server/index.js in an installed package.

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ seed: 'programmatic-api-test' });
});
afterAll(() => sim.stop());

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function userToken(app: { client_id: string; secret_key: string }, userId: string): Promise<string> {
  const partner = await fetch(`${sim.urls.us}/oauth/partner/access-token`, {
    method: 'POST',
    headers: { authorization: basic(app.client_id, app.secret_key) },
  });
  expect(partner.status).toBe(200);
  const { access_token } = (await partner.json()) as { access_token: string };
  const user = await fetch(`${sim.urls.us}/open/partner/users/access-token`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ user_id: userId }),
  });
  expect(user.status).toBe(200);
  return ((await user.json()) as { access_token: string }).access_token;
}

describe('programmatic API (import from the package entry)', () => {
  it('listens on a free loopback port and names every base URL', () => {
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sim.url).not.toMatch(/:4010$/);
    expect(sim.urls).toEqual({
      us: `${sim.url}/developer/api`,
      jp: `${sim.url}/jp/developer/api`,
      storage: `${sim.url}/storage`,
      admin: `${sim.url}/__admin`,
    });
  });

  it('arranges a device through control and the partner API reports exactly that state', async () => {
    const app = await sim.control.createApp({ client_id: 'programmatic-app', region: 'us' });
    const sn = '8810PROGRAMMATIC1';
    const history = ['client_user_3f2c8a90-1b2c-4d5e-8f90-123456789abc'];
    const device = await sim.control.putDevice(sn, { is_bind: false, bind_history: history });
    expect(device).toMatchObject({ sn, type: 'notepro', is_bind: false, bind_history: history });

    const token = await userToken(app, 'programmatic-user-1');
    const res = await fetch(`${sim.urls.us}/open/partner/sdk/binding?type=notepro&sn=${sn}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ is_bind: false, bind_history: history });

    await sim.control.deleteDevice(sn);
    const gone = await fetch(`${sim.urls.us}/open/partner/sdk/binding?type=notepro&sn=${sn}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(gone.status).toBe(404);
    await sim.control.deleteApp(app.client_id);
  });

  it('moves one app clock only, and sees its own requests in the journal', async () => {
    const app = await sim.control.createApp({ client_id: 'programmatic-clock', region: 'us' });
    const before = await sim.control.clock(app.client_id);
    const after = await sim.control.advanceClock(3_600_000, app.client_id);
    expect(Date.parse(after.now) - Date.parse(before.now)).toBeGreaterThanOrEqual(3_600_000);
    const instance = await sim.control.clock();
    expect(Date.parse(instance.now)).toBeLessThan(Date.parse(after.now) - 3_000_000);

    await userToken(app, 'programmatic-user-2');
    const journal = await sim.control.requests({ client_id: app.client_id });
    expect(journal.map((e) => e.operation)).toEqual(
      expect.arrayContaining(['getPartnerToken', 'createUserToken']),
    );
  });

  it('rejects a refused control call with a ControlError carrying the status', async () => {
    const err = await sim.control.deleteApp('no-such-app').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControlError);
    expect(err).toMatchObject({ status: 404, operationId: 'deletePartnerApp' });
  });

  it('reaches any operation by operationId through call()', async () => {
    const health = await sim.control.call('getHealth');
    expect(health).toMatchObject({ status: 'ok' });
    const spec = await sim.control.call('getAdminSpec');
    expect(spec).toMatch(/^openapi: 3\.1/);
  });
});
