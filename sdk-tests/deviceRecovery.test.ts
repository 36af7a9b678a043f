import { readFileSync } from 'node:fs';
import { configurePlaudSdkDouble } from 'plaud-sdk';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { parse } from 'yaml';
import { PartnerClient } from '../server/client/partnerClient.js';
import { fetchBinding } from '../server/client/recovery.js';
import { fromRoot } from '../server/core/root.js';
import { TokenService } from '../server/domain/tokens.js';
import { PlaudSdkWeb } from '../server/doubles/capacitor/capacitor.js';
import type { Platform } from '../server/doubles/phone/types.js';
import type { components } from '../server/spec/admin-types.js';
import { DEMO_US, http } from '../server/testing/http.js';
import { startTestServer, type TestServer } from '../server/testing/testServer.js';
import { type Bridge, connectWithRecovery, MAX_IDS } from './partnerRecovery.js';

// Every arranged device-lock case, one control-API call each, recovered by a partner-style
// implementation of the native template's algorithm through a double of the official bridge:
// the React Native module (imported as 'plaud-sdk' through the vitest alias, as an app does)
// on iOS and Android, and the Capacitor plugin on Android (which relays connectFail).

// Every case the control API can arrange, read from its document: a new case is run too.
const adminDoc = parse(readFileSync(fromRoot('server/admin.openapi.yaml'), 'utf8')) as {
  components: { schemas: { ArrangeCase: { enum: Case[] } } };
};
const CASES = adminDoc.components.schemas.ArrangeCase.enum;
type Case = components['schemas']['ArrangeCase'];
// The arrange answer as server/admin.openapi.yaml declares it, not retyped here.
type Arrangement = components['schemas']['Arrangement'];

// Each case's double is disposed after it: its phone's event polling stops (dispose()).
const BRIDGES: Array<{
  name: string;
  platform: Platform;
  make: (o: object) => Bridge & { dispose(): void };
}> = [
  { name: 'react-native', platform: 'ios', make: (o) => configurePlaudSdkDouble(o) },
  { name: 'react-native', platform: 'android', make: (o) => configurePlaudSdkDouble(o) },
  { name: 'capacitor', platform: 'android', make: (o) => new PlaudSdkWeb(o) },
];

let sim: TestServer;
let serial = 0;
beforeAll(async () => {
  sim = await startTestServer();
});
afterAll(async () => {
  configurePlaudSdkDouble({ timing: 'instant', onError: () => {} });
  await sim.stop();
});

const arrange = async (sn: string, body: object): Promise<Arrangement> => {
  const r = await http<Arrangement>('POST', `${sim.admin}/recorders/${sn}/arrange`, { json: body });
  expect(r.status, r.text).toBe(200);
  return r.body;
};

it('reads the ten documented cases from the control API document', () => {
  expect(CASES).toContain('classic_lock');
  expect(CASES.length).toBeGreaterThanOrEqual(10);
});

describe.each(BRIDGES)('recovery through the $name double on $platform', ({ name, platform, make }) => {
  it.each([...CASES, 'classic_lock, cloud null'])('%s', async (label) => {
    const [which, variant] = label.split(', ') as [Case, string | undefined];
    const userId = `recover-${platform}-${++serial}`;
    const client = new PartnerClient({ api: sim.api, app: DEMO_US, userId });
    const sub = TokenService.userSub(DEMO_US.client_id, userId);
    const sn = `8810RCV${String(serial).padStart(8, '0')}`;
    const arranged = await arrange(sn, {
      case: which,
      user: { sub, client_id: DEMO_US.client_id },
      ...(variant ? { cloud: null } : {}),
    });
    const errors: unknown[] = [];
    const sdk = make({
      simulatorUrl: sim.url,
      platform,
      timing: 'instant',
      onError: (e: unknown) => errors.push(e),
    });
    onTestFinished(() => sdk.dispose());
    await sdk.initSDK({ userAccessToken: await client.userToken(), customDomain: 'platform-us.plaud.ai' });

    const run = await connectWithRecovery(sdk, client, sn, async () => {});
    // What the algorithm can observe through this bridge, as the arrangement says.
    const bridge = platform === 'ios' ? 'ios' : name === 'capacitor' ? 'capacitor_android' : 'android';
    expect(run.message).toBe(arranged.expect.by_bridge[bridge].message);
    expect(run.tried.length).toBeLessThanOrEqual(MAX_IDS);
    if (which === 'behind_duplicates') expect(run.tried).toHaveLength(2);
    if (which === 'sixth_id') expect(run.tried).toHaveLength(MAX_IDS);
    if (run.outcome === 'unlocked') expect(run.tried.at(-1)).toBe(arranged.locked_to);

    const binding = await fetchBinding(sim.api, await client.userToken(), sn);
    if (run.outcome === 'unlocked' || run.outcome === 'not_needed') {
      expect(binding).toMatchObject({ is_bind: true });
      expect(binding!.bind_history[0]).toBe(sub);
    } else {
      expect(binding?.bind_history ?? []).not.toContain(sub);
    }
    expect(errors).toEqual([]);
    await sdk.disconnect();
  });
});
