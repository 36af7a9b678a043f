import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { DEMO_US, exchangeToken, http } from './http.js';
import { startTestServer, type TestServer } from './testServer.js';

// Shared by the fault tests that see every fault kind as a real HTTP client does: one
// simulator per file whose rules are cleared before each test.

/** Starts the file's simulator; `sim.api` and `sim.admin` are its addresses once it runs. */
export function useFaultSim() {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ chunkSize: 1024 });
  });
  afterAll(() => server.stop());
  const sim = {
    get api() {
      return server.api;
    },
    get admin() {
      return server.admin;
    },
  };
  beforeEach(async () => {
    await http('DELETE', `${sim.admin}/faults`);
  });
  const tokenUrl = () => `${sim.api}/oauth/partner/access-token`;
  const exchange = (app = DEMO_US, headers: Record<string, string> = {}) =>
    exchangeToken(sim.api, app, headers);
  const addFault = async (rule: Record<string, unknown>) => {
    const r = await http('POST', `${sim.admin}/faults`, { json: rule });
    expect(r.status, r.text).toBe(201);
    return r.body as { id: string };
  };
  return { sim, tokenUrl, exchange, addFault };
}

/** The error a fetch rejected with, and its cause's code (ECONNRESET, ...). */
export const failure = async (p: Promise<unknown>) => {
  const err = (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as (Error & { cause?: { code?: string } }) | undefined;
  expect(err, 'the request should have failed').toBeDefined();
  return { name: err!.name, code: err!.cause?.code };
};
