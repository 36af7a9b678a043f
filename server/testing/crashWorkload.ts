import { createHash } from 'node:crypto';
import { DEMO_US, http } from './http.js';

/**
 * The workload of the crash test (server/crashSafety.test.ts): clients that write through
 * every kind of acknowledged write, and a record of what was acknowledged, so that after
 * a SIGKILL and a restart the test can check each of them.
 */
/** What the simulator acknowledged (answered 2xx to), and so must still hold. */
export interface Acked {
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

export const md5 = (b: Buffer): string => createHash('md5').update(b).digest('hex');
/** A URL the previous process handed out, asked of the new one (new port, same secrets). */
export const rehost = (url: string, base: string): string => {
  const u = new URL(url);
  u.host = new URL(base).host;
  return u.toString();
};

/** One client: random acknowledged writes until the process dies under it. */
export async function client(
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

export async function complete(
  api: string,
  user: string,
  uploadId: string,
  acked: Acked,
  unexpected: string[],
) {
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
export async function cutPut(base: string, user: string, acked: Acked, sending: () => void): Promise<void> {
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
