import type { IncomingHttpHeaders } from 'node:http';
import { observedViolations } from '../spec/conformance.js';
import { apiSpec } from '../spec/openapi.js';
import type { TappedBody } from './bodyTap.js';

/**
 * Where the upstream's answer to `operation` breaks openapi.yaml, by the one checker
 * `--validate-responses` uses (spec/conformance.ts): status, content type, the JSON body
 * against its schema, an S3 error document, declared headers. What a validating proxy does,
 * as the answer passes: live held to the contract the simulator is built from. Empty when it
 * conforms, or when it cannot be told: no operation, or a body not kept (audio, a text over
 * --record-body-limit), which is checked by its status and headers only when it has none.
 */
export function upstreamViolations(
  operation: string | undefined,
  status: number,
  headers: IncomingHttpHeaders,
  body: TappedBody,
): string[] {
  const spec = apiSpec();
  const op = operation === undefined ? undefined : spec.operations.get(operation);
  if (!op || (body.bytes === undefined && body.size > 0)) return [];
  const text = body.bytes?.toString('utf8') ?? '';
  return observedViolations(spec, op, { status, headers, text });
}
