import { Agent, request } from 'node:http';
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
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        // Node sends a GET's body without a length unless told: the server would read it as the next request.
        headers:
          req.body === undefined
            ? req.headers
            : { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
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
    r.end(req.body);
  });
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
