import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_US, http, userToken } from './testing/http.js';
import { sourceCliEntry } from './testing/sourceBuild.js';
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
  entry = await sourceCliEntry();
}, 60_000);

interface Child {
  proc: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

function launch(dir: string): Promise<Child> {
  const proc = spawn(
    process.execPath,
    [entry, 'serve', '--port', '0', '--data-dir', dir, '--log-level', 'silent', '--chunk-size', '4'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve, reject) => {
    void exited.then((code) => reject(new Error(`simulator exited (${code}) before listening: ${err}`)));
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ proc, url: m[1]!, exited });
    });
  });
}

/** What the simulator acknowledged (answered 2xx to), and so must still hold. */
interface Acked {
  apps: Map<string, string>;
  /** Per serial number: how many bind requests were acknowledged. */
  binds: Map<string, number>;
  /** Sessions and the parts of them acknowledged (part number → ETag). */
  sessions: Map<
    string,
    {
      fileId: string;
      parts: Map<number, string>;
      urls: string[];
      bytes: Buffer[];
      /** A completion was sent: the kill may have cut it after it took effect. */
      completing?: boolean;
    }
  >;
  files: Map<string, { url: string; md5: string }>;
  transcriptions: Set<string>;
}

const md5 = (b: Buffer): string => createHash('md5').update(b).digest('hex');
/** A URL the previous process handed out, asked of the new one (new port, same secrets). */
const rehost = (url: string, base: string): string => {
  const u = new URL(url);
  u.host = new URL(base).host;
  return u.toString();
};

/** Blob files on disk that no part or file record (read from disk) names. */
async function orphanBlobs(dir: string): Promise<string[]> {
  const records = async (col: string): Promise<unknown[]> => {
    const out: unknown[] = [];
    const root = join(dir, 'state', col);
    for (const shard of await readdir(root).catch(() => [])) {
      for (const f of await readdir(join(root, shard))) {
        if (f.endsWith('.json')) out.push(JSON.parse(await readFile(join(root, shard, f), 'utf8')));
      }
    }
    return out;
  };
  const used = new Set<string>();
  for (const p of (await records('uploadParts')) as { blob: string }[]) used.add(p.blob);
  for (const f of (await records('files')) as { parts: { blob: string }[] }[])
    for (const p of f.parts) used.add(p.blob);
  const blobs = (await readdir(join(dir, 'blobs'), { recursive: true, withFileTypes: true }).catch(() => []))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(join(dir, 'blobs').length + 1));
  return blobs.filter((b) => !used.has(b));
}

/** One client: random acknowledged writes until the process dies under it. */
async function client(
  base: string,
  user: string,
  acked: Acked,
  tag: string,
  unexpected: string[],
  progress: { acks: number },
): Promise<void> {
  const api = `${base}/developer/api`;
  const auth = { authorization: `Bearer ${user}` };
  const check = (what: string, r: { status: number; text: string }, ok: number) => {
    if (r.status !== ok) unexpected.push(`${what}: ${r.status} ${r.text.slice(0, 200)}`);
    else progress.acks++;
    return r.status === ok;
  };
  for (let n = 0; ; n++) {
    const op = Math.floor(Math.random() * 4);
    if (op === 0) {
      const r = await http('POST', `${base}/__admin/apps`, { json: {} });
      if (check('create app', r, 201)) acked.apps.set(r.body.client_id, r.body.secret_key);
    } else if (op === 1) {
      const sn = `881CRASH${tag}X${n}`; // upper case: serials are stored normalised
      const body = { type: 'notepro', sn };
      if (
        !check(
          'sn-sign',
          await http('POST', `${api}/open/partner/sdk/sn-sign`, { headers: auth, json: body }),
          200,
        )
      )
        continue;
      const r = await http('POST', `${api}/open/partner/sdk/bind`, { headers: auth, json: body });
      if (check('bind', r, 200)) acked.binds.set(sn, (acked.binds.get(sn) ?? 0) + 1);
    } else if (op === 2) {
      const bytes = [Buffer.from(`${tag}${n}`.padEnd(4, '.').slice(0, 4)), Buffer.from('tail')];
      const s = await http('POST', `${api}/open/partner/files/upload/generate-presigned-urls`, {
        headers: auth,
        json: { filesize: 8, filetype: 'mp3' },
      });
      if (!check('generate', s, 200)) continue;
      const session = {
        fileId: s.body.FileId as string,
        parts: new Map<number, string>(),
        urls: (s.body.Parts as { PresignedUrl: string }[]).map((p) => p.PresignedUrl),
        bytes,
      };
      acked.sessions.set(s.body.UploadId, session);
      for (const [i, url] of session.urls.entries()) {
        const r = await fetch(url, { method: 'PUT', body: bytes[i] });
        const text = await r.text();
        if (check('PUT part', { status: r.status, text }, 200))
          session.parts.set(i + 1, r.headers.get('etag')!);
      }
      await complete(api, user, s.body.UploadId, acked, unexpected);
    } else {
      const files = [...acked.files.values()];
      const file = files[Math.floor(Math.random() * files.length)];
      if (!file) continue;
      const r = await http('POST', `${api}/open/partner/ai/transcriptions/`, {
        headers: { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.api_key },
        json: { file_url: rehost(file.url, base) },
      });
      if (check('transcription', r, 200)) acked.transcriptions.add(r.body.transcription_id);
    }
  }
}

async function complete(api: string, user: string, uploadId: string, acked: Acked, unexpected: string[]) {
  const s = acked.sessions.get(uploadId)!;
  s.completing = true;
  const r = await http('POST', `${api}/open/partner/files/upload/complete-upload`, {
    headers: { authorization: `Bearer ${user}` },
    json: {
      file_id: s.fileId,
      upload_id: uploadId,
      filetype: 'mp3',
      part_list: [...s.parts].map(([PartNumber, ETag]) => ({ PartNumber, ETag })),
    },
  });
  if (r.status !== 200) {
    unexpected.push(`complete: ${r.status} ${r.text.slice(0, 200)}`);
    return;
  }
  acked.files.set(s.fileId, { url: r.body.DownloadUrl, md5: md5(Buffer.concat(s.bytes)) });
  acked.sessions.delete(uploadId);
}

/**
 * A part PUT the kill cuts for certain: half its body sent, then nothing. Its blob is on disk
 * with no record naming it, the orphan a crash leaves.
 */
async function cutPut(base: string, user: string, acked: Acked, sending: () => void): Promise<void> {
  const api = `${base}/developer/api`;
  const s = await http('POST', `${api}/open/partner/files/upload/generate-presigned-urls`, {
    headers: { authorization: `Bearer ${user}` },
    json: { filesize: 4, filetype: 'mp3' },
  });
  const urls = (s.body.Parts as { PresignedUrl: string }[]).map((p) => p.PresignedUrl);
  acked.sessions.set(s.body.UploadId, {
    fileId: s.body.FileId,
    parts: new Map(),
    urls,
    bytes: [Buffer.from('half')],
  });
  const body = new ReadableStream({
    start(c) {
      c.enqueue(new Uint8Array([104, 97]));
      setTimeout(sending, 50);
    },
  });
  await fetch(urls[0]!, { method: 'PUT', body, duplex: 'half' } as RequestInit);
}

/** After a restart: everything acknowledged is there, and no blob is orphaned. */
async function verify(base: string, dir: string, acked: Acked): Promise<void> {
  expect(await orphanBlobs(dir)).toEqual([]);
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
  for (const [id, f] of acked.files) {
    const r = await fetch(rehost(f.url, base));
    expect(r.status, `file ${id}`).toBe(200);
    expect(md5(Buffer.from(await r.arrayBuffer())), `bytes of ${id}`).toBe(f.md5);
  }
  for (const id of acked.transcriptions) {
    const r = await http('GET', `${base}/developer/api/open/partner/ai/transcriptions/${id}`, {
      headers: { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.api_key },
    });
    expect(r.status, `transcription ${id}`).toBe(200);
  }
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
    `keeps every acknowledged write and leaves no orphan blob over ${CYCLES} kills`,
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
        await verify(child.url, dir, acked);
      }
      expect(acked.files.size + acked.apps.size + acked.binds.size).toBeGreaterThan(CYCLES);
      child.proc.kill('SIGTERM');
      expect(await child.exited).toBe(0);
    },
    15_000 + CYCLES * 2_500,
  );

  it('refuses a second process on the same data folder, naming the owner', async () => {
    const dir = await servers.tempDir();
    const owner = await launch(dir);
    try {
      const second = spawn(process.execPath, [entry, 'serve', '--port', '0', '--data-dir', dir], {
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
});
