import type { ServerResponse } from 'node:http';
import { s3ErrorXml } from '../http/errorHandler.js';

/** Where a forwarded request was headed: its answer speaks that surface's error form. */
export type Surface = 'api' | 'storage';

/**
 * An answer of the recorder's own (the upstream down, an address refused, the file not
 * written): JSON `{detail, message}` on the partner API, and on storage paths S3's XML error
 * document, which a client of a bucket parses. The `X-Request-Id` the recorder set on `res`
 * for every request is the document's RequestId, so the client's log and the recorder's meet.
 */
export function answerError(
  res: ServerResponse,
  surface: Surface,
  status: number,
  code: string,
  message: string,
  resource: string,
): void {
  if (surface === 'storage') {
    const id = String(res.getHeader('x-request-id') ?? '');
    res.writeHead(status, { 'content-type': 'application/xml' });
    res.end(s3ErrorXml(code, message, resource, id));
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify({ detail: code, message }));
}
