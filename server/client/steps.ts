import { createHash } from 'node:crypto';
import type { components } from '../spec/api-types.js';

/**
 * The upload operations one request each, over real HTTP (fetch), answering the raw status:
 * tests use them to probe the storage surface step by step, and the resilient upload
 * (./upload.ts) is built from them.
 */
export type UploadSession = components['schemas']['UploadSession'];
export type UploadedFile = components['schemas']['UploadedFile'];
export type PresignRequest = components['schemas']['PresignRequest'];
export type CompleteUploadRequest = components['schemas']['CompleteUploadRequest'];

export const md5hex = (b: Uint8Array): string => createHash('md5').update(b).digest('hex');

export interface RawAnswer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON of any documented answer; callers narrow it
  body: any;
  text: string;
}

async function parsed(r: Response): Promise<RawAnswer> {
  const text = await r.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: r.status, headers: r.headers, body, text };
}

/** POST a JSON body with a bearer token. */
async function postJson(url: string, token: string, body: unknown, signal?: AbortSignal) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  return parsed(r);
}

export const presign = (api: string, token: string, body: PresignRequest, signal?: AbortSignal) =>
  postJson(`${api}/open/partner/files/upload/generate-presigned-urls`, token, body, signal);

/** generate-presigned-urls; throws on any answer but 200. */
export async function startUpload(api: string, token: string, filesize: number, filetype = 'mp3') {
  const r = await presign(api, token, { filesize, filetype });
  if (r.status !== 200) throw new Error(`generate-presigned-urls: ${r.status} ${r.text}`);
  return r.body as UploadSession;
}

export async function putPart(
  url: string,
  bytes: Uint8Array,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
) {
  const r = await fetch(url, { method: 'PUT', body: bytes, headers, ...(signal ? { signal } : {}) });
  return { status: r.status, etag: r.headers.get('etag'), headers: r.headers, text: await r.text() };
}

export function completeUpload(
  api: string,
  token: string,
  body: Omit<CompleteUploadRequest, 'filetype'> & { filetype?: string },
  signal?: AbortSignal,
) {
  return postJson(
    `${api}/open/partner/files/upload/complete-upload`,
    token,
    { filetype: 'mp3', ...body },
    signal,
  );
}
