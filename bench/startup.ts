import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Benchmark,
  DEMO_BASIC,
  fmt,
  median,
  type SpawnedSim,
  spawnBareExpress,
  spawnSimulator,
} from './lib.js';

const TOKEN_PATH = '/developer/api/oauth/partner/access-token';

/** ms from spawn to the first authenticated 200: the listening line, then a token request. */
async function firstAnswer(start: () => Promise<SpawnedSim>): Promise<number> {
  const t0 = performance.now();
  const p = await start();
  try {
    const r = await fetch(p.url + TOKEN_PATH, {
      method: 'POST',
      headers: { authorization: `Basic ${DEMO_BASIC}` },
    });
    await r.text();
    if (r.status !== 200) throw new Error(`first request answered ${r.status}`);
    return performance.now() - t0;
  } finally {
    await p.stop();
  }
}

/** The same token exchange in bare Express 5: checks the Basic credentials, answers JSON. */
const BARE_TOKEN = `a.post('${TOKEN_PATH}',(q,r)=>q.headers.authorization==='Basic ${DEMO_BASIC}'
  ?r.json({access_token:'t',token_type:'Bearer',expires_in:7200}):r.status(401).json({}))`;

/**
 * Spawn of the built entry to the first authenticated 200 (a partner token exchange): the
 * simulator (fixtures loaded, in memory and with a file store) against a bare Express 5 app
 * answering the same request, spawned alternately in the same run; medians compared.
 */
export const startupBenchmark: Benchmark = {
  name: 'start-up',
  target: 'spawn to the first authenticated 200: <= 1.25x a bare Express 5 app',
  async run({ quick }) {
    const n = quick ? 3 : 7;
    const base: number[] = [];
    const mem: number[] = [];
    const disk: number[] = [];
    const dir = await mkdtemp(join(tmpdir(), 'partner-sim-startup-'));
    try {
      // The first start seeds the fixtures; the measured ones reopen what it wrote.
      await firstAnswer(() => spawnSimulator(['--data-dir', dir]));
      for (let i = 0; i < n; i++) {
        base.push(await firstAnswer(() => spawnBareExpress(BARE_TOKEN)));
        mem.push(await firstAnswer(() => spawnSimulator(['--in-memory'])));
        disk.push(await firstAnswer(() => spawnSimulator(['--data-dir', dir])));
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const baseMs = median(base);
    const memMs = median(mem);
    const diskMs = median(disk);
    return {
      ok: memMs <= 1.25 * baseMs && diskMs <= 1.25 * baseMs,
      lines: [
        `bare Express 5 (token route):   median ${fmt(baseMs)} ms over ${n} runs`,
        `simulator --in-memory:          median ${fmt(memMs)} ms (${fmt(memMs / baseMs, 2)}x, target <= 1.25x)`,
        `simulator --data-dir (reopen):  median ${fmt(diskMs)} ms (${fmt(diskMs / baseMs, 2)}x, target <= 1.25x)`,
      ],
    };
  },
};
