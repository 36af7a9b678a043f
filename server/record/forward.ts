import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
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
  // The recorder's own server already answered `100 Continue` to the client (Node does), and
  // the body is on its way: the upstream is not asked whether to send it.
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
  /** As the upstream sent them; without `Content-Encoding`/`Content-Length` when decoded here. */
  headers: IncomingHttpHeaders;
  /** The answer's body as it arrives (decoded), read by the caller at its own pace. */
  body: Readable;
  /**
   * The answer is complete while the client is still sending (an early 403): the rest of its
   * body is read and dropped, not sent to an upstream that may never read it.
   */
  stopSending(): void;
}

/**
 * Send one request to the upstream, as the client sent it but for its Host and
 * `Accept-Encoding: identity` (so the answer can be recorded and its storage URLs rewritten).
 * The body is piped from the client as it arrives, with backpressure: a 100 MiB part never sits
 * in the recorder. Resolves with the answer's head once it comes; rejects when the upstream
 * cannot be reached, fails or is silent for `timeoutMs`, or the client goes away first.
 */
export function forward(
  url: URL,
  method: string,
  headers: IncomingHttpHeaders,
  body: IncomingMessage,
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
  // The bytes pass unchanged, so the client's length holds; without one the body goes chunked.
  if (headers['content-length'] !== undefined) out['content-length'] = headers['content-length'];
  return new Promise<Answer>((resolve, reject) => {
    let answered = false;
    const dropRest = () => {
      body.unpipe(req);
      body.resume();
    };
    const req = send(url, { method, headers: out, timeout: timeoutMs, lookup }, (res) => {
      answered = true;
      const stopSending = () => {
        dropRest();
        req.destroy();
      };
      resolve({ ...decoded(res, method), stopSending });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', (e) => {
      if (!answered) return reject(e);
      // Answered before the body was all sent (an S3 403 does that) and then closed: the rest
      // of the client's body is read and dropped, so the client still gets that answer.
      dropRest();
    });
    // The client gone mid-body: the upstream must not take a truncated body as whole.
    body.on('close', () => {
      if (!body.complete) req.destroy(new Error('the client went away before its request was complete'));
    });
    body.pipe(req);
  });
}

/**
 * Asked for identity, an upstream may still compress: the answer is recorded, rewritten and
 * passed on decoded (its Content-Encoding dropped, and its length, which was the compressed
 * one), so the client reads the same content the file holds.
 */
function decoded(res: IncomingMessage, method: string): Omit<Answer, 'stopSending'> {
  const answer = { status: res.statusCode ?? 502, statusText: res.statusMessage ?? '', headers: res.headers };
  const make = DECODERS[String(res.headers['content-encoding'] ?? '').toLowerCase()];
  // No body to decode (a decoder fed nothing fails): passed on as the upstream sent it.
  const empty =
    method === 'HEAD' ||
    answer.status === 204 ||
    answer.status === 304 ||
    res.headers['content-length'] === '0';
  if (!make || empty) return { ...answer, body: res };
  const { 'content-encoding': _enc, 'content-length': _len, ...rest } = res.headers;
  // pipeline destroys the decoder with the upstream's error, which its reader then sees.
  return { ...answer, headers: rest, body: pipeline(res, make(), () => {}) };
}
