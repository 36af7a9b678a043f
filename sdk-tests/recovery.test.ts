import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BindingResponse,
  deviceTypeOf,
  fetchBinding,
  planRecovery,
  runRecovery,
} from '../server/client/recovery.js';
import { TokenService } from '../server/domain/tokens.js';
import { bearer, DEMO_US, http, OTHER_US, userToken } from '../server/testing/http.js';
import { startTestServer, type TestServer } from '../server/testing/testServer.js';

// A partner app's device-lock recovery, run against the simulator: fixtures and devices
// arranged through the control API, queried and bound with real user tokens.

let sim: TestServer;
let demo: string;
const demoSub = TokenService.userSub(DEMO_US.client_id, 'demo-user-0001');
const otherSub = TokenService.userSub(OTHER_US.client_id, 'other-user-0001');
let serial = 0;
beforeAll(async () => {
  sim = await startTestServer();
  demo = (await userToken(sim.api, DEMO_US, 'demo-user-0001')).user;
});
afterAll(() => sim.stop());

const fresh = (prefix = '881') => `${prefix}0RCVR${String(++serial).padStart(8, '0')}`;
const sdk = async (op: 'sn-sign' | 'bind' | 'unbind', token: string, sn: string) => {
  const r = await http('POST', `${sim.api}/open/partner/sdk/${op}`, {
    headers: bearer(token),
    json: { type: deviceTypeOf(sn), sn },
  });
  expect(r.status, `${op} ${sn}: ${r.text}`).toBe(200);
};
const ids = (n: number) =>
  Array.from({ length: n }, (_, i) => `client_user_00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

describe('planRecovery', () => {
  it('refuses a bound device: the owner must unbind first', () => {
    expect(planRecovery({ is_bind: true, bind_history: ids(3) })).toEqual({
      action: 'refuse',
      message: 'owner must unbind first',
    });
  });

  it('explains an empty history for unbound and never-bound devices', () => {
    for (const is_bind of [false, null]) {
      expect(planRecovery({ is_bind, bind_history: [] })).toEqual({
        action: 'none',
        message: 'no bind history',
      });
    }
  });

  it('de-duplicates newest first and bounds the list (default 10, configurable)', () => {
    const [a, b, c] = ids(3) as [string, string, string];
    expect(planRecovery({ is_bind: false, bind_history: [b, a, b, c, a] })).toEqual({
      action: 'try',
      candidates: [b, a, c],
      omitted: 0,
    });
    const many: BindingResponse = { is_bind: null, bind_history: [...ids(14), ...ids(14)] };
    expect(planRecovery(many)).toMatchObject({ candidates: ids(10), omitted: 4 });
    expect(planRecovery(many, { maxCandidates: 3 })).toMatchObject({ candidates: ids(3), omitted: 11 });
    expect(() => planRecovery(many, { maxCandidates: 0 })).toThrow(RangeError);
  });
});

describe('recovery over the fixture registry', () => {
  const fixtures = JSON.parse(readFileSync(new URL('../fixtures/devices.json', import.meta.url), 'utf8')) as {
    sn: string;
  }[];
  const x = (n: string) => `client_user_${n}`;
  // What a partner app concludes for each fixture, written out by hand from the docs/devices.md table.
  const expected: Record<string, { action: string; candidates?: string[]; omitted?: number }> = {
    '8810B30227290001': { action: 'none' },
    '8820B30227290002': { action: 'none' },
    '8810B30227290003': {
      action: 'try',
      candidates: [
        x('2992833c-e547-4f8c-9a72-f3d6a9bb9722'),
        demoSub,
        otherSub,
        x('fd5349ed-6e48-4b48-87ac-39f7769c6782'),
      ],
      omitted: 0,
    },
    '8810B30227290004': { action: 'refuse' },
    '8820B30227290005': { action: 'refuse' },
    '8820B30227290006': { action: 'refuse' },
    '8810B30227290007': { action: 'try', omitted: 3 },
    '8820B30227290008': {
      action: 'try',
      candidates: [x('267a0980-2c0e-449b-b5dd-743f63dbba05')],
      omitted: 0,
    },
    '8810B30227290009': { action: 'none' },
  };

  it('has an expectation for every fixture', () => {
    expect(fixtures.map((f) => f.sn).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('plans %s', async (sn, want) => {
    const binding = await fetchBinding(sim.api, demo, sn);
    expect(binding).not.toBeNull();
    const plan = planRecovery(binding!);
    expect(plan).toMatchObject(want);
    if (plan.action === 'try') expect(plan.candidates.length).toBeLessThanOrEqual(10);
  });

  it('de-duplicates the 50+ duplicate history to its distinct ids, newest first', async () => {
    const binding = (await fetchBinding(sim.api, demo, '8810B30227290007'))!;
    expect(binding.bind_history.length).toBeGreaterThan(50);
    const plan = planRecovery(binding, { maxCandidates: 100 });
    expect(plan).toMatchObject({ action: 'try', omitted: 0 });
    if (plan.action !== 'try') return;
    expect(plan.candidates).toEqual([...new Set(binding.bind_history)]);
    expect(plan.candidates[0]).toBe(binding.bind_history[0]);
  });

  it('reports the account that unlocks, or that none matched, or that there is no history', async () => {
    const plan = planRecovery((await fetchBinding(sim.api, demo, '8810B30227290003'))!);
    expect(await runRecovery(plan, (id) => id === demoSub)).toEqual({ ok: true, account: demoSub, tried: 2 });
    expect(await runRecovery(plan, () => false)).toEqual({
      ok: false,
      message: 'none of the previous accounts matched',
      tried: 4,
    });
    const empty = planRecovery((await fetchBinding(sim.api, demo, '8810B30227290009'))!);
    expect(await runRecovery(empty, () => true)).toEqual({ ok: false, message: 'no bind history', tried: 0 });
  });
});

describe('recovery over devices arranged through the API', () => {
  it('device bound by app A, then queried by app B', async () => {
    const sn = fresh('882');
    const b = (await userToken(sim.api, OTHER_US, 'other-user-0001')).user;
    await sdk('sn-sign', demo, sn);
    await sdk('bind', demo, sn);
    const seenByB = (await fetchBinding(sim.api, b, sn))!;
    expect(seenByB).toEqual({ is_bind: true, bind_history: [demoSub] });
    expect(planRecovery(seenByB).action).toBe('refuse');
    await sdk('unbind', demo, sn);
    expect(planRecovery((await fetchBinding(sim.api, b, sn))!)).toEqual({
      action: 'try',
      candidates: [demoSub],
      omitted: 0,
    });
  });

  it('bind → unbind → bind by another user (of another app)', async () => {
    const sn = fresh();
    const other = (await userToken(sim.api, OTHER_US, 'other-user-0001')).user;
    await sdk('sn-sign', demo, sn);
    await sdk('bind', demo, sn);
    await sdk('bind', demo, sn);
    await sdk('unbind', demo, sn);
    await sdk('bind', other, sn);
    expect(planRecovery((await fetchBinding(sim.api, demo, sn))!).action).toBe('refuse');
    await sdk('unbind', other, sn);
    const binding = (await fetchBinding(sim.api, demo, sn))!;
    expect(binding).toEqual({ is_bind: false, bind_history: [otherSub, demoSub, demoSub] });
    expect(planRecovery(binding)).toEqual({ action: 'try', candidates: [otherSub, demoSub], omitted: 0 });
  });

  it('a 50+ duplicate history put through the control API', async () => {
    const sn = fresh('882');
    const [a, b, c] = ids(3) as [string, string, string];
    const history = Array.from({ length: 120 }, (_, i) => (i % 10 === 3 ? b : i === 119 ? c : a));
    expect(
      (await http('PUT', `${sim.admin}/devices/${sn}`, { json: { is_bind: false, bind_history: history } }))
        .status,
    ).toBe(200);
    const binding = (await fetchBinding(sim.api, demo, sn))!;
    expect(binding.bind_history).toHaveLength(120);
    expect(planRecovery(binding)).toEqual({ action: 'try', candidates: [a, b, c], omitted: 0 });
    expect(planRecovery(binding, { maxCandidates: 2 })).toEqual({
      action: 'try',
      candidates: [a, b],
      omitted: 1,
    });
  });

  it('an unknown serial is the bare 404, and after signing there is no bind history', async () => {
    const sn = fresh();
    expect(await fetchBinding(sim.api, demo, sn)).toBeNull();
    await sdk('sn-sign', demo, sn);
    expect(planRecovery((await fetchBinding(sim.api, demo, sn))!)).toEqual({
      action: 'none',
      message: 'no bind history',
    });
  });
});
