import {
  type Benchmark,
  bindingRequest,
  drive,
  fmt,
  median,
  type SpawnedSim,
  spawnSimulator,
} from './lib.js';

/** `rules` of one kind added through the control API, 8 at a time. */
async function addRules(url: string, rules: number, rule: (i: number) => object): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < rules; i = next++) {
      const r = await fetch(`${url}/__admin/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(rule(i)),
      });
      if (r.status !== 201) throw new Error(`adding rule ${i}: ${r.status} ${await r.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** Global rules (every app) on the binding query that never fire for it. */
const KINDS: Array<{ name: string; rule: (i: number) => object }> = [
  {
    name: 'path_contains never matching',
    rule: (i) => ({ operation: 'getDeviceBinding', status: 503, match: { path_contains: `/nowhere/${i}/` } }),
  },
  { name: 'probability 0', rule: () => ({ operation: 'getDeviceBinding', status: 503, probability: 0 }) },
];

/**
 * Issue 20 item 4: global fault rules that cannot fire for a request must not slow it. The
 * binding GET on an instance without rules and on instances holding 10,000 global rules of one
 * kind each, sequential requests in alternating rounds; req/s medians compared.
 */
export const globalFaultsBenchmark: Benchmark = {
  name: 'global fault rules',
  target: 'binding GET req/s with 10,000 global rules that never fire for it: >= 0.8x no rules',
  async run({ quick, flags }) {
    const rules = Number(flags.rules ?? 10_000);
    const n = Number(flags.requests ?? (quick ? 500 : 2000));
    const rounds = quick ? 3 : 5;
    const sims: SpawnedSim[] = [];
    try {
      const base = await spawnSimulator();
      sims.push(base);
      const loaded: Array<{ name: string; sim: SpawnedSim; addS: number }> = [];
      for (const k of KINDS) {
        const sim = await spawnSimulator();
        sims.push(sim);
        const t0 = performance.now();
        await addRules(sim.url, rules, k.rule);
        loaded.push({ name: k.name, sim, addS: (performance.now() - t0) / 1000 });
      }
      const reqs = await Promise.all(sims.map((s) => bindingRequest(s.url)));
      for (const r of reqs) {
        const first = await fetch(r.url, { headers: r.headers });
        if (first.status !== 200) throw new Error(`binding GET answered ${first.status}`);
        await drive(r.url, r.headers, n); // warm-up
      }
      const perS = sims.map(() => [] as number[]);
      for (let round = 0; round < rounds; round++) {
        // Alternating order, so neither always runs right after the other.
        const order = round % 2 === 0 ? sims.map((_, i) => i) : sims.map((_, i) => sims.length - 1 - i);
        for (const i of order) perS[i]!.push(1e6 / (await drive(reqs[i]!.url, reqs[i]!.headers, n)));
      }
      const none = median(perS[0]!);
      const lines = [
        `no rules:                          ${fmt(none, 0)} req/s (median of ${rounds} x ${n} sequential)`,
      ];
      let ok = true;
      for (const [j, l] of loaded.entries()) {
        const rate = median(perS[j + 1]!);
        const ratio = rate / none;
        ok &&= ratio >= 0.8;
        lines.push(
          `${rules} global rules, ${l.name}: ${fmt(rate, 0)} req/s, ratio ${fmt(ratio, 2)}x (target >= 0.8)${ratio >= 0.8 ? '' : ' MISSED'} (added in ${fmt(l.addS)} s)`,
        );
      }
      return { ok, lines };
    } finally {
      await Promise.all(sims.map((s) => s.stop()));
    }
  },
};
