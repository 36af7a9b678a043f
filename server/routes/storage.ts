import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { type Handlers, simLocals } from '../http/types.js';
import type { Services } from '../services.js';
import { contentTypeOf } from '../storage/records.js';

/** The query string exactly as sent: the presigned signature covers every parameter. */
const rawQuery = (req: Request): URLSearchParams => {
  const q = req.originalUrl.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : req.originalUrl.slice(q + 1));
};

const header = (req: Request, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
};

/** Set on every storage answer (errors too) so browsers can read ETag and S3 error documents. */
function cors(res: Response, expose: string): void {
  res.set('Access-Control-Allow-Origin', '*');
  res.set('Access-Control-Expose-Headers', expose);
}

/**
 * Upload sessions (partner API, user token) and the storage host (presigned URLs, no auth,
 * S3 XML errors). Storage requests arrive without body parsing: the part body is streamed.
 */
export const storageHandlers = {
  generatePresignedUrls: async ({ auth, body, services, publicUrl }) => ({
    status: 200,
    body: await services.storage.createUpload(auth.user!, body.filesize, body.filetype, publicUrl),
  }),

  completeUpload: async ({ auth, body, services, publicUrl }) => ({
    status: 200,
    body: await services.storage.complete(auth.user!, body, publicUrl),
  }),

  uploadPart: async ({ req, res, params, services }) => {
    cors(res, 'ETag, x-amz-request-id');
    const q = rawQuery(req);
    const { etag } = await services.storage.putPart({
      fileId: params.file_id,
      partNumber: q.get('partNumber') ?? undefined,
      uploadId: q.get('uploadId') ?? undefined,
      query: q,
      contentLength: header(req, 'content-length'),
      contentMd5: header(req, 'content-md5'),
      body: req,
    });
    // The app's `etag_quotes: strip` switch answers outside the spec's pattern on purpose.
    if (!etag.startsWith('"')) simLocals(res).quirk = 'etag_quotes';
    return { status: 200, headers: { ETag: etag } };
  },

  uploadPartPreflight: ({ req }) => ({
    status: 204,
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'GET, HEAD, PUT, OPTIONS',
      'Access-Control-Allow-Headers':
        header(req, 'access-control-request-headers') ?? 'content-type, content-md5',
      'Access-Control-Expose-Headers': 'ETag, x-amz-request-id',
      'Access-Control-Max-Age': '3000',
    },
  }),

  downloadFile: (ctx) => serveFile(ctx.req, ctx.res, ctx.params.file_id, ctx.services),
  headFile: (ctx) => serveFile(ctx.req, ctx.res, ctx.params.file_id, ctx.services),
} satisfies Handlers;

/** GET/HEAD of a DownloadUrl: whole object or one byte range, streamed from the blobs. */
async function serveFile(
  req: Request,
  res: Response,
  fileId: string,
  services: Services,
): Promise<undefined> {
  cors(res, 'ETag, Content-Length, Content-Range, Accept-Ranges');
  const { file, range, open } = await services.storage.download(fileId, rawQuery(req), header(req, 'range'));
  res.status(range ? 206 : 200).set({
    'Content-Type': contentTypeOf(file.filetype),
    'Content-Length': String(range ? range.end - range.start + 1 : file.size),
    ETag: file.etag,
    'Accept-Ranges': 'bytes',
    'Last-Modified': new Date(file.created_ms).toUTCString(),
    ...(range ? { 'Content-Range': `bytes ${range.start}-${range.end}/${file.size}` } : {}),
  });
  if (req.method === 'HEAD') {
    res.end();
    return undefined;
  }
  // A client that hangs up mid-download is not an error of the simulator.
  await pipeline(open(), res).catch(() => res.destroy());
  return undefined;
}
