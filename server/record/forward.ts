import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';

const DECODERS: Record<string, (b: Buffer) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

/** Headers of one hop only (RFC 9110 §7.6.1), never passed on; framing is set anew. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  // The whole body is already here: the upstream is not asked whether to send it.
  'expect',
]);

export function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
  return out;
}

export interface Answer {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Read a whole body, refusing more than `max` bytes. */
export function readBody(stream: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        stream.destroy();
        reject(Object.assign(new Error(`body over ${max} bytes`), { code: 'TOO_LARGE' }));
      } else chunks.push(c);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/**
 * Send one request to the upstream, as the client sent it but for its Host, the framing and
 * `Accept-Encoding: identity` (so the answer can be recorded and its storage URLs rewritten).
 */
export async function forward(
  url: URL,
  method: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
  timeoutMs: number,
  /** How the host is resolved: the address guard's for S3 hosts (storageEgress.ts), else Node's. */
  lookup?: LookupFunction,
): Promise<Answer> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const out: Record<string, string | string[]> = {
    ...endToEnd(headers),
    host: url.host,
    'accept-encoding': 'identity',
  };
  if (body.length > 0 || headers['content-length'] !== undefined) out['content-length'] = String(body.length);
  const answer = await new Promise<Answer>((resolve, reject) => {
    const req = send(url, { method, headers: out, timeout: timeoutMs, lookup }, (res) => {
      readBody(res, 1024 ** 3).then(
        (b) =>
          resolve({
            status: res.statusCode ?? 502,
            statusText: res.statusMessage ?? '',
            headers: res.headers,
            body: b,
          }),
        reject,
      );
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
  // Asked for identity, an upstream may still compress: the answer is recorded, rewritten and
  // passed on decoded (its Content-Encoding dropped), so the client reads the same content.
  const encoding = String(answer.headers['content-encoding'] ?? '').toLowerCase();
  const decode = DECODERS[encoding];
  if (decode && answer.body.length > 0) {
    const { 'content-encoding': _dropped, ...rest } = answer.headers;
    return { ...answer, headers: rest, body: await decode(answer.body) };
  }
  return answer;
}
