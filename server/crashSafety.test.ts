import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Acked, client, complete, cutPut, md5, rehost } from './testing/crashWorkload.js';
import { DEMO_US, http, userToken } from './testing/http.js';
import { scaledBudget } from './testing/scaledBudget.js';
import { type ServeChild, spawnServe } from './testing/serveChild.js';
import { sourceEntry } from './testing/sourceBuild.js';
import { spawnTracked } from './testing/spawnTracked.js';
import { useTestServers } from './testing/useTestServers.js';

/**
 * Crash safety, end to end: the simulator as a child process on a data folder, mixed
 * writes from several clients, SIGKILL at a random moment, restart, and then every write the
 * simulator had acknowledged must be there, and no blob may be left that no record names.
 * `npm test` runs CRASH_CYCLES=10 (default); `npm run soak` sets more.
 */
const CYCLES = Number(process.env.CRASH_CYCLES ?? 10);
const WORKERS = 4;

const servers = useTestServers();
let entry: string;

beforeAll(async () => {
  entry = await sourceEntry('cli');
}, 120_000); // the first transpile of the sources, while other workers run

function launch(dir: string, extra: string[] = []): Promise<ServeChild> {
  return spawnServe(entry, [
    '--port',
    '0',
    '--data-dir',
    dir,
    // Info: its storage recovery says when it removed what a kill left (cleanedUp waits on it).
    '--log-level',
    'info',
    '--chunk-size',
    '4',
    // The clean-up of what a kill left starts one housekeeping tick after listening.
    '--housekeeping-tick',
    '100ms',
    ...extra,
  ]);
}

/**
 * What a crash may leave on disk that the restarted simulator must clean up: blob files that
 * no part or file record names, sessions next to the file they became (a completion cut
 * after its commit point), and record writes' temp files.
 */
async function leftovers(dir: string): Promise<{ orphans: string[]; ghosts: string[]; temps: string[] }> {
  // Read synchronously: nothing else runs meanwhile, and a promise per directory and file made
  // each look cost ~50 ms of CPU by the last cycles.
  const list = (path: string): string[] => {
    try {
      return readdirSync(path);
    } catch {
      return [];
    }
  };
  const records = (col: string): unknown[] => {
    const out: unknown[] = [];
    const root = join(dir, 'state', col);
    for (const shard of list(root)) {
      for (const f of list(join(root, shard))) {
        if (!f.endsWith('.json')) continue;
        let text: string;
        try {
          text = readFileSync(join(root, shard, f), 'utf8');
        } catch {
          continue; // removed meanwhile
        }
        out.push(JSON.parse(text));
      }
    }
    return out;
  };
  const used = new Set<string>();
  for (const p of records('uploadParts') as { blob: string }[]) used.add(p.blob);
  const files = records('files') as {
    file_id: string;
    upload_id: string;
    parts: { blob: string }[];
  }[];
  for (const f of files) for (const p of f.parts) used.add(p.blob);
  const blobRoot = join(dir, 'blobs');
  const blobs = (existsSync(blobRoot) ? readdirSync(blobRoot, { recursive: true, withFileTypes: true }) : [])
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(blobRoot.length + 1));
  const became = new Set(files.map((f) => `${f.file_id}/${f.upload_id}`));
  const ghosts = (records('uploads') as { file_id: string; upload_id: string }[])
    .filter((u) => became.has(`${u.file_id}/${u.upload_id}`))
    .map((u) => u.upload_id);
  const temps = readdirSync(join(dir, 'state'), { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.tmp'),
  );
  return { orphans: blobs.filter((b) => !used.has(b)), ghosts, temps };
}

/**
 * The restarted simulator's clean-up begins one housekeeping tick after it listens: wait (a
 * while) until nothing is left. Each look parses every record file (~70 ms of CPU by the last
 * cycles; every 100 ms it was 1.8 s a run), so after a first look the folder is read when the
 * simulator reports what its recovery removed, or every 500 ms until then (its report may
 * come before the look), and every 100 ms only after the report.
 */
async function cleanedUp(dir: string, child: ServeChild): Promise<void> {
  let reported = false;
  const report = child
    .printed(/removed storage left behind by an interrupted run/, scaledBudget(20_000))
    .then(() => {
      reported = true;
    });
  const until = performance.now() + scaledBudget(20_000);
  // A kill that left nothing needs no wait at all.
  let left = await leftovers(dir);
  while (left.orphans.length + left.ghosts.length + left.temps.length > 0 && performance.now() < until) {
    const pause = new Promise((r) => setTimeout(r, reported ? 100 : 500));
    await (reported ? pause : Promise.race([pause, report]));
    left = await leftovers(dir);
  }
  expect(left).toEqual({ orphans: [], ghosts: [], temps: [] });
}

/** After a restart: everything acknowledged is there, and nothing the crash left behind. */
async function verify(child: ServeChild, dir: string, acked: Acked): Promise<void> {
  const base = child.url;
  await cleanedUp(dir, child);
  const apps = new Map(
    ((await http('GET', `${base}/__admin/apps`)).body as { client_id: string; secret_key: string }[]).map(
      (a) => [a.client_id, a.secret_key],
    ),
  );
  for (const [id, secret] of acked.apps) expect(apps.get(id), `app ${id}`).toBe(secret);
  const devices = new Map(
    ((await http('GET', `${base}/__admin/devices`)).body as { sn: string; bind_history: string[] }[]).map(
      (d) => [d.sn, d.bind_history.length],
    ),
  );
  for (const [sn, binds] of acked.binds)
    expect(devices.get(sn) ?? 0, `binds of ${sn}`).toBeGreaterThanOrEqual(binds);
  // Every write acknowledged in all cycles so far, read back at once rather than one by one.
  await Promise.all([
    ...[...acked.files].map(async ([id, f]) => {
      const r = await fetch(rehost(f.url, base));
      expect(r.status, `file ${id}`).toBe(200);
      expect(md5(Buffer.from(await r.arrayBuffer())), `bytes of ${id}`).toBe(f.md5);
    }),
    ...[...acked.transcriptions].map(async (id) => {
      const r = await http('GET', `${base}/developer/api/open/partner/ai/transcriptions/${id}`, {
        headers: { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.api_key },
      });
      expect(r.status, `transcription ${id}`).toBe(200);
    }),
  ]);
  // Sessions cut short: the acknowledged parts are there (completion checks each ETag), once
  // the missing ones are sent again.
  const { user } = await userToken(`${base}/developer/api`, DEMO_US);
  for (const [uploadId, s] of [...acked.sessions]) {
    for (const [i, url] of s.urls.entries()) {
      if (s.parts.has(i + 1)) continue;
      const r = await fetch(rehost(url, base), { method: 'PUT', body: s.bytes[i] });
      expect(r.status, `PUT again ${uploadId}/${i + 1}`).toBe(200);
      s.parts.set(i + 1, r.headers.get('etag')!);
    }
    const cutWhileCompleting = s.completing === true;
    const problems: string[] = [];
    await complete(`${base}/developer/api`, user, uploadId, acked, problems);
    // A completion the kill cut after its commit point left a file, not a session.
    if (cutWhileCompleting && problems.length === 1 && problems[0]!.includes('NoSuchUpload')) {
      acked.sessions.delete(uploadId);
      continue;
    }
    expect(problems, `complete ${uploadId} after restart`).toEqual([]);
  }
}

describe('crash safety (SIGKILL)', () => {
  it(
    `keeps every acknowledged write and leaves no orphan blob, ghost session or temp file over ${CYCLES} kills`,
    async () => {
      const dir = await servers.tempDir();
      const acked: Acked = {
        apps: new Map(),
        binds: new Map(),
        sessions: new Map(),
        files: new Map(),
        transcriptions: new Set(),
      };
      let child = await launch(dir);
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const { user } = await userToken(`${child.url}/developer/api`, DEMO_US);
        const unexpected: string[] = [];
        const progress = { acks: 0 };
        const clients = Array.from({ length: WORKERS }, (_, w) =>
          client(child.url, user, acked, `${cycle}W${w}`, unexpected, progress).catch(() => {}),
        );
        let sending = false;
        const cut = cutPut(child.url, user, acked, () => {
          sending = true;
        }).catch(() => {});
        // Kill at a random moment once writes are flowing (a loaded machine is slow to start).
        for (let waited = 0; (progress.acks < 4 || !sending) && waited < 10_000; waited += 10) {
          await new Promise((r) => setTimeout(r, 10));
        }
        await new Promise((r) => setTimeout(r, Math.random() * 150));
        child.proc.kill('SIGKILL');
        await child.exited;
        await Promise.all([...clients, cut]);
        // Only what the kill cut may fail; nothing answered before it may be an error.
        expect(unexpected).toEqual([]);
        child = await launch(dir);
        await verify(child, dir, acked);
      }
      expect(acked.files.size + acked.apps.size + acked.binds.size).toBeGreaterThan(CYCLES);
      child.proc.kill('SIGTERM');
      expect(await child.exited).toBe(0);
    },
    // ~3 s a cycle on a quiet run; twice that when npm test's heaviest files run beside it,
    // and more on a host busy with other work (scaledBudget.ts).
    scaledBudget(15_000 + CYCLES * 7_000),
  );

  it('refuses a second process on the same data folder, naming the owner', async () => {
    const dir = await servers.tempDir();
    const owner = await launch(dir);
    try {
      const second = spawnTracked(process.execPath, [entry, 'serve', '--port', '0', '--data-dir', dir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      second.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
      });
      const code = await new Promise<number | null>((r) => second.once('exit', r));
      expect(code).toBe(1);
      expect(err).toContain(`in use by another partner-sim (pid ${owner.proc.pid})`);
      expect(err).not.toMatch(/\n\s+at /);
    } finally {
      owner.proc.kill('SIGKILL');
      await owner.exited;
    }
    // Killed without releasing the lock: the next start takes it over.
    const next = await launch(dir);
    next.proc.kill('SIGTERM');
    expect(await next.exited).toBe(0);
  });

  it('keeps serving when its stdout reader goes away (EPIPE), and still stops cleanly', async () => {
    const child = await launch(await servers.tempDir(), ['--log-level', 'info']);
    child.proc.stdout!.destroy();
    for (let i = 0; i < 3; i++) {
      const r = await http('POST', `${child.url}/developer/api/oauth/partner/access-token`, { form: {} });
      expect(r.status).toBe(401);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  });
});
