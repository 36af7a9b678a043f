import { gzipSync } from 'node:zlib';
import type { OperationInfo } from '../spec/openapi.js';
import type { FuzzContext, FuzzRequest } from './fuzzTypes.js';
import { bytesOf, overLimitBody } from './hostileBodies.js';

/**
 * Requests broken below the operation's own rules, sent to every operation of both documents
 * whatever the fuzz seed: the transport answers (400 for a malformed header, chunk size, gzip
 * body or percent-encoding; 413; 431; 422 for a malformed `X-Sim-Fault` or a repeated query
 * parameter; 307 for the transcription paths' other trailing slash), and headers that must
 * not lead to undeclared ones (`Expect`, `If-None-Match`), must be declared on each operation like any other answer. Each carries every
 * valid credential, so that it reaches the layer it aims at instead of stopping at a 401.
 */
export function transportExamples(ctx: FuzzContext, op: OperationInfo): FuzzRequest[] {
  const method = op.method.toUpperCase();
  const path = `${ctx.prefix}${op.path.replace(/\{[^}]+\}/g, 'x')}`;
  const rb = op.operation.requestBody
    ? ctx.spec.deref<{ content?: Record<string, unknown> }>(op.operation.requestBody)
    : undefined;
  const media = Object.keys(rb?.content ?? {})[0] ?? 'application/json';
  const out: FuzzRequest[] = [];
  for (const headers of credentialSets(ctx)) {
    const req = (label: string, r: Partial<FuzzRequest>): FuzzRequest => ({
      method,
      path,
      ...r,
      label,
      headers: { ...headers, ...r.headers },
    });
    const gzip = { 'content-type': media, 'content-encoding': 'gzip' };
    // Raw bytes: node:http would refuse to send these headers, or frame the body itself.
    out.push(
      req('malformed Content-Length', {
        raw: rawRequest(method, path, headers, ['Content-Length: 12x'], ''),
      }),
      req('bad chunk size', {
        raw: rawRequest(
          method,
          path,
          headers,
          ['Content-Type: application/json', 'Transfer-Encoding: chunked'],
          'zz\r\n{}\r\n0\r\n\r\n',
        ),
      }),
      req('20 KB header', { headers: { 'x-pad': 'a'.repeat(20_000) } }),
      req('gzip body that is not gzip', { headers: gzip, body: 'not gzip at all' }),
      req('gzip body cut short', { headers: gzip, body: gzipSync(Buffer.from('{"a":1}')).subarray(0, 12) }),
      req('1.1 MB body', { headers: { 'content-type': media }, body: bytesOf(overLimitBody()) }),
      req('malformed X-Sim-Fault', { headers: { 'x-sim-fault': 'status=abc' } }),
      req('X-Sim-Fault without status', { headers: { 'x-sim-fault': 'retry_after=2' } }),
      req('Expect other than 100-continue', { headers: { expect: 'something-else' } }),
      req('If-None-Match: *', { headers: { 'if-none-match': '*' } }),
      req('If-None-Match of some ETag', { headers: { 'if-none-match': 'W/"1-abc"' } }),
    );
    // On the storage host the other spelling is another S3 key, not this operation.
    if (!op.storage)
      out.push(
        req('the other trailing slash', { path: path.endsWith('/') ? path.slice(0, -1) : `${path}/` }),
      );
    const pathParams = op.parameters.filter((p) => p.in === 'path').length;
    for (let i = 0; i < pathParams; i++) {
      let n = 0;
      const broken = op.path.replace(/\{[^}]+\}/g, () => (n++ === i ? '%zz' : 'x'));
      out.push(
        req('%zz in the path', { path: `${ctx.prefix}${broken}` }),
        req('cut UTF-8 in the path', { path: `${ctx.prefix}${broken.replace('%zz', '%E0%A4%A')}` }),
      );
    }
    for (const q of op.parameters.filter((p) => p.in === 'query'))
      out.push(
        req(`${q.name} twice`, { path: `${path}?${q.name}=a&${q.name}=b` }),
        req(`%zz in ${q.name}`, { path: `${path}?${q.name}=%zz` }),
      );
  }
  return out;
}

/** Each valid credential on its own (a request carries one); none when the surface has none. */
function credentialSets(ctx: FuzzContext): Record<string, string>[] {
  const key = ctx.apiKeys[0];
  const keyHeaders: Record<string, string> = key
    ? { 'x-client-id': key.id, 'x-client-api-key': key.key }
    : {};
  if (ctx.authorizations.length === 0) return [keyHeaders];
  return ctx.authorizations.map((authorization) => ({ ...keyHeaders, authorization }));
}

/** An HTTP/1.1 request as bytes, with extra header lines the client library would refuse. */
function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
  extra: string[],
  body: string,
): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return `${[...lines, ...extra].join('\r\n')}\r\n\r\n${body}`;
}
