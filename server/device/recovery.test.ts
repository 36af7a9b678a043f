import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecoveryWorld, recover } from '../testing/deviceProtocol.js';
import { bearer, DEMO_US, http, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// The native template's recovery, written over the device protocol, for every arranged case:
// it ends with the message the arrangement predicts, and a recovered device is then bound to
// the current user in the cloud.

let sim: TestServer;
let world: (platform: 'ios' | 'android') => RecoveryWorld;
let sub: string;
beforeAll(async () => {
  sim = await startTestServer();
  const { user } = await userToken(sim.api, DEMO_US, 'recovery-user');
  sub = JSON.parse(Buffer.from(user.split('.')[1]!, 'base64url').toString()).sub;
  world = (platform) => ({
    base: sim.url,
    api: sim.api,
    admin: sim.admin,
    userToken: user,
    clientId: DEMO_US.client_id,
    platform,
  });
});
afterAll(() => sim.stop());

const CASES = [
  'classic_lock',
  'bound_elsewhere',
  'not_in_history',
  'behind_duplicates',
  'sixth_id',
  'never_paired',
  'out_of_range',
  'battery_low',
  'recording',
  'paired_to_user',
] as const;
let n = 0;

describe.each(['android', 'ios'] as const)('recovery over the device protocol (%s)', (platform) => {
  it.each(CASES)('%s ends as arranged', async (kase) => {
    const sn = `8810REC${platform[0]!.toUpperCase()}${String(++n).padStart(7, '0')}`;
    const arranged = await http('POST', `${sim.admin}/recorders/${sn}/arrange`, {
      json: { case: kase, user: { sub, client_id: DEMO_US.client_id } },
    });
    expect(arranged.status, arranged.text).toBe(200);
    const message = await recover(world(platform), sn, 'notepro');
    expect(arranged.body.expect.message).toBe(`recovery would end: ${message}`);
    const after = await http('GET', `${sim.api}/open/partner/sdk/binding?type=notepro&sn=${sn}`, {
      headers: bearer(world(platform).userToken),
    });
    const ends = arranged.body.expect.recovery;
    if (ends === 'unlocked' || ends === 'not_needed') {
      expect(after.body).toMatchObject({ is_bind: true });
      expect(after.body.bind_history[0]).toBe(sub);
      expect((await http('GET', `${sim.admin}/recorders/${sn}`)).body.paired_to).toBe(sub);
    } else {
      expect(after.body.bind_history?.[0]).not.toBe(sub);
    }
  });

  it('classic lock with cloud null ends with "no bind history"', async () => {
    const sn = `8820RECN${platform[0]!.toUpperCase()}${String(++n).padStart(6, '0')}`;
    const a = await http('POST', `${sim.admin}/recorders/${sn}/arrange`, {
      json: { case: 'classic_lock', cloud: null },
    });
    expect(a.body.expect.recovery).toBe('no_history');
    expect(await recover(world(platform), sn, 'notepins')).toBe('no bind history');
  });
});
