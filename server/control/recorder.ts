import type { Request, RequestHandler, Response } from 'express';
import { toIso } from '../core/clock.js';
import { beforeEnd } from '../http/beforeEnd.js';
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
 * API and storage host) and, with `--access-log` (or at debug), one log line. On the request
 * path only the raw facts are taken; the entry is built and redacted when someone lists the
 * journal or a line is written. Everything recorded goes through the same redaction, so
 * neither holds a secret in clear. Without the access log, a summary of the traffic is
 * logged at info at most once a minute.
 */
export function requestRecorder(
  services: Services,
  surfaceOf: (url: string) => Surface | undefined,
): RequestHandler {
  const { clock, logger, config, store } = services.deps;
  const shared = store.shared;
  const lineLevel = config.accessLog ? 'info' : 'debug';
  const summary = new TrafficSummary(logger);
  return (req, res, next) => {
    simLocals(res);
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
    let recorded = false;
    const recordOwned = (o: { status: number; error?: string }): unknown => {
      recorded = true;
      const found = surface === 'admin' ? undefined : requestClientId(services, req, res);
      // Only a storage request whose owner was never looked up waits for the store.
      return found instanceof Promise ? found.then((id) => record(o, id)) : record(o, found);
    };
    if (journaled && shared) {
      // A shared journal: the entry commits before the answer's last byte, so a client that
      // next lists the journal through another instance sees its own request.
      beforeEnd(res, async (status) => {
        try {
          await recordOwned({ status });
        } catch (e) {
          failed(e);
        }
      });
    }
    // Answers that never reach `end` (hang and reset faults, cut connections) are recorded here.
    res.once('close', () => {
      if (recorded) return;
      try {
        const r = recordOwned(outcome(res));
        if (r instanceof Promise) r.catch(failed);
      } catch (e) {
        failed(e);
      }
    });
    const record = (
      { status, error }: { status: number; error?: string },
      found: string | undefined,
    ): Promise<void> | undefined => {
      const sim = simLocals(res);
      const latencyMs = Math.round((performance.now() - started) * 100) / 100;
      const owner = surface === 'admin' ? {} : ownerOf(found, req, res, status);
      const { headers, method, originalUrl } = req;
      // Parsed bodies are summarised now: keeping them until the entry is built could hold
      // megabytes per entry. Everything else kept is small and built into text later.
      const body = summarizeBody(req.body, headers);
      const opId = sim.op?.id ?? null;
      const { region, fault, warnings } = sim;
      const build = (): Omit<JournalEntry, 'id'> => {
        const entry: Omit<JournalEntry, 'id'> = {
          time: toIso(receivedMs),
          operation: opId,
          method,
          path: scrub(originalUrl),
          status,
          latency_ms: latencyMs,
          client_id: owner.clientId ?? null,
          ...(owner.unverified ? { unverified: true } : {}),
          ...(surface === 'api' ? { region } : {}),
          headers: redactHeaders(headers),
          fault_id: fault?.id ?? null,
          ...(journaled ? { surface } : {}),
          ...(error ? { error } : {}),
          ...(warnings ? { warnings } : {}),
        };
        if (body !== undefined) entry.body_summary = body;
        return entry;
      };
      if (!journaled) {
        logger.debug({ ...lineOf({ id: '-', ...build() }), surface: surface ?? 'other' }, 'request');
        return undefined;
      }
      summary.count(status, started);
      const line = (id: string) => {
        if (!logger.isLevelEnabled(lineLevel)) return;
        const e = { id, ...build() };
        logger[lineLevel]({ ...lineOf(e), ...detail(logger.isLevelEnabled('debug'), e) }, 'request');
      };
      const id = services.journal.add(
        { operation: opId, status, client_id: owner.clientId ?? null, build },
        receivedMs,
        owner.ring,
      );
      if (typeof id === 'string') line(id);
      else return id.then(line);
      return undefined;
    };
    next();
  };
}

/**
 * The info-level stand-in for per-request lines: how many partner API and storage requests
 * were answered, and how many failed, logged with the first request after each minute (no
 * timer, so an idle simulator writes nothing).
 */
export class TrafficSummary {
  private windowStart = performance.now();
  private requests = 0;
  private clientErrors = 0;
  private serverErrors = 0;

  constructor(private readonly logger: Services['deps']['logger']) {}

  count(status: number, nowMs: number): void {
    if (nowMs - this.windowStart >= 60_000) this.flush(nowMs);
    this.requests++;
    if (status >= 500 || status === 0) this.serverErrors++;
    else if (status >= 400) this.clientErrors++;
  }

  private flush(nowMs: number): void {
    if (this.requests > 0 && this.logger.isLevelEnabled('info')) {
      this.logger.info(
        {
          requests: this.requests,
          client_errors: this.clientErrors,
          server_errors_or_dropped: this.serverErrors,
          seconds: Math.round((nowMs - this.windowStart) / 1000),
        },
        'traffic summary (per-request lines: --access-log)',
      );
    }
    this.windowStart = nowMs;
    this.requests = this.clientErrors = this.serverErrors = 0;
  }
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
