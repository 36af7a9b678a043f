import type { Response } from 'express';
import type { Config } from '../config.js';
import type { SpecIndex } from '../spec/openapi.js';
import { validatorsFor } from '../spec/validators.js';
import { simLocals } from './types.js';

export interface SendOptions {
  config: Config;
  spec: SpecIndex;
}

/** Remove `field` (dotted path) from a copy of `body`: the test-only `--break-response`. */
function breakBody(body: unknown, field: string): unknown {
  if (body === null || typeof body !== 'object') return body;
  const copy = structuredClone(body) as Record<string, unknown>;
  const path = field.split('.');
  let cur: Record<string, unknown> | undefined = copy;
  for (const k of path.slice(0, -1)) cur = cur?.[k] as Record<string, unknown> | undefined;
  if (cur) delete cur[path[path.length - 1]!];
  return copy;
}

/**
 * The one way JSON leaves the API surfaces. When response validation is on (tests, and
 * `--validate-responses`), a body that breaks openapi.yaml is replaced by a loud 500 naming
 * the violation, so no test can pass on a response the spec does not allow.
 */
export function sendJson(
  res: Response,
  status: number,
  body: unknown,
  opts: SendOptions,
  headers: Record<string, string> = {},
): void {
  const op = simLocals(res).op;
  let out = body;
  const broken = opts.config.breakResponse;
  if (broken && op) {
    const [opId, field] = broken.split(':');
    if (opId === op.id && field) out = breakBody(out, field);
  }
  // Injected fault answers are deliberate, so they are never validated.
  if (opts.config.validateResponses && op && !simLocals(res).fault?.shaped) {
    const violations = validatorsFor(opts.spec).validateResponse(op, status, 'application/json', out);
    if (violations.length > 0) {
      res.status(500).json({ detail: 'RESPONSE_VALIDATION_FAILED', message: violations.join('; ') });
      return;
    }
  }
  res.set(headers).status(status).json(out);
}

/** A status with no body and no content type (e.g. the binding query's bare 404). */
export function sendEmpty(
  res: Response,
  status: number,
  opts: SendOptions,
  headers: Record<string, string> = {},
): void {
  const op = simLocals(res).op;
  // Injected fault answers are deliberate, so they are never validated.
  if (opts.config.validateResponses && op && !simLocals(res).fault?.shaped) {
    const violations = validatorsFor(opts.spec).validateResponse(op, status, undefined, undefined);
    if (violations.length > 0) {
      res.status(500).json({ detail: 'RESPONSE_VALIDATION_FAILED', message: violations.join('; ') });
      return;
    }
  }
  res.removeHeader('Content-Type');
  res.set(headers).status(status).end();
}
