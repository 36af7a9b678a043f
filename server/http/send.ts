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
 * When response validation is on, answer a response that breaks the spec with a 500 naming
 * the violation instead, and say so. Injected fault answers are deliberate: never checked.
 */
function failsSpec(
  res: Response,
  status: number,
  contentType: string | undefined,
  body: unknown,
  opts: SendOptions,
  sim = simLocals(res),
): boolean {
  if (!opts.config.validateResponses || !sim.op || sim.fault?.shaped) return false;
  const violations = validatorsFor(opts.spec).validateResponse(sim.op, status, contentType, body);
  if (violations.length === 0) return false;
  const answer = { detail: 'RESPONSE_VALIDATION_FAILED', message: violations.join('; ') };
  sim.answer = answer;
  res.status(500).json(answer);
  return true;
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
  headers?: Record<string, string>,
): void {
  const sim = simLocals(res);
  const op = sim.op;
  let out = body;
  const broken = opts.config.breakResponse;
  if (broken && op) {
    const [opId, field] = broken.split(':');
    if (opId === op.id && field) out = breakBody(out, field);
  }
  if (failsSpec(res, status, 'application/json', out, opts, sim)) return;
  if (status >= 300) sim.answer = out;
  // statusCode directly: the status comes from the spec's own replies, always a valid code.
  if (headers) res.set(headers); // most replies carry none
  res.statusCode = status;
  // What res.json + res.send would write for a JSON reply with ETags off (createApp turns them
  // off), without their walk through the app's settings, type lookup and freshness check.
  // HEAD, replies whose headers named another type, and responses whose `send` a fault
  // wrapped (`malformed` cuts the body there; only a request a fault fired on) keep Express's path.
  if (
    res.req.method === 'HEAD' ||
    res.hasHeader('Content-Type') ||
    (sim.fault && Object.hasOwn(res, 'send'))
  ) {
    res.json(out);
    return;
  }
  const text = JSON.stringify(out);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** A status with no body and no content type (e.g. the binding query's bare 404). */
export function sendEmpty(
  res: Response,
  status: number,
  opts: SendOptions,
  headers: Record<string, string> = {},
): void {
  if (failsSpec(res, status, undefined, undefined, opts)) return;
  res.removeHeader('Content-Type');
  res.set(headers).status(status).end();
}
