import { Agent, request } from 'node:http';
import { fromRoot } from '../core/root.js';
import type { OperationInfo, SpecIndex } from '../spec/openapi.js';
import { validatorsFor } from '../spec/validators.js';
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
 * status the operation does not declare, a content type or body that breaks the declared
 * response, an S3 error code outside the declared enum, or anything that looks like an HTML
 * page, a stack trace or a path of the server.
 */
export function conformance(spec: SpecIndex, op: OperationInfo, res: RawResponse): string[] {
  const out: string[] = [];
  if (res.status >= 500) out.push(`server error ${res.status}: ${res.text.slice(0, 300)}`);
  if (/<html|<!doctype/i.test(res.text)) out.push('answered an HTML page');
  if (STACK_LINE.test(res.text)) out.push('answer holds a stack trace');
  if (res.text.includes(fromRoot())) out.push('answer names a path of the server');
  const declared = spec.response(op, res.status);
  if (!declared)
    return [...out, `status ${res.status} is not declared for ${op.id}: ${res.text.slice(0, 200)}`];
  const type = String(res.headers['content-type'] ?? '') || undefined;
  if (op.method === 'head') return out;
  let body: unknown = res.text === '' ? undefined : res.text;
  if (type?.includes('json')) {
    try {
      body = JSON.parse(res.text);
    } catch {
      return [
        ...out,
        `${op.id} ${res.status}: content type says JSON, body is not: ${res.text.slice(0, 100)}`,
      ];
    }
  }
  out.push(...validatorsFor(spec).validateResponse(op, res.status, type, body));
  if (type?.includes('xml')) {
    const code = /<Code>([^<]*)<\/Code>/.exec(res.text)?.[1];
    const codes = s3ErrorCodes(spec);
    if (code === undefined || !codes.includes(code))
      out.push(`${op.id} ${res.status}: S3 error code ${code} not in the enum`);
  }
  return out;
}

function s3ErrorCodes(spec: SpecIndex): string[] {
  const schemas = (spec.doc.components?.schemas ?? {}) as Record<
    string,
    { properties?: Record<string, { enum?: string[] }> }
  >;
  return schemas.S3Error?.properties?.Code?.enum ?? [];
}
