import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { SimError } from '../core/errors.js';
import type { PartnerApp } from '../domain/apps.js';
import { adminSpec, apiSpec, deviceSpec } from '../spec/openapi.js';
import { claimedClientId } from './claimedClientId.js';
import { jsonDecodeIssue } from './jsonSyntax.js';
import { sendEmpty, sendJson, sendXml } from './send.js';
import { simLocals } from './types.js';

const xmlEscape = (s: string): string =>
  s.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!,
  );

/** S3's error document, as clients of a bucket parse it. */
export function s3ErrorXml(code: string, message: string, resource: string, requestId: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${xmlEscape(code)}</Code><Message>${xmlEscape(message)}</Message>` +
    `<Resource>${xmlEscape(resource)}</Resource><RequestId>${requestId}</RequestId></Error>`
  );
}

/** Express body-parser failures are client mistakes: say so, FastAPI-style, never a 500. */
function fromParserError(err: {
  type?: string;
  status?: number;
  message?: string;
  body?: unknown;
}): SimError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return SimError.validation([jsonDecodeIssue(err)]);
    case 'entity.too.large':
      return new SimError(413, 'REQUEST_TOO_LARGE', 'Request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new SimError(415, 'UNSUPPORTED_ENCODING', err.message ?? 'Unsupported body encoding');
    case 'request.aborted':
      return new SimError(400, 'REQUEST_ABORTED', 'Client closed the request');
    default:
      // The router's own refusals, e.g. a path parameter with malformed percent-encoding
      // (`/files/%zz`), carry a 4xx status: still the client's mistake, never a 500.
      if (err instanceof URIError)
        return new SimError(400, 'InvalidURI', 'Malformed percent-encoding in the URL');
      if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
        return new SimError(err.status, 'BAD_REQUEST', err.message ?? 'Bad request');
      }
      return undefined;
  }
}

function jsonBody(err: SimError, req: Request, res: Response, config: Config, appOf: AppLookup): unknown {
  if (err.issues) return { detail: err.issues };
  const sim = simLocals(res);
  // A request refused before authentication finished (wrong token kind, expired token) still
  // gets its app's error shape: the claimed client id only picks a shape, it grants nothing.
  const app = sim.auth?.app ?? appOf(claimedClientId(req) ?? '');
  const shape = app?.error_shape === 'live' ? 'live' : config.errorShape;
  // The live auth endpoints answer {"detail": CODE}; its partner endpoints {code, message}.
  if (shape === 'live' && sim.surface === 'api' && !sim.op?.path.startsWith('/oauth/')) {
    return { code: err.status, message: `${err.code}: ${err.message}` };
  }
  return { detail: err.code, message: err.message };
}

/** The app a claimed client id names, if any (its error shape applies). */
export type AppLookup = (clientId: string) => PartnerApp | undefined;

/** The one place errors become HTTP: JSON on the API and admin surfaces, XML on storage. */
export function errorHandler(config: Config, logger: Logger, appOf: AppLookup): ErrorRequestHandler {
  const answer = answerError(config, logger, appOf);
  // The last resort: if answering the error fails too (a body that cannot be serialised, a
  // throwing hook), Express would fall back to its HTML page with a stack trace. Answer a
  // fixed body instead, built without serialising anything the request brought.
  return (raw, req, res, next) => {
    try {
      answer(raw, req, res, next);
    } catch (failure) {
      logger.error({ err: failure, method: req.method, path: req.path }, 'error handler failed');
      lastResort(res);
    }
  };
}

const FALLBACK_JSON =
  '{"detail":"INTERNAL_ERROR","message":"The simulator failed on this request; see its log"}';
const FALLBACK_XML = s3ErrorXml(
  'InternalError',
  'The simulator failed on this request; see its log',
  '',
  '0',
);

/** A 500 in the surface's own format, or a cut connection once headers went out. */
function lastResort(res: Response): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const storage = simLocals(res).surface === 'storage';
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  res.statusCode = 500;
  res.setHeader('Content-Type', storage ? 'application/xml' : 'application/json; charset=utf-8');
  simLocals(res).answer = storage ? FALLBACK_XML : FALLBACK_JSON;
  res.end(simLocals(res).answer as string);
}

function answerError(config: Config, logger: Logger, appOf: AppLookup): ErrorRequestHandler {
  // S3's x-amz-request-id: counted per app, so simulators in one process do not share it.
  let requestCounter = 0;
  return (raw, req, res, _next) => {
    let err: SimError;
    if (raw instanceof SimError) err = raw;
    else {
      const parsed = fromParserError(raw as { type?: string });
      if (parsed) err = parsed;
      else {
        logger.error({ err: raw, method: req.method, path: req.path }, 'unhandled error');
        err = new SimError(500, 'INTERNAL_ERROR', 'The simulator failed on this request; see its log');
      }
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const sim = simLocals(res);
    if (sim.surface === 'storage') {
      const requestId = (++requestCounter).toString(16).toUpperCase().padStart(16, '0');
      res.set(err.headers);
      const bodiless = err.bare || req.method === 'HEAD';
      const xml = bodiless
        ? undefined
        : s3ErrorXml(err.code, err.message, err.resource ?? req.path, requestId);
      if (xml !== undefined) sim.answer = xml;
      sendXml(res, err.status, xml, { config, spec: apiSpec() });
      return;
    }
    const spec = sim.surface === 'admin' ? adminSpec() : sim.surface === 'device' ? deviceSpec() : apiSpec();
    if (err.status === 401 && sim.surface === 'api') {
      const basic = sim.op?.security[0] && 'basicAuth' in sim.op.security[0];
      err.headers['WWW-Authenticate'] ??= basic ? 'Basic realm="partner"' : 'Bearer';
    }
    if (err.bare) sendEmpty(res, err.status, { config, spec }, err.headers);
    else sendJson(res, err.status, jsonBody(err, req, res, config, appOf), { config, spec }, err.headers);
  };
}
