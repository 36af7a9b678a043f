import { createHash } from 'node:crypto';
import type { components } from '../spec/api-types.js';

/**
 * A minimal partner-side upload client over real HTTP (fetch): what tests, the benchmark and
 * examples use to drive generate → PUT parts → complete. It holds at most one part in memory
 * per request in flight.
 */
export type UploadSession = components['schemas']['UploadSession'];
export type UploadedFile = components['schemas']['UploadedFile'];

export const md5hex = (b: Uint8Array): string => createHash('md5').update(b).digest('hex');

async function postJson(url: string, token: string, body: unknown) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined, text };
}

export async function startUpload(api: string, token: string, filesize: number, filetype = 'mp3') {
  const r = await postJson(`${api}/open/partner/files/upload/generate-presigned-urls`, token, {
    filesize,
    filetype,
  });
  if (r.status !== 200) throw new Error(`generate-presigned-urls: ${r.status} ${r.text}`);
  return r.body as UploadSession;
}

export async function putPart(url: string, bytes: Uint8Array, headers: Record<string, string> = {}) {
  const r = await fetch(url, { method: 'PUT', body: bytes, headers });
  return { status: r.status, etag: r.headers.get('etag'), headers: r.headers, text: await r.text() };
}

export async function completeUpload(
  api: string,
  token: string,
  body: {
    file_id: string;
    upload_id: string;
    part_list: { PartNumber: number; ETag: string }[];
    filetype?: string;
    file_md5?: string;
  },
) {
  return postJson(`${api}/open/partner/files/upload/complete-upload`, token, { filetype: 'mp3', ...body });
}

/**
 * Upload `size` bytes produced by `partBytes(partNumber, length, offset)` with `concurrency`
 * PUTs in flight, then complete. Throws on any non-2xx answer.
 */
export async function uploadAll(
  api: string,
  token: string,
  size: number,
  partBytes: (part: number, length: number, offset: number) => Uint8Array,
  opts: { concurrency?: number; fileMd5?: string; filetype?: string } = {},
): Promise<UploadedFile> {
  const filetype = opts.filetype ?? 'mp3';
  const s = await startUpload(api, token, size, filetype);
  const etags = new Map<number, string>();
  const queue = [...s.Parts];
  const worker = async () => {
    for (let p = queue.shift(); p; p = queue.shift()) {
      const offset = (p.PartNumber - 1) * s.ChunkSize;
      const length = Math.min(s.ChunkSize, size - offset);
      const r = await putPart(p.PresignedUrl, partBytes(p.PartNumber, length, offset));
      if (r.status !== 200 || !r.etag) throw new Error(`PUT part ${p.PartNumber}: ${r.status} ${r.text}`);
      etags.set(p.PartNumber, r.etag);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, worker));
  const part_list = s.Parts.map((p) => ({ PartNumber: p.PartNumber, ETag: etags.get(p.PartNumber)! }));
  const done = await completeUpload(api, token, {
    file_id: s.FileId,
    upload_id: s.UploadId,
    part_list,
    filetype,
    ...(opts.fileMd5 ? { file_md5: opts.fileMd5 } : {}),
  });
  if (done.status !== 200) throw new Error(`complete-upload: ${done.status} ${done.text}`);
  return done.body as UploadedFile;
}
