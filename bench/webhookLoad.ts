import { spawn } from 'node:child_process';
import {
  type Benchmark,
  bindingRequest,
  drive,
  fmt,
  median,
  type SpawnedSim,
  spawnSimulator,
} from './lib.js';
import { tempFileStore } from './storeFleet.js';

const APP = 'demo-client-us';
const TARGET = 1.25;

/** A receiver in its own process that answers every delivery after `delayMs` with a 503. */
function slowReceiver(
  delayMs: number,
): Promise<{ url: string; hits: () => Promise<number>; stop: () => void }> {
  const code = `let n=0;const s=require('http').createServer((q,r)=>{if(q.url==='/count'){r.end(String(n));return}
q.resume();q.on('end',()=>{n++;setTimeout(()=>{r.writeHead(503);r.end('busy')},${delayMs})})});
s.listen(0,'127.0.0.1',()=>console.log('listening on http://127.0.0.1:'+s.address().port))`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve) => {
    child.stdout.once('data', (d: Buffer) => {
      const base = /listening on (\S+)/.exec(d.toString())![1]!;
      resolve({
        url: `${base}/hook`,
        hits: async () => Number(await (await fetch(`${base}/count`)).text()),
        stop: () => child.kill(),
      });
    });
  });
}

const post = async (url: string, body: unknown) => {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`POST ${url}: ${r.status} ${await r.text()}`);
  return r.json() as Promise<{ id: string }>;
};

/**
 * The demo app's endpoints all point at a slow, failing receiver and hold a backlog of
 * events; the app clock is moved on between rounds so retries keep coming due. Deliveries
 * run off the request path, so the app's own partner API requests must not notice.
 */
async function loadDeliveries(sim: SpawnedSim, receiver: string, endpoints: number, events: number) {
  const admin = `${sim.url}/__admin`;
  for (let e = 0; e < endpoints; e++) {
    const ep = await post(`${admin}/apps/${APP}/webhooks`, { url: receiver });
    for (let i = 0; i < events; i++) await post(`${admin}/apps/${APP}/webhooks/${ep.id}/test`, {});
  }
  return () => post(`${admin}/clock`, { client_id: APP, advance_ms: 30_000 });
}

/**
 * Issue 24: partner API latency of an app while its webhook deliveries are being retried to a
 * slow receiver (each POST answered 503 after 1.5 s), against a simulator delivering nothing;
 * same store kind, alternating rounds (ABBA), medians compared.
 */
export const webhookLoadBenchmark: Benchmark = {
  name: 'webhook deliveries',
  target: `partner API latency while deliveries retry to a slow receiver <= ${TARGET}x of none`,
  async run({ quick, flags }) {
    const n = Number(flags.requests ?? 50);
    const rounds = Number(flags.rounds ?? (quick ? 60 : 200));
    const endpoints = Number(flags.endpoints ?? (quick ? 8 : 16));
    const events = Number(flags.events ?? (quick ? 20 : 50));
    const receiver = await slowReceiver(1500);
    const stores = [await tempFileStore(), await tempFileStore()];
    const sims: SpawnedSim[] = [];
    try {
      for (const s of stores) {
        if (s.store.kind !== 'file') throw new Error('file stores expected');
        sims.push(await spawnSimulator(['--data-dir', s.store.dataDir, '--webhook-timeout', '5s']));
      }
      const [none, busy] = sims as [SpawnedSim, SpawnedSim];
      const nextRetries = await loadDeliveries(busy, receiver.url, endpoints, events);
      const ra = await bindingRequest(none.url);
      const rb = await bindingRequest(busy.url);
      await drive(ra.url, ra.headers, n);
      await drive(rb.url, rb.headers, n);
      const hits0 = await receiver.hits();
      // Short chunks alternating (ABBA): on a shared machine, load swings hit both alike.
      const base: number[] = [];
      const loaded: number[] = [];
      for (let r = 0; r < rounds; r++) {
        if (r % 8 === 0) await nextRetries();
        if (r % 2 === 0) base.push(await drive(ra.url, ra.headers, n));
        loaded.push(await drive(rb.url, rb.headers, n));
        if (r % 2 === 1) base.push(await drive(ra.url, ra.headers, n));
      }
      const hits = (await receiver.hits()) - hits0;
      const ratio = median(loaded) / median(base);
      const ok = ratio <= TARGET && hits > 0;
      return {
        ok,
        lines: [
          `${endpoints} endpoints x ${events} events of the requesting app, receiver answers 503 after 1.5 s`,
          `  no deliveries:             ${fmt(median(base))} us/req (median of ${rounds} chunks of ${n} sequential binding queries)`,
          `  deliveries being retried:  ${fmt(median(loaded))} us/req (${hits} delivery POSTs during the rounds)`,
          `  ratio: ${fmt(ratio, 2)}x (target <= ${TARGET})${ok ? '' : hits > 0 ? ' MISSED' : ' NO DELIVERIES MADE'}`,
        ],
      };
    } finally {
      await Promise.all(sims.map((s) => s.stop()));
      receiver.stop();
      await Promise.all(stores.map((s) => s.drop()));
    }
  },
};
