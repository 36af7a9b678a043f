import type { Request, Response } from 'express';
import { SimError } from '../core/errors.js';
import type { OperationHook } from '../http/mountOperations.js';
import { simLocals } from '../http/types.js';
import type { Services } from '../services.js';
import type { OperationInfo } from '../spec/openapi.js';
import { FAULT_HEADER, parseFaultHeader, preferredFault } from './faultHeader.js';
import type { FaultEffect, FaultSubject } from './faults.js';
import { requestOwner } from './owner.js';

/** Error codes of injected statuses: the partner API's style, and S3's on the storage host. */
const API_CODES: Record<number, string> = {
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};
const S3_CODES: Record<number, string> = {
  429: 'SlowDown',
  500: 'InternalError',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
  504: 'GatewayTimeout',
};

const first = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;

async function subjectOf(services: Services, op: string, req: Request, res: Response): Promise<FaultSubject> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const part = first(req.query.partNumber);
  return {
    operation: op,
    client_id: await requestOwner(services, req, res),
    sn: first(req.query.sn) ?? (typeof body.sn === 'string' ? body.sn : undefined),
    part_number: part !== undefined && /^\d+$/.test(part) ? Number(part) : undefined,
    user_id: typeof body.user_id === 'string' ? body.user_id : undefined,
    path: req.originalUrl,
  };
}

/**
 * Fault injection at the hook point of every partner operation (after authentication on the
 * API, before anything on the storage host): an `X-Sim-Fault` header, else the first stored
 * rule that applies. Decided before the handler: a delay waits here, a reset or hang drops the
 * request, an injected status answers it (returns true); `malformed` and `wrong_etag` become
 * the answer's effect (`sim.effect`), applied by the send point to whatever answer follows.
 */
export function faultHook(services: Services): OperationHook {
  const apply = async (
    op: OperationInfo,
    req: Request,
    res: Response,
    header: string | undefined,
    prefer: string | undefined,
  ) => {
    // X-Sim-Fault wins over Prism's Prefer: code=…, and either over the stored rules.
    const effect =
      header !== undefined
        ? parseFaultHeader(header, op.id)
        : ((prefer !== undefined ? preferredFault(prefer, op.id) : undefined) ??
          (await services.faults.pick(await subjectOf(services, op.id, req, res))));
    if (!effect) return false;
    const sim = simLocals(res);
    const shaped =
      effect.status !== undefined || (effect.action !== undefined && effect.action !== 'wrong_etag');
    sim.fault = { id: effect.id, action: effect.action, shaped };
    if (effect.delay_ms && !(await pause(services, req, res, effect.delay_ms))) return true;
    switch (effect.action) {
      case 'reset':
        // An RST, not a polite FIN: the client sees ECONNRESET, as with a dropped connection.
        req.socket.resetAndDestroy();
        return true;
      case 'hang': {
        const done = services.faults.hold(() => req.socket.destroy());
        res.once('close', done);
        return true;
      }
      // Decided here, applied where the answer is written (http/send.ts), whoever writes it.
      case 'malformed':
        sim.effect = { ...sim.effect, truncate: { status: effect.status } };
        return false;
      case 'wrong_etag':
        sim.effect = { ...sim.effect, wrongEtag: true };
        return false;
    }
    if (effect.status === undefined) return false;
    answer(res, effect, sim.surface === 'storage');
    return true;
  };
  // Synchronous when nothing can apply (the common case): no promise, no await per request.
  return (op, req, res) => {
    const header = first(req.headers[FAULT_HEADER]);
    const prefer = first(req.headers.prefer);
    if (header === undefined && prefer === undefined && services.faults.size === 0) return false;
    return apply(op, req, res, header, prefer);
  };
}

/** Wait `ms` of real time (latency is felt by real clients); false when the client left. */
function pause(services: Services, req: Request, res: Response, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = services.faults.hold(() => req.socket.destroy());
    const timer = setTimeout(() => {
      res.off('close', gone);
      done();
      resolve(!res.destroyed);
    }, ms);
    const gone = () => {
      clearTimeout(timer);
      done();
      resolve(false);
    };
    res.once('close', gone);
  });
}

function answer(res: Response, effect: FaultEffect, storage: boolean): void {
  const status = effect.status!;
  const headers = { ...effect.headers };
  // A 429 without Retry-After would leave a client's back-off nothing to go on.
  if (status === 429 && !Object.keys(headers).some((h) => h.toLowerCase() === 'retry-after')) {
    headers['Retry-After'] = '1';
  }
  if (effect.body !== undefined) {
    if (status >= 300) simLocals(res).answer = effect.body;
    res.status(status).set(headers);
    if (typeof effect.body === 'string') res.send(effect.body);
    else res.json(effect.body);
    return;
  }
  if (status < 400) {
    res.status(status).set(headers).end();
    return;
  }
  const code = (storage ? S3_CODES : API_CODES)[status] ?? (storage ? 'InjectedFault' : 'INJECTED_FAULT');
  const message = effect.message ?? `Injected fault (${effect.id === 'header' ? FAULT_HEADER : effect.id})`;
  // The error handler renders it as every other error of this surface (JSON or S3 XML).
  throw new SimError(status, code, message, { headers });
}
