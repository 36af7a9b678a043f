import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Connect } from '../target/types.js';

export interface BytesAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  buffer: Buffer;
}

/**
 * A GET whose body is kept as bytes, joined once. pactum's HTTP layer (phinx/centra) copies
 * the whole body into a new buffer for every chunk that arrives and then decodes it as text
 * twice: for one 5 MiB download that was ~1 s of CPU in each contract run, growing with the
 * square of the size. Downloads of stored audio come here; everything else goes through
 * pactum. The same connection rules: `createConnection` (the simulator's proxy tunnel) when
 * given, Node's trust store otherwise; no redirect followed, as pactum does not follow them.
 */
export function getBytes(
  url: string,
  headers: Record<string, string>,
  createConnection: Connect | undefined,
  timeoutMs: number,
): Promise<BytesAnswer> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      { method: 'GET', headers, ...(createConnection ? { createConnection } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.once('error', reject);
        res.once('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, buffer: Buffer.concat(chunks) }),
        );
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.once('error', reject);
    req.end();
  });
}

/** Whether a body of this content type is text worth decoding (JSON, XML, text/*). */
export function isTextual(contentType: string | undefined): boolean {
  const media = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return media === '' || media.startsWith('text/') || media.includes('json') || media.includes('xml');
}
