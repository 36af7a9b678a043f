import { afterAll, beforeAll, expect } from 'vitest';
import { http } from './http.js';
import { startTestServer, type TestServer } from './testServer.js';
import { useReceivers } from './webhookReceiver.js';

// Shared by the webhook tests, end to end: a real receiver on loopback, each app's clock
// frozen at T0 and moved by the control API.

export const T0 = Date.parse('2030-01-01T00:00:00.000Z');

/** Starts the file's simulator; `s` reads it once it runs. */
export function useWebhookSim() {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ transcriptionDelay: 20_000, webhookTimeoutMs: 500 });
  });
  afterAll(() => server.stop());
  const s = {
    get api() {
      return server.api;
    },
    get admin() {
      return server.admin;
    },
    get services() {
      return server.services;
    },
  };

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

  return { s, receiver, newApp, endpoint, advance, settle, log };
}
