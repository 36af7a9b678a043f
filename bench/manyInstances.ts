import { type Benchmark, BINDING_PATH, fmt, userToken } from './lib.js';
import { average, cpuMeter, describeRound, mixed, type Round, round } from './loadRounds.js';
import { benchDatabase, serverProcesses } from './postgres.js';
import { type BenchStore, type Fleet, startFleet, tempFileStore } from './storeFleet.js';

interface Setup {
  label: string;
  store: BenchStore;
  instances: number;
  /** The database's processes, when it runs here: its CPU is part of a request's cost. */
  dbPids?: () => number[];
}

/** Measured figures of one setup: binding GET rounds and the mixed workload. */
interface Figures {
  setup: Setup;
  binding: Round;
  mixedRps: number;
  /** CPU per request of the mixed workload, instances and PostgreSQL together, µs. */
  mixedCpuUs: number;
  errors: number;
  /** The first failures of the mixed workload, for the report. */
  samples: string[];
}

const ratio = (x: number, base: number) => `${fmt(x / base, 2)}x`;

/**
 * Issue 15 item 5: what a request costs on the shared PostgreSQL store, and that N instances
 * on one database do not serialise on a lock: the binding GET and the mixed workload on (a)
 * the embedded file store, (b) one instance on PostgreSQL, (c) three instances sharing it,
 * in alternating rounds of one run, with ratios to (a). No target: 2 cores cannot show scaling.
 */
export const manyInstancesBenchmark: Benchmark = {
  name: 'many instances',
  target: 'binding GET + mixed workload: file store vs 1 and 3 instances on PostgreSQL; no target',
  needsPg: true,
  async run(args) {
    const { quick, flags } = args;
    const durationMs = Number(flags['duration-ms'] ?? (quick ? 2000 : 5000));
    const rounds = quick ? 1 : 2;
    const connections = Number(flags.connections ?? 8);
    const file = await tempFileStore();
    const db1 = await benchDatabase(args);
    const db3 = 'skip' in db1 ? db1 : await benchDatabase(args);
    const setups: Setup[] = [{ label: '(a) file store, 1 instance:     ', store: file.store, instances: 1 }];
    if (!('skip' in db1) && !('skip' in db3))
      setups.push(
        {
          label: '(b) PostgreSQL, 1 instance:     ',
          store: { kind: 'postgres', url: db1.url },
          instances: 1,
          dbPids: await serverProcesses(db1.url),
        },
        {
          label: '(c) PostgreSQL, 3 instances:    ',
          store: { kind: 'postgres', url: db3.url },
          instances: 3,
          dbPids: await serverProcesses(db3.url),
        },
      );
    const fleets: Fleet[] = [];
    try {
      for (const s of setups) fleets.push(await startFleet(s.store, s.instances, { quiet: false }));
      const targets = await Promise.all(
        fleets.map(async (f) => {
          // A token from the first instance, used on all: the instances share the signing secret.
          const headers = { authorization: `Bearer ${await userToken(f.urls[0]!)}` };
          return f.sims.map((s) => ({ pid: s.child.pid!, req: { url: s.url + BINDING_PATH, headers } }));
        }),
      );
      const byRound: Round[][] = setups.map(() => []);
      for (let r = 0; r < rounds; r++)
        for (let i = 0; i < setups.length; i++)
          byRound[i]!.push(await round(targets[i]!, connections, durationMs, setups[i]!.dbPids));
      const figures: Figures[] = [];
      for (let i = 0; i < setups.length; i++) {
        const dbPids = setups[i]!.dbPids ?? (() => []);
        const cpu = cpuMeter(() => [...fleets[i]!.sims.map((s) => s.child.pid!), ...dbPids()]);
        const m = await mixed(fleets[i]!.urls, connections, durationMs);
        const mixedCpuUs = cpu() / Math.max(1, (m.rps * durationMs) / 1000);
        const binding = average(byRound[i]!);
        figures.push({
          setup: setups[i]!,
          binding,
          mixedRps: m.rps,
          mixedCpuUs,
          errors: binding.bad + m.errors,
          samples: m.samples,
        });
      }
      return report(figures, { connections, rounds, durationMs }, 'skip' in db1 ? db1.skip : undefined);
    } finally {
      await Promise.all(fleets.map((f) => f.stop()));
      await file.drop();
      if (!('skip' in db1)) await db1.drop();
      if (!('skip' in db3) && db3 !== db1) await db3.drop();
    }
  },
};

function report(
  figures: Figures[],
  o: { connections: number; rounds: number; durationMs: number },
  skipped: string | undefined,
): { ok: boolean; lines: string[] } {
  const [a, b, c] = figures as [Figures, Figures?, Figures?];
  const lines = [
    `${o.connections} connections, ${o.rounds} x ${o.durationMs / 1000} s rounds, setups alternating; with 3 instances`,
    `the load generator spreads its connections over the three instance URLs directly (no proxy: on 2 cores`,
    `a proxy process would take the CPU the instances are measured on). Server CPU is summed over instances;`,
    `PostgreSQL's (every process of the cluster, when it runs on this machine) is shown beside it.`,
    'binding GET:',
    `  ${describeRound(a.setup.label, a.binding)}`,
  ];
  for (const f of [b, c])
    if (f)
      lines.push(
        `  ${describeRound(f.setup.label, f.binding)}`,
        `      vs (a): ${ratio(f.binding.rps, a.binding.rps)} req/s, p99 ${ratio(f.binding.p99Us, a.binding.p99Us)}, CPU ${ratio(f.binding.cpuUs, a.binding.cpuUs)}`,
      );
  if (skipped) lines.push(`  (b), (c) PostgreSQL: skipped: ${skipped}`);
  if (b && c) {
    const scale = c.binding.rps / b.binding.rps;
    // Work done per second, 3 vs 1 instances: near or above 1, the three spend the CPU they get
    // (fewer requests because each costs more); well below 1, they sit waiting, e.g. on a lock.
    const busy =
      (scale * (c.binding.cpuUs + c.binding.otherCpuUs)) / (b.binding.cpuUs + b.binding.otherCpuUs);
    lines.push(
      `  3 instances / 1 instance: ${fmt(scale, 2)}x req/s, p99 ${ratio(c.binding.p99Us, b.binding.p99Us)}; ` +
        `CPU used per second (instances + PostgreSQL) ${fmt(busy, 2)}x`,
      busy < 0.6
        ? '  THE INSTANCES SERIALISE: they use far less CPU together than one alone, so they wait on something (a lock)'
        : '  (same 2 cores, so no scaling; CPU used per second near or above 1x: limited by CPU, not waiting on a lock)',
    );
  }
  lines.push('mixed workload (tokens, binding, presign + part PUT + complete, submit + get transcription):');
  for (const f of figures)
    lines.push(
      `  ${f.setup.label} ${fmt(f.mixedRps, 0)} req/s${f === a ? '' : `, ${ratio(f.mixedRps, a.mixedRps)} of (a)`}, ` +
        `CPU ${fmt(f.mixedCpuUs)} us/req (${f.setup.dbPids ? 'instances + PostgreSQL' : 'server'}), ${f.errors} errors`,
    );
  for (const f of figures) for (const s of f.samples.slice(0, 3)) lines.push(`  error: ${s}`);
  return { ok: figures.every((f) => f.errors === 0), lines };
}
