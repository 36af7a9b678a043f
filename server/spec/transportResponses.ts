import { slashRedirectTarget } from '../routes/transcriptionSlash.js';
import type { OperationInfo, SpecIndex } from './openapi.js';

/**
 * The transport answers: statuses any request can meet below its operation's own rules, so
 * every operation of both documents declares them, each as a reference to the one shared
 * response of its document (`#/components/responses/<name>`):
 *
 * - 400 `BadRequest`: a malformed header line, `Content-Length` or chunk size (Node refuses
 *   these before routing), a gzip body that does not inflate, `%zz` in the path;
 * - 413 `PayloadTooLarge`: a body over the limit, on operations that read a JSON body;
 * - 422 `ValidationFailed`: a malformed `X-Sim-Fault` header (every partner API and storage
 *   operation reads it) or a query parameter given twice (every operation with a query);
 * - 307 `TrailingSlashRedirect`: the partner API's transcription paths spelled with the
 *   other trailing slash (routes/transcriptionSlash.ts), on the operations of those paths;
 * - 431 `HeadersTooLarge`: headers over Node's limit;
 * - 5XX `ServerError`: a failure of the simulator (or one injected on the partner API).
 *
 * Storage host operations answer S3 XML: the `Storage…` variants. A new operation that lacks
 * one fails server/spec/transportResponses.test.ts, which names the missing reference.
 */
/** Whether the path's other trailing-slash spelling is redirected to it (routes/transcriptionSlash.ts). */
function hasSlashRedirect(path: string): boolean {
  const sample = path.replace(/\{[^}]+\}/g, 'x');
  return slashRedirectTarget(sample.endsWith('/') ? sample.slice(0, -1) : `${sample}/`) === sample;
}

export function transportResponses(spec: SpecIndex, op: OperationInfo): Record<string, string> {
  const admin = spec.name === 'admin.openapi.yaml';
  const pre = op.storage ? 'Storage' : '';
  const jsonBody = !op.storage && op.operation.requestBody !== undefined;
  const readsQuery = op.parameters.some((p) => p.in === 'query');
  const slashRedirect = spec.name === 'openapi.yaml' && hasSlashRedirect(op.path);
  return {
    ...(slashRedirect ? { '307': 'TrailingSlashRedirect' } : {}),
    '400': `${pre}BadRequest`,
    ...(jsonBody ? { '413': 'PayloadTooLarge' } : {}),
    ...(!admin || readsQuery ? { '422': `${pre}ValidationFailed` } : {}),
    '431': `${pre}HeadersTooLarge`,
    '5XX': `${pre}ServerError`,
  };
}

/** What `op` lacks of its transport answers, as sentences (empty when it declares them all). */
export function missingTransportResponses(spec: SpecIndex, op: OperationInfo): string[] {
  const declared = (op.operation.responses ?? {}) as Record<string, { $ref?: string }>;
  const out: string[] = [];
  for (const [status, name] of Object.entries(transportResponses(spec, op))) {
    const ref = `#/components/responses/${name}`;
    const got = declared[status];
    // An operation may describe a transport status in its own words (uploadPart's 400 lists
    // its S3 codes; headFile's 5XX has no body), but never leave it out.
    if (!got) out.push(`${op.id} does not declare ${status}: add "${status}": {$ref: "${ref}"}`);
    else if (got.$ref !== undefined && got.$ref !== ref)
      out.push(`${op.id} ${status} refers to ${got.$ref}, not ${ref}`);
  }
  return out;
}
