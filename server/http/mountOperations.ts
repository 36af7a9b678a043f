import type { Request, RequestHandler, Response, Router } from 'express';
import { SimError } from '../core/errors.js';
import type { Region } from '../domain/apps.js';
import type { Services } from '../services.js';
import type { OperationInfo, SpecIndex } from '../spec/openapi.js';
import { validatorsFor } from '../spec/validators.js';
import { authenticatorFor } from './auth.js';
import { mountMethodNotAllowed } from './methodNotAllowed.js';
import { sendEmpty, sendJson } from './send.js';
import { type AuthInfo, type Handler, type Handlers, type OpContext, type OpId, simLocals } from './types.js';

/**
 * A hook runs for every operation before its handler (fault injection, rate limits). It sees
 * the operation and who the caller is, and returns true when it has answered the request.
 */
export type OperationHook = (
  op: OperationInfo,
  req: Request,
  res: Response,
  auth: AuthInfo,
) => Promise<boolean> | boolean;

export interface MountOptions {
  services: Services;
  /** Which of the document's operations belong on this router. */
  include: (op: OperationInfo) => boolean;
  /** Runs before authentication (faults that must fire whoever calls). */
  beforeAuth?: OperationHook[];
  /** Runs after authentication, before validation (faults and limits scoped to an app). */
  afterAuth?: OperationHook[];
  /**
   * Check credentials here. The control API turns it off (its own token check runs on the
   * router), and so do storage operations, whose credential is the presigned URL itself.
   */
  authenticate?: boolean;
  /**
   * Validate requests against the spec before the handler. Storage turns it off because S3
   * checks the signature before anything else and reports in its own XML codes.
   */
  validateRequests?: boolean;
  /**
   * Body parsers, run only on operations that declare a request body: a body sent to any
   * other operation is ignored unread, so it can never turn a GET into a 413, 415 or 422.
   */
  bodyParsers?: RequestHandler[];
}

export function publicUrlOf(req: Request, configured: string | undefined): string {
  return configured ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

/**
 * Mount every operation of `spec` that has a handler: the routes come from the document, not
 * from hand-written paths, so the spec and the server cannot drift apart. Per request: hooks,
 * credentials (from the operation's `security`), validation (422 naming every bad field),
 * the thin handler, then the reply (validated against the spec in tests).
 */
/** An operation as mounted: the handlers that serve it, in order (body parsers, then the route). */
export interface MountedOperation {
  op: OperationInfo;
  chain: RequestHandler[];
}

export function mountOperations(
  router: Router,
  spec: SpecIndex,
  handlers: Handlers,
  opts: MountOptions,
): MountedOperation[] {
  const { services } = opts;
  const { config } = services.deps;
  // Validators are built on the first request, not here: ajv's set-up would cost start-up time.
  const validators = () => validatorsFor(spec);
  const mounted: MountedOperation[] = [];
  const sendOpts = { config, spec };
  const beforeAuth = opts.beforeAuth ?? [];
  const afterAuth = opts.afterAuth ?? [];
  // HEAD operations first: Express answers HEAD with a path's GET route when that comes
  // first, and the request would then be faulted and journaled as the GET operation.
  const ops = [...spec.operations.values()].sort(
    (a, b) => Number(b.method === 'head') - Number(a.method === 'head'),
  );
  for (const op of ops) {
    const handler = handlers[op.id as OpId] as Handler<OpId> | undefined;
    if (!handler || !opts.include(op)) continue;
    type Answer = { status: number; body?: unknown; headers?: Record<string, string>; warnings?: string[] };
    const send = (res: Response, reply: Answer | undefined): void => {
      if (!reply || res.headersSent) return;
      let headers = reply.headers;
      if (reply.warnings?.length) {
        simLocals(res).warnings = reply.warnings;
        headers = { ...headers, 'X-Sim-Warning': headerText(reply.warnings.join('; ')) };
      }
      if (reply.body === undefined) sendEmpty(res, reply.status, sendOpts, headers);
      else sendJson(res, reply.status, reply.body, sendOpts, headers);
    };
    const serve = (req: Request, res: Response, auth: AuthInfo): void | Promise<void> => {
      const sim = simLocals(res);
      const hasBody = req.body !== undefined;
      // Express 5 parses req.query anew on every access: take it once, so the values the
      // validator coerces (and the defaults it fills in) are the ones the handler gets.
      const query = req.query as Record<string, unknown>;
      if (opts.validateRequests !== false) {
        const issues = validators().validateRequest(op, {
          query,
          headers: req.headers,
          params: req.params,
          body: req.body,
          contentType: req.headers['content-type']?.split(';')[0]?.trim().toLowerCase(),
          hasBody,
        });
        if (issues.length > 0) throw SimError.validation(issues);
      }
      const ctx = new Context(
        req,
        res,
        op,
        sim.region,
        auth,
        services,
        (hasBody ? req.body : undefined) as never,
        query as never,
      );
      const reply = handler(ctx) as Answer | undefined | Promise<Answer | undefined>;
      return reply instanceof Promise ? reply.then((r) => send(res, r)) : send(res, reply);
    };
    // Synchronous from hooks to reply whenever every step is (a binding query, with no fault
    // rule): a promise per step cost more than the step, and so did a closure or an argument
    // array per request. Errors thrown here reach the router either way (a throw, or a
    // rejected promise).
    const check = opts.authenticate === false ? undefined : authenticatorFor(op);
    const authed: Step = (req, res) => {
      const sim = simLocals(res);
      const auth = check ? check(req, services, sim.region) : {};
      sim.auth = auth;
      return hooksThen(afterAuth, op, req, res, auth, serve);
    };
    const route: RequestHandler = (req, res) => {
      simLocals(res).op = op;
      return hooksThen(beforeAuth, op, req, res, {}, authed);
    };
    const parsers = op.operation.requestBody ? (opts.bodyParsers ?? []) : [];
    router[op.method](op.expressPath, ...parsers, route);
    mounted.push({ op, chain: [...parsers, route] });
  }
  mountMethodNotAllowed(
    router,
    mounted.map((m) => m.op),
  );
  return mounted;
}

/**
 * Text as a header value can carry it: printable ASCII (anything else escaped as \uXXXX, so a
 * client-chosen name with CR/LF or non-Latin-1 characters can never make `setHeader` throw) and
 * at most 2 KB, so every client can read it. Domain code returns plain text.
 */
export function headerText(text: string): string {
  const safe = text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return safe.length > 2048 ? `${safe.slice(0, 2045)}...` : safe;
}

type Step = (req: Request, res: Response, auth: AuthInfo) => void | Promise<void>;

/** Run `hooks` in order, then `rest`: synchronously as long as every hook answers so. */
function hooksThen(
  hooks: OperationHook[],
  op: OperationInfo,
  req: Request,
  res: Response,
  auth: AuthInfo,
  rest: Step,
  from = 0,
): void | Promise<void> {
  for (let i = from; i < hooks.length; i++) {
    const done = hooks[i]!(op, req, res, auth);
    if (done === true) return;
    if (done !== false)
      return done.then((answered) =>
        answered ? undefined : hooksThen(hooks, op, req, res, auth, rest, i + 1),
      );
  }
  return rest(req, res, auth);
}

/**
 * What a handler gets. A class, so the public URL is a getter of the prototype (worked out
 * only by the few handlers that write URLs) and not a new accessor per request.
 */
class Context implements OpContext<OpId> {
  readonly params: never;
  constructor(
    readonly req: Request,
    readonly res: Response,
    readonly op: OperationInfo,
    readonly region: Region,
    readonly auth: AuthInfo,
    readonly services: Services,
    readonly body: never,
    readonly query: never,
  ) {
    this.params = req.params as never;
  }

  get publicUrl(): string {
    return publicUrlOf(this.req, this.services.deps.config.publicUrl);
  }
}
