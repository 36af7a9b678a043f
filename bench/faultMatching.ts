import { type Benchmark, drive, fmt, median, type SpawnedSim, spawnSimulator } from './lib.js';

const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`POST ${url}: ${r.status} ${await r.text()}`);
  return r.json() as Promise<{ access_token: string }>;
};

/** A user token of the demo app and the binding URL it queries. */
async function bindingRequest(sim: SpawnedSim): Promise<{ url: string; headers: Record<string, string> }> {
  const api = `${sim.url}/developer/api`;
  const basic = Buffer.from('demo-client-us:demo-secret-us-0000').toString('base64');
  const partner = await (
    await fetch(`${api}/oauth/partner/access-token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}` },
    })
  ).json();
  const user = await post(
    `${api}/open/partner/users/access-token`,
    { user_id: 'demo-user-0001' },
    { authorization: `Bearer ${(partner as { access_token: string }).access_token}` },
  );
  return {
    url: `${api}/open/partner/sdk/binding?type=notepro&sn=8810B30227290003`,
    headers: { authorization: `Bearer ${user.access_token}` },
  };
}

/** `count` rules on the binding query, every one scoped to another app: none can match. */
async function addForeignRules(sim: SpawnedSim, count: number): Promise<void> {
  const rule = { operation: 'getDeviceBinding', status: 503, match: { client_id: 'other-partner-us' } };
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, () => post(`${sim.url}/__admin/faults`, rule)),
    );
  }
}

/**
 * Fault rules of one app cost nothing to the requests of another: the binding query of the
 * demo app on a simulator holding 10,000 rules scoped to another app, against the same query
 * on a simulator with no rule at all. Two child processes, measured in alternating rounds so
 * drift of a shared machine hits both alike; the medians are compared.
 */
export const faultMatchingBenchmark: Benchmark = {
  name: 'fault matching',
  target: 'binding GET with 10,000 rules of another app: < 1.2x the wall time with no rules',
  async run({ quick, flags }) {
    const rules = Number(flags.rules ?? 10_000);
    const n = quick ? 500 : 2000;
    const rounds = quick ? 3 : 5;
    const [plain, loaded] = [await spawnSimulator(), await spawnSimulator()];
    try {
      await addForeignRules(loaded, rules);
      const a = await bindingRequest(plain);
      const b = await bindingRequest(loaded);
      const blocked = await fetch(b.url, { headers: b.headers });
      if (blocked.status !== 200) throw new Error(`binding with foreign rules answered ${blocked.status}`);
      await drive(a.url, a.headers, n);
      await drive(b.url, b.headers, n);
      const base: number[] = [];
      const withRules: number[] = [];
      for (let r = 0; r < rounds; r++) {
        // ABBA order: neither simulator always runs right after the other.
        if (r % 2 === 0) base.push(await drive(a.url, a.headers, n));
        withRules.push(await drive(b.url, b.headers, n));
        if (r % 2 === 1) base.push(await drive(a.url, a.headers, n));
      }
      const ratio = median(withRules) / median(base);
      return {
        ok: ratio < 1.2,
        lines: [
          `no rules:                         ${fmt(median(base))} us/req (median of ${rounds} x ${n})`,
          `${rules} rules of another app:   ${fmt(median(withRules))} us/req`,
          `ratio: ${fmt(ratio, 2)}x`,
        ],
      };
    } finally {
      await plain.stop();
      await loaded.stop();
    }
  },
};
