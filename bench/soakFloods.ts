import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import net from 'node:net';

/**
 * Issue 30's floods, for the soak (bench/soak.ts): sockets that never finish a TLS handshake
 * or never send a byte, against an `--https` port; and requests that claim many existing apps'
 * ids with a wrong key (each journaled as unverified). Each reports the share of health
 * checks answered while it runs; the soak reads RSS around it.
 */

interface FloodResult {
  /** Health checks answered 200 within their deadline, of those sent. */
  answered: number;
  checks: number;
  /** What the flood sent: sockets opened, or requests answered 401. */
  sent: number;
  unexpected: number;
}

const HEALTH_TIMEOUT_MS = 3000;
/** The first bytes of a TLS ClientHello: a handshake record that promises more than it sends. */
const HALF_HELLO = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** One GET of the health check over http(s); true when answered 200 in time. */
function healthy(url: string, ca?: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const req = (url.startsWith('https:') ? httpsRequest : httpRequest)(
      `${url}/__admin/health`,
      { agent: false, timeout: HEALTH_TIMEOUT_MS, ...(ca ? { ca } : {}) },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** Health checks every `everyMs` until `done` settles, alternating the given base URLs. */
async function checkWhile(done: Promise<unknown>, urls: string[], everyMs: number, ca?: Buffer) {
  let over = false;
  void done.finally(() => {
    over = true;
  });
  let checks = 0;
  let answered = 0;
  while (!over || checks < urls.length) {
    if (await healthy(urls[checks % urls.length]!, ca)) answered++;
    checks++;
    if (!over) await sleep(everyMs);
  }
  return { checks, answered };
}

/**
 * `sockets` connections to `port` that send nothing (every other one half a ClientHello), each
 * replaced as soon as the simulator closes it, for `seconds`; health checks over TLS and plain
 * HTTP meanwhile. Bounded: at most four times `sockets` are ever opened.
 */
async function tlsFlood(
  plainUrl: string,
  httpsUrl: string,
  caCertPath: string,
  sockets: number,
  seconds: number,
): Promise<FloodResult> {
  const port = Number(new URL(plainUrl).port);
  const held = new Set<net.Socket>();
  let opened = 0;
  let stop = false;
  const open = (): Promise<void> =>
    new Promise((resolve) => {
      if (stop || opened >= 4 * sockets) return resolve();
      const half = opened++ % 2 === 1;
      const s = net.connect(port, '127.0.0.1');
      held.add(s);
      s.on('error', () => {});
      s.once('connect', () => {
        if (half) s.write(HALF_HELLO);
        resolve();
      });
      s.once('close', () => {
        held.delete(s);
        resolve();
        // The attacker opens another as soon as one is evicted.
        if (!stop) void open();
      });
    });
  for (let i = 0; i < sockets; i += 100)
    await Promise.all(Array.from({ length: Math.min(100, sockets - i) }, open));
  const flood = sleep(seconds * 1000);
  const ca = readFileSync(caCertPath);
  const health = await checkWhile(flood, [httpsUrl, plainUrl], 250, ca);
  stop = true;
  for (const s of held) s.destroy();
  return { ...health, sent: opened, unexpected: 0 };
}

/**
 * `apps` new apps, then `perApp` requests claiming each app's id with a wrong key (a 6 KiB
 * header and a 2 KiB JSON body each, as much as a journal entry keeps), 16 at a time; health
 * checks meanwhile.
 */
async function forgedFlood(url: string, apps: number, perApp: number): Promise<FloodResult> {
  const ids: string[] = [];
  for (let i = 0; i < apps; i++) {
    const client_id = `forged-${i}-${Date.now()}`;
    const r = await fetch(`${url}/__admin/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id }),
    });
    if (r.status !== 201) throw new Error(`creating app ${client_id}: ${r.status}`);
    ids.push(client_id);
  }
  const body = Buffer.from(
    JSON.stringify(Object.fromEntries(Array.from({ length: 20 }, (_, k) => [`field_${k}`, 'v'.repeat(200)]))),
  );
  const target = new URL(`${url}/developer/api/open/partner/ai/transcriptions/`);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const result = { sent: 0, unexpected: 0 };
  const one = (clientId: string) =>
    new Promise<void>((resolve) => {
      const req = httpRequest(
        target,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': String(body.length),
            'x-client-id': clientId,
            'x-client-api-key': 'not-the-key',
            'x-pad': 'p'.repeat(6 * 1024),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 401) result.unexpected++;
            result.sent++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        result.unexpected++;
        resolve();
      });
      req.end(body);
    });
  let next = 0;
  const total = apps * perApp;
  const worker = async () => {
    while (next < total) await one(ids[next++ % apps]!);
  };
  try {
    const flood = Promise.all(Array.from({ length: 16 }, worker));
    const health = await checkWhile(flood, [url], 250);
    return { ...health, ...result };
  } finally {
    agent.destroy();
  }
}

export interface FloodOptions {
  /** Sockets of the TLS flood (0 skips it). */
  tlsSockets: number;
  /** How long the TLS flood is held while health checks run, seconds. */
  tlsSeconds: number;
  /** Apps and forged requests per app of the many-app flood (0 apps skips it). */
  forgedApps: number;
  forgedPerApp: number;
}

/** Health checks that must be answered during a flood. */
const MIN_ANSWERED = 0.95;
/**
 * What the forged flood may add to idle RSS: the unverified journal's 16 MiB bound, and the
 * heap V8 keeps after 44,000 requests (about 45 MiB measured with the bound at 100 entries).
 * Before the bound, the same flood added about 590 MiB. The TLS flood's RSS is printed, not
 * judged: memory of thousands of TLS sockets returns to the system lazily.
 */
const FORGED_RSS_LIMIT = 96 * 2 ** 20;

/**
 * Both floods against one `--https` simulator (default connection and journal options):
 * idle RSS (after a GC and `settleS` quiet seconds) before and after each, and the share of
 * health checks answered during it. Lines to print, and whether every target held.
 */
export async function runFloods(
  sim: { url: string; caCertPath: string },
  opts: FloodOptions,
  idleRss: () => Promise<number>,
): Promise<{ lines: string[]; ok: boolean }> {
  const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
  const lines: string[] = [];
  let ok = true;
  const judge = async (label: string, rssLimit: number | undefined, run: () => Promise<FloodResult>) => {
    const before = await idleRss();
    const r = await run();
    const after = await idleRss();
    const share = r.checks === 0 ? 0 : r.answered / r.checks;
    const pass =
      share >= MIN_ANSWERED && r.unexpected === 0 && (rssLimit === undefined || after - before <= rssLimit);
    ok &&= pass;
    lines.push(
      `${label}: ${r.sent} sent${r.unexpected ? `, ${r.unexpected} unexpected answers` : ''}; health checks answered ${r.answered}/${r.checks} (${(share * 100).toFixed(0)} %, target >= ${MIN_ANSWERED * 100} %)`,
      `  RSS before: ${mib(before)}, after: ${mib(after)} (${after >= before ? '+' : ''}${mib(after - before)}${rssLimit === undefined ? '' : `, target <= +${mib(rssLimit)}`})`,
    );
  };
  if (opts.tlsSockets > 0) {
    const httpsUrl = sim.url.replace(/^http:/, 'https:');
    await judge(
      `TLS flood (${opts.tlsSockets} silent or half-handshake sockets, ${opts.tlsSeconds} s)`,
      undefined,
      () => tlsFlood(sim.url, httpsUrl, sim.caCertPath, opts.tlsSockets, opts.tlsSeconds),
    );
  }
  if (opts.forgedApps > 0)
    await judge(
      `forged claims (${opts.forgedApps} apps x ${opts.forgedPerApp} wrong-key requests)`,
      FORGED_RSS_LIMIT,
      () => forgedFlood(sim.url, opts.forgedApps, opts.forgedPerApp),
    );
  return { lines, ok };
}
