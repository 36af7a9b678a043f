import type { Request, RequestHandler, Response } from 'express';
import { toIso } from '../core/clock.js';
import { claimedClientId } from '../http/claimedClientId.js';
import { simLocals } from '../http/types.js';
import type { Services } from '../services.js';
import type { JournalEntry } from '../store/store.js';
import { requestClientId } from './faultHook.js';
import { redactHeaders, scrub, summarizeBody } from './redact.js';

export type Surface = 'api' | 'storage' | 'admin';

function outcome(res: Response): { status: number; error?: string } {
  if (res.writableFinished) return { status: res.statusCode };
  const fault = simLocals(res).fault;
  if (res.headersSent) return { status: res.statusCode, error: 'response cut short: connection closed' };
  if (fault?.action === 'reset') return { status: 0, error: `connection reset by fault ${fault.id}` };
  if (fault?.action === 'hang')
    return { status: 0, error: `no response (hang fault ${fault.id}); connection closed` };
  return { status: 0, error: 'connection closed before a response was sent' };
}

/**
 * Records every request when its connection is done with it: one journal entry (partner
 * API and storage host) and one log line (info; the control API's own requests at debug).
 * Everything recorded goes through the same redaction, so neither holds a secret in clear.
 */
export function requestRecorder(
  services: Services,
  surfaceOf: (url: string) => Surface | undefined,
): RequestHandler {
  const { clock, logger } = services.deps;
  return (req, res, next) => {
    const surface = surfaceOf(req.originalUrl);
    const journaled = surface === 'api' || surface === 'storage';
    // The control API (and unknown paths) is only logged at debug: otherwise nothing to record.
    if (!journaled && !logger.isLevelEnabled('debug')) return next();
    const receivedMs = clock.now();
    const started = performance.now();
    // A throw inside a 'close' listener is an uncaught exception: it would end the process
    // over one bad journal entry or log line. Recording is best effort; serving is not.
    const failed = (e: unknown) => {
      try {
        logger.error({ err: e, path: scrub(req.originalUrl) }, 'request not recorded');
      } catch {
        // The logger itself failed: nothing left to tell.
      }
    };
    res.once('close', () => {
      try {
        const status = outcome(res);
        const found = surface === 'admin' ? undefined : requestClientId(services, req, res);
        // Only a storage request whose owner was never looked up waits for the store.
        if (found instanceof Promise) found.then((id) => record(status, id), failed).catch(failed);
        else record(status, found).catch(failed);
      } catch (e) {
        failed(e);
      }
    });
    const record = async (
      { status, error }: { status: number; error?: string },
      found: string | undefined,
    ) => {
      const sim = simLocals(res);
      const owner = surface === 'admin' ? {} : ownerOf(found, req, res, status);
      const entry: Omit<JournalEntry, 'id'> = {
        time: toIso(receivedMs),
        operation: sim.op?.id ?? null,
        method: req.method,
        path: scrub(req.originalUrl),
        status,
        latency_ms: Math.round((performance.now() - started) * 100) / 100,
        client_id: owner.clientId ?? null,
        ...(owner.unverified ? { unverified: true } : {}),
        ...(surface === 'api' ? { region: sim.region } : {}),
        headers: redactHeaders(req.headers),
        fault_id: sim.fault?.id ?? null,
        ...(journaled ? { surface } : {}),
        ...(error ? { error } : {}),
        ...(sim.warnings ? { warnings: sim.warnings } : {}),
      };
      const body = summarizeBody(req.body, req.headers);
      if (body !== undefined) entry.body_summary = body;
      if (journaled) {
        const saved = await services.journal.add(entry, receivedMs, owner.ring);
        logger.info({ ...lineOf(saved), ...detail(logger.isLevelEnabled('debug'), saved) }, 'request');
      } else {
        logger.debug({ ...lineOf({ id: '-', ...entry }), surface: surface ?? 'other' }, 'request');
      }
    };
    next();
  };
}

interface Owner {
  clientId?: string | undefined;
  /** The journal ring: an existing app's id, or undefined for the no-app ring. */
  ring?: string | undefined;
  unverified?: boolean;
}

/**
 * Which app a request belongs to. Verified: its credentials passed, or (storage) the signed
 * URL of one of the app's uploads was accepted. Otherwise the id it claimed, marked
 * `unverified`, always in the no-app ring: anyone can claim an id, so such requests must not
 * evict the app's own entries (or create rings); listing an app's journal still shows them.
 */
function ownerOf(found: string | undefined, req: Request, res: Response, status: number): Owner {
  const refusedUrl = simLocals(res).op?.storage && status === 403;
  if (found !== undefined && !refusedUrl) return { clientId: found, ring: found };
  const claimed = found ?? claimedClientId(req);
  if (claimed === undefined || claimed === '') return {};
  return { clientId: claimed, ring: undefined, unverified: true };
}

/**
 * The fields of a log line: everything but headers and body, which only debug adds. The
 * simulated arrival time becomes `sim_time`, beside pino's own (real) `time`.
 */
function lineOf(e: JournalEntry): Record<string, unknown> {
  const { headers: _h, body_summary: _b, time, ...line } = e;
  return { ...line, sim_time: time };
}

const detail = (debug: boolean, e: JournalEntry): Record<string, unknown> =>
  debug ? { headers: e.headers, body_summary: e.body_summary } : {};
