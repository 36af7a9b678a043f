import { createHash, randomBytes } from 'node:crypto';
import { md5hex, type UploadSession } from '../../server/client/steps.js';
import type { Target } from '../target/types.js';
import { bearer } from './flows.js';
import { call, type Res } from './request.js';

export { md5hex };

/** S3's ETag of a multipart object: md5 of the concatenated binary part digests, `-<parts>`. */
export function multipartEtag(parts: Buffer[]): string {
  const digests = Buffer.concat(parts.map((p) => createHash('md5').update(p).digest()));
  return `"${md5hex(digests)}-${parts.length}"`;
}

/** Random bytes of a given size (audio content does not matter to the upload surface). */
export const someBytes = (size: number): Buffer => randomBytes(size);

export type Session = UploadSession;

export async function startUpload(t: Target, user: string, size: number, filetype = 'mp3'): Promise<Session> {
  const r = await call(t, {
    op: 'generatePresignedUrls',
    headers: bearer(user),
    json: { filesize: size, filetype },
    expect: 200,
  });
  return r.body as Session;
}

/** Part N covers bytes [(N-1)*ChunkSize, min(N*ChunkSize, size)). */
export const sliceParts = (bytes: Buffer, chunk: number): Buffer[] => {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += chunk)
    out.push(bytes.subarray(at, Math.min(at + chunk, bytes.length)));
  return out;
};

export const putPart = (t: Target, url: string, bytes: Buffer, expectStatus = 200): Promise<Res> =>
  call(t, {
    op: 'uploadPart',
    url,
    headers: { 'content-type': 'application/octet-stream' },
    raw: bytes,
    expect: expectStatus,
  });

/** The whole round trip: presign, PUT every part, complete. Returns the completed file. */
export async function uploadFile(
  t: Target,
  user: string,
  bytes: Buffer,
  filetype = 'mp3',
): Promise<{ session: Session; parts: Buffer[]; etags: string[]; file: Res }> {
  const session = await startUpload(t, user, bytes.length, filetype);
  const parts = sliceParts(bytes, session.ChunkSize);
  const etags: string[] = [];
  for (const [i, part] of parts.entries()) {
    const r = await putPart(t, session.Parts[i]!.PresignedUrl, part);
    etags.push(String(r.headers.etag));
  }
  const file = await call(t, {
    op: 'completeUpload',
    headers: bearer(user),
    json: {
      file_id: session.FileId,
      upload_id: session.UploadId,
      part_list: etags.map((ETag, i) => ({ PartNumber: i + 1, ETag })),
      filetype,
      file_md5: md5hex(bytes),
    },
    expect: 200,
  });
  return { session, parts, etags, file };
}

/** Change the presigned signature of a URL (a tampered URL must be refused). */
export function tamper(url: string): string {
  const u = new URL(url);
  const sig = u.searchParams.get('X-Amz-Signature') ?? '';
  u.searchParams.set('X-Amz-Signature', `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`);
  return u.toString();
}

export function withoutParam(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.delete(name);
  return u.toString();
}
