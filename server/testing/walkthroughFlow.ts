import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { fromRoot } from '../core/root.js';
import { basicAuth, bearer, http } from './http.js';

interface FlowApp {
  client_id: string;
  secret_key: string;
  api_key: string;
}

export interface FlowOptions {
  /** Root of whoever the client talks to (a recorder in record mode), e.g. http://127.0.0.1:PORT */
  root: string;
  app: FlowApp;
  userId: string;
  /** Also refresh the partner token (a refresh token in a form body). */
  refresh?: boolean;
  /** Polls of the transcription this far apart, until it ends (the README's loop). */
  pollMs?: number;
  /**
   * The binding steps (lookup, sn-sign, bind, unbind); default true. They change the devices
   * the instance shares, so a second replay against the same instance finds them changed.
   */
  devices?: boolean;
}

/**
 * The README walkthrough (tokens, binding, upload, transcription) as a client speaks it, for
 * tests that record it. Returns every secret value the client held, so a test can look for
 * each in a recording.
 */
export async function walkthrough(
  o: FlowOptions,
): Promise<{ secrets: string[]; audio: Buffer; partnerToken: string }> {
  const b = `${o.root}/developer/api`;
  const secrets = [o.app.secret_key, o.app.api_key, o.userId];
  const pt = await http('POST', `${b}/oauth/partner/access-token`, {
    headers: basicAuth(o.app.client_id, o.app.secret_key),
    form: '',
  });
  let partner: string = pt.body.access_token;
  secrets.push(partner, pt.body.refresh_token);
  if (o.refresh) {
    const r = await http('POST', `${b}/oauth/partner/access-token/refresh`, {
      headers: basicAuth(o.app.client_id, o.app.secret_key),
      form: { refresh_token: pt.body.refresh_token },
    });
    if (r.status !== 200) throw new Error(`refresh: ${r.status} ${r.text}`);
    partner = r.body.access_token;
    secrets.push(partner, r.body.refresh_token);
  }
  const ut = await http('POST', `${b}/open/partner/users/access-token`, {
    headers: bearer(partner),
    json: { user_id: o.userId },
  });
  if (ut.status !== 200) throw new Error(`user token: ${ut.status} ${ut.text}`);
  const user = bearer(ut.body.access_token);
  secrets.push(ut.body.access_token);
  await http('POST', `${b}/open/partner/users/access-token`, {
    headers: bearer(partner),
    json: { user_id: 'abc' },
  });
  if (o.devices !== false) {
    for (const sn of ['8810B30227290004', '8810B30227290003'])
      await http('GET', `${b}/open/partner/sdk/binding?type=notepro&sn=${sn}`, { headers: user });
    await http('GET', `${b}/open/partner/sdk/binding?type=notepins&sn=8820B3022729FFFF`, { headers: user });
    for (const op of ['sn-sign', 'bind', 'unbind']) {
      const r = await http('POST', `${b}/open/partner/sdk/${op}`, {
        headers: user,
        json: { type: 'notepins', sn: '8820B3022729AAAA' },
      });
      if (r.body?.signature) secrets.push(r.body.signature);
    }
  }

  const audio = await readFile(fromRoot('fixtures', 'audio', 'meeting.mp3'));
  const presign = await http('POST', `${b}/open/partner/files/upload/generate-presigned-urls`, {
    headers: user,
    json: { filesize: audio.length, filetype: 'mp3' },
  });
  if (presign.status !== 200) throw new Error(`presign: ${presign.status} ${presign.text}`);
  const { FileId, UploadId, ChunkSize, Parts } = presign.body as {
    FileId: string;
    UploadId: string;
    ChunkSize: number;
    Parts: { PartNumber: number; PresignedUrl: string }[];
  };
  const parts = [];
  for (const p of Parts) {
    const url = new URL(p.PresignedUrl);
    for (const k of ['X-Amz-Signature', 'X-Amz-Credential']) secrets.push(url.searchParams.get(k) ?? '');
    const put = await http('PUT', p.PresignedUrl, {
      raw: audio.subarray((p.PartNumber - 1) * ChunkSize, p.PartNumber * ChunkSize),
    });
    parts.push({ PartNumber: p.PartNumber, ETag: put.headers.get('etag') });
  }
  const md5 = createHash('md5').update(audio).digest('hex');
  const done = await http('POST', `${b}/open/partner/files/upload/complete-upload`, {
    headers: user,
    json: { file_id: FileId, upload_id: UploadId, filetype: 'mp3', file_md5: md5, part_list: parts },
  });
  const download: string = done.body.DownloadUrl;
  secrets.push(new URL(download).searchParams.get('X-Amz-Signature') ?? '');
  await http('GET', download);

  const keys = { 'x-client-id': o.app.client_id, 'x-client-api-key': o.app.api_key };
  const task = await http('POST', `${b}/open/partner/ai/transcriptions/`, {
    headers: keys,
    json: { file_url: download, params: { diarization: { enabled: true } } },
  });
  for (let i = 0; i < 60; i++) {
    const r = await http('GET', `${b}/open/partner/ai/transcriptions/${task.body.transcription_id}`, {
      headers: keys,
    });
    if (['SUCCESS', 'FAILURE', 'REVOKED'].includes(r.body.status)) break;
    await sleep(o.pollMs ?? 1000);
  }
  return { secrets: secrets.filter((s) => s.length >= 6), audio, partnerToken: partner };
}
