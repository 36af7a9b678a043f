import { createHash } from 'node:crypto';
import type { Response } from 'express';
import type { Config } from '../config.js';
import { answerViolations } from '../spec/conformance.js';
import type { SpecIndex } from '../spec/openapi.js';
import { type AnswerEffect, simLocals } from './types.js';

export interface SendOptions {
  config: Config;
  spec: SpecIndex;
}

/**
 * The single send point of the partner API and the storage host: every answer an operation
 * or the error handler writes goes out through `sendJson`, `sendEmpty` or `sendXml`. Here, and
 * only here, the answer's effects decided before the handler ran (`sim.effect`: a fault's cut
 * body or wrong ETag, `--break-response`) are applied, and with `--validate-responses` the
 * answer is held to the spec (server/spec/conformance.ts) before a byte is written.
 */

type Headers = Record<string, string>;

/** Remove `field` (dotted path) from a copy of `body`: `--break-response` on a JSON body. */
function dropJsonField(body: unknown, field: string): unknown {
  if (body === null || typeof body !== 'object') return body;
  const copy = structuredClone(body) as Record<string, unknown>;
  const path = field.split('.');
  let cur: Record<string, unknown> | undefined = copy;
  for (const k of path.slice(0, -1)) cur = cur?.[k] as Record<string, unknown> | undefined;
  if (cur) delete cur[path[path.length - 1]!];
  return copy;
}

/** `--break-response` on an S3 error document: the element named `field` removed. */
const dropXmlElement = (xml: string, field: string): string =>
  xml.replace(new RegExp(`<${field}>[\\s\\S]*?</${field}>`), '');

/** `wrong_etag`: the part is stored, but the ETag header names other bytes. */
function withEffectHeaders(
  headers: Headers | undefined,
  effect: AnswerEffect | undefined,
): Headers | undefined {
  if (!effect?.wrongEtag || !headers) return headers;
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] =
      name.toLowerCase() === 'etag'
        ? `"${createHash('md5').update(`partner-sim/wrong-etag/${value}`).digest('hex')}"`
        : value;
  }
  return out;
}

/**
 * With `--validate-responses`, answer a response that breaks the spec with a 500 naming the
 * violation instead, and say so. Answers a fault or an app's quirk switch shaped are
 * deliberate: never checked.
 */
function failsSpec(
  res: Response,
  status: number,
  contentType: string | undefined,
  body: unknown,
  headers: Headers | undefined,
  opts: SendOptions,
): boolean {
  const sim = simLocals(res);
  if (!opts.config.validateResponses || !sim.op || sim.fault?.shaped || sim.quirk) return false;
  const all: Record<string, string | string[] | number | undefined> = { ...res.getHeaders() };
  for (const [name, value] of Object.entries(headers ?? {})) all[name.toLowerCase()] = value;
  all['content-type'] = contentType;
  const violations = answerViolations(opts.spec, sim.op, { status, headers: all, body });
  if (violations.length === 0) return false;
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  const answer = { detail: 'RESPONSE_VALIDATION_FAILED', message: violations.join('; ') };
  sim.answer = answer;
  res.status(500).json(answer);
  return true;
}

/** `malformed`: the answer goes out, but its body arrives cut in half. */
function sendCut(res: Response, text: string, contentType: string, effect: AnswerEffect): void {
  const bytes = Buffer.from(text);
  if (effect.truncate?.status !== undefined) res.status(effect.truncate.status);
  if (!res.get('Content-Type')) res.type(contentType);
  res.send(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))));
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
  headers?: Headers,
): void {
  const effect = simLocals(res).effect;
  const out = effect?.dropField ? dropJsonField(body, effect.dropField) : body;
  const sent = withEffectHeaders(headers, effect);
  if (failsSpec(res, status, 'application/json', out, sent, opts)) return;
  // Why a request failed, for the journal's excerpt (control/requestJournal.ts).
  if (status >= 300) simLocals(res).answer = out;
  // statusCode directly: the status comes from the spec's own replies, always a valid code.
  if (sent) res.set(sent); // most replies carry none
  res.statusCode = status;
  if (effect?.truncate) {
    sendCut(res, JSON.stringify(out), 'application/json', effect);
    return;
  }
  // What res.json + res.send would write for a JSON reply with ETags off (createApp turns them
  // off), without their walk through the app's settings, type lookup and freshness check.
  // HEAD and replies whose headers named another type keep Express's path.
  if (res.req.method === 'HEAD' || res.hasHeader('Content-Type')) {
    res.json(out);
    return;
  }
  const text = JSON.stringify(out);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** A status with no body and no content type (e.g. the binding query's bare 404). */
export function sendEmpty(res: Response, status: number, opts: SendOptions, headers: Headers = {}): void {
  const sent = withEffectHeaders(headers, simLocals(res).effect) ?? {};
  res.removeHeader('Content-Type');
  if (failsSpec(res, status, undefined, undefined, sent, opts)) return;
  res.set(sent).status(status).end();
}

/** An S3 error document of the storage host (a HEAD gets its status and headers alone). */
export function sendXml(res: Response, status: number, xml: string | undefined, opts: SendOptions): void {
  const effect = simLocals(res).effect;
  const out = xml !== undefined && effect?.dropField ? dropXmlElement(xml, effect.dropField) : xml;
  // A HEAD answer is checked as the document it stands for, whose body it leaves out.
  const type = out !== undefined || res.req.method === 'HEAD' ? 'application/xml' : undefined;
  if (failsSpec(res, status, type, out, undefined, opts)) return;
  res.status(status);
  if (out === undefined) {
    res.end();
    return;
  }
  if (effect?.truncate) {
    res.type('application/xml');
    sendCut(res, out, 'application/xml', effect);
    return;
  }
  res.type('application/xml').send(out);
}
