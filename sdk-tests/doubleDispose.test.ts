import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from '../server/client/partnerClient.js';
import { PlaudSdkWeb } from '../server/doubles/capacitor/capacitor.js';
import { PlaudSdkDouble } from '../server/doubles/reactNative/reactNative.js';
import { DEMO_US } from '../server/testing/http.js';
import { scaledBudget } from '../server/testing/scaledBudget.js';
import { startTestServer, type TestServer } from '../server/testing/testServer.js';

// A double's virtual phone polls the simulator for its events, and keeps polling (less and
// less often) when the simulator goes away, so that an app reconnects when it comes back. A
// test that makes a double per case disposes each: otherwise every one it made goes on
// polling, in the background of every later test of the process.

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer();
});
afterAll(() => sim.stop());

describe.each([
  ['react-native', (o: object) => new PlaudSdkDouble(o)],
  ['capacitor', (o: object) => new PlaudSdkWeb(o)],
] as const)('dispose() of the %s double', (kind, make) => {
  async function started(userId: string) {
    const calls: string[] = [];
    const counting = ((url: string | URL | Request, init?: RequestInit) => {
      calls.push(`${init?.method ?? 'GET'} ${String(url)}`);
      return fetch(url, init);
    }) as typeof fetch;
    const sdk = make({
      simulatorUrl: sim.url,
      timing: 'instant',
      pollMs: 20,
      fetch: counting,
      onError: () => {},
    });
    const client = new PartnerClient({ api: sim.api, app: DEMO_US, userId });
    await sdk.initSDK({ userAccessToken: await client.userToken(), customDomain: 'platform-us.plaud.ai' });
    await expect.poll(() => calls.filter((c) => c.includes('/events?')).length).toBeGreaterThan(1);
    return { sdk, calls };
  }

  it('stops the polling and forgets the phone; without it the polling goes on', async () => {
    const kept = await started(`dispose-${kind}-kept`);
    const { sdk, calls } = await started(`dispose-${kind}`);
    sdk.dispose();
    // The forget, and a poll already on its way, land (on a busy host, later than 100 ms).
    const forgot = () => calls.some((c) => /^DELETE .*\/__device\/phones\/[^/?]+$/.test(c));
    await expect.poll(forgot).toBe(true);
    await sleep(scaledBudget(100));
    const after = calls.length;
    const keptBefore = kept.calls.length;
    await sleep(300); // fifteen poll intervals
    // The control: the double not disposed polls on meanwhile (a busy host gives it fewer turns).
    await expect.poll(() => kept.calls.length - keptBefore).toBeGreaterThan(3);
    expect(calls.slice(after)).toEqual([]);
    kept.sdk.dispose();
  });
});
