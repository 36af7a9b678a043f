import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { fromRoot } from '../core/root.js';
import { observedViolations } from '../spec/conformance.js';
import type { OperationInfo, SpecIndex } from '../spec/openapi.js';
import type { FuzzRequest } from './fuzzTypes.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

/**
 * Send a request byte for byte (node:http, not fetch, which would normalise a malformed
 * percent-encoding or a `%2e%2e` segment before it reaches the server).
 */
export function sendRaw(base: string, req: FuzzRequest): Promise<RawResponse> {
  const url = new URL(base);
  if (req.raw !== undefined) return sendBytes(url, req.method, req.raw);
  // Encoded once: a string body was encoded twice (its length, then the write), ~1 MB bodies
  // hundreds of times a fuzz run.
  const body = typeof req.body === 'string' ? Buffer.from(req.body) : req.body;
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        // Node sends a GET's body without a length unless told: the server would read it as the next request.
        headers:
          body === undefined ? req.headers : { ...req.headers, 'content-length': String(body.byteLength) },
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

/** Write `raw` on a fresh socket and read the answer until the server closes it. */
function sendBytes(url: URL, method: string, raw: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.end(raw, 'latin1'));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks), method));
      } catch (e) {
        reject(e);
      }
    });
  });
}

/** The first response on a closed connection: status, headers and a (de-chunked) body. */
export function parseResponse(bytes: Buffer, method: string): RawResponse {
  const text = bytes.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response head: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(statusLine.split(' ')[1]);
  let body = bytes.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
  // What follows a bodiless answer is the next answer on the socket (e.g. the parser's 400).
  if (method === 'HEAD' || status === 204 || status === 304) body = Buffer.alloc(0);
  else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    for (let at = 0; at < body.length; ) {
      const eol = body.indexOf('\r\n', at);
      const size = Number.parseInt(body.subarray(at, eol).toString('latin1'), 16);
      if (!(size > 0)) break;
      parts.push(body.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  } else if (headers['content-length'] !== undefined) {
    body = body.subarray(0, Number(headers['content-length']));
  }
  return { status, headers, text: body.toString('utf8') };
}

const STACK_LINE = /\n\s+at .+[(:]\d+/;

/**
 * Everything wrong with one answer to `op`, as sentences (empty when it conforms): a 5xx, a
 * status the operation does not declare, anything that looks like an HTML page, a stack trace
 * or a path of the server, and whatever the one response checker (spec/conformance.ts) finds.
 */
export function answerProblems(spec: SpecIndex, op: OperationInfo, res: RawResponse): string[] {
  const out: string[] = [];
  if (res.status >= 500) out.push(`server error ${res.status}: ${res.text.slice(0, 300)}`);
  if (/<html|<!doctype/i.test(res.text)) out.push('answered an HTML page');
  if (STACK_LINE.test(res.text)) out.push('answer holds a stack trace');
  if (res.text.includes(fromRoot())) out.push('answer names a path of the server');
  const declared = spec.response(op, res.status);
  if (!declared)
    return [...out, `status ${res.status} is not declared for ${op.id}: ${res.text.slice(0, 200)}`];
  // A HEAD answer has no body to hold to the declared one.
  if (op.method === 'head') return out;
  return [...out, ...observedViolations(spec, op, res)];
}
