import { describe, expect, it } from 'vitest';
import { useFaultSim } from '../testing/faultKit.js';
import { bearer, DEMO_US, http, OTHER_US, userToken } from '../testing/http.js';

// A rule's `match` narrows it to one app, device, user or path; listing and deleting by app.

const { sim, exchange, addFault } = useFaultSim();

describe('match narrows a rule', () => {
  it('by client_id: only that app is hit', async () => {
    await addFault({ operation: 'getPartnerToken', status: 503, match: { client_id: OTHER_US.client_id } });
    expect((await exchange(DEMO_US)).status).toBe(200);
    expect((await exchange(OTHER_US)).status).toBe(503);
  });

  it('by sn, user_id and path_contains', async () => {
    const { partner, user } = await userToken(sim.api, DEMO_US);
    await addFault({ operation: 'getDeviceBinding', status: 500, match: { sn: '881FAULT0001' } });
    await addFault({ operation: 'createUserToken', status: 503, match: { user_id: 'unlucky-user' } });
    await addFault({ operation: 'getTranscription', status: 502, match: { path_contains: 'cursed' } });
    const binding = (sn: string) =>
      http('GET', `${sim.api}/open/partner/sdk/binding?type=notepro&sn=${sn}`, { headers: bearer(user) });
    expect((await binding('881FAULT0001')).status).toBe(500);
    // Serials are case-insensitive in the registry, so in rules too.
    expect((await binding('881fault0001')).status).toBe(500);
    expect((await binding('881FAULT0002')).status).not.toBe(500);
    const mint = (user_id: string) =>
      http('POST', `${sim.api}/open/partner/users/access-token`, {
        headers: bearer(partner),
        json: { user_id },
      });
    expect((await mint('unlucky-user')).status).toBe(503);
    expect((await mint('lucky-user')).status).toBe(200);
    const task = (id: string) =>
      http('GET', `${sim.api}/open/partner/ai/transcriptions/${id}`, {
        headers: { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.api_key },
      });
    expect((await task('cursed-id')).status).toBe(502);
    expect((await task('plain-id')).status).toBe(404);
  });

  it('lists and deletes the rules of one app only', async () => {
    const a = await addFault({
      operation: 'getPartnerToken',
      status: 503,
      match: { client_id: DEMO_US.client_id },
    });
    await addFault({ operation: 'getPartnerToken', status: 503, match: { client_id: OTHER_US.client_id } });
    const mine = await http('GET', `${sim.admin}/faults?client_id=${DEMO_US.client_id}`);
    expect(mine.body.map((f: { id: string }) => f.id)).toEqual([a.id]);
    expect((await http('DELETE', `${sim.admin}/faults?client_id=${OTHER_US.client_id}`)).status).toBe(204);
    expect((await http('GET', `${sim.admin}/faults`)).body.map((f: { id: string }) => f.id)).toEqual([a.id]);
    expect((await http('DELETE', `${sim.admin}/faults/${a.id}`)).status).toBe(204);
    const again = await http('DELETE', `${sim.admin}/faults/${a.id}`);
    expect(again.status).toBe(404);
    expect(again.body.detail).toBe('FAULT_NOT_FOUND');
  });
});
