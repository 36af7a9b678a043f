import { startSimulator } from './dist/server/simulator.js';
import { testConfig } from './dist/server/config.js';
import { SoakTraffic, SOAK_APPS } from './dist/bench/soakTraffic.js';
import { mkdtempSync } from 'node:fs';
const dir = mkdtempSync('/tmp/hl/diag-');
const sim = await startSimulator({ ...testConfig({ inMemory: false, dataDir: dir }), logLevel: 'silent', validateResponses: false });
const api = `${sim.url}/developer/api`;
const t = new SoakTraffic(api, 100);
let running = true; let n = 0; let epoch = 0;
const inflight = new Map(SOAK_APPS.map(a => [a.client_id, 0]));
const reset = (app) => fetch(`${sim.url}/__admin/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_id: app.client_id }) });
async function drive(ms) {
  running = true;
  const ws = Array.from({ length: 100 }, async () => { while (running) { const app = SOAK_APPS[epoch % 2]; inflight.set(app.client_id, inflight.get(app.client_id) + 1); await t.flow(n++, app); inflight.set(app.client_id, inflight.get(app.client_id) - 1); } });
  const r = (async () => { while (running) { await new Promise(r => setTimeout(r, 2000)); const prev = SOAK_APPS[epoch++ % 2]; while (inflight.get(prev.client_id) > 0) await new Promise(r => setTimeout(r, 5)); await reset(prev); } })();
  await new Promise(r => setTimeout(r, ms)); running = false; await Promise.all([...ws, r]);
  for (const a of SOAK_APPS) await reset(a);
  global.gc(); global.gc();
  const s = sim.services;
  const sizes = {};
  for (const name of ['uploads','uploadParts','files','transcriptions','refreshTokens','faults','devices','apps']) sizes[name] = s.deps.store.collection(name).size;
  console.log(`after ${n} flows heap ${(process.memoryUsage().heapUsed/2**20).toFixed(1)} MiB rss ${(process.memoryUsage().rss/2**20).toFixed(1)}`, JSON.stringify(sizes), 'errors', t.stats.errors, t.stats.samples[0]);
}
await drive(5000);
await drive(10000);
await drive(10000);
const v8 = await import('node:v8');
v8.writeHeapSnapshot('/tmp/hl/end.heapsnapshot');
t.close(); await sim.stop(); process.exit(0);
