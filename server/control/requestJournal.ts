import type { RequestHandler, Response } from 'express';
import { beforeEnd } from '../http/beforeEnd.js';
import { type Surface, simLocals } from '../http/types.js';
import type { Services } from '../services.js';
import { outcome, type RecorderContext, Recording } from './journalRecording.js';
import { TrafficSummary } from './trafficSummary.js';

type WithRecording = Response & { locals: { recording?: Recording } };

/**
 * Answers that never reach `end` (hang and reset faults, cut connections) are recorded here,
 * when the connection is done with the request. One listener function for every response.
 */
function recordOnClose(this: WithRecording): void {
  const r = this.locals.recording;
  if (!r || r.recorded) return;
  try {
    r.recordOwned(outcome(this))?.catch((e: unknown) => r.failed(e));
  } catch (e) {
    r.failed(e);
  }
}

/**
 * Step 2 of the pipeline (http/pipeline.ts): records every request when its connection is
 * done with it: one journal entry (partner API and storage host) and one log line (every
 * surface: control API, device protocol, docs and pages too), at a level by status, so a CI
 * log shows what failed and `--log-level warn` keeps only that. On the request path only the
 * raw facts are taken; the entry is built and redacted when someone lists the journal or a
 * line is written. Everything recorded goes through the same redaction, so neither holds a
 * secret in clear. With the access log off, lines go at debug and a summary of the traffic is
 * logged at info at most once a minute. `then` is the next step, called directly (one walk of
 * Express's router per request fewer).
 */
export function journalRequests(
  services: Services,
  surfaceOf: (url: string) => Surface | undefined,
  then: RequestHandler,
): RequestHandler {
  const { clock, logger, config, store } = services.deps;
  const shared = store.shared;
  // A readable line in a terminal, a JSON line elsewhere (CI, files, collectors): one a request
  // either way. A JSON log turned off (PARTNER_SIM_ACCESS_LOG=off) gets a summary a minute.
  const readable = services.deps.requestLine;
  const ctx: RecorderContext = {
    services,
    logger,
    byStatus: config.accessLog || readable !== undefined,
    summary: new TrafficSummary(logger),
    readable,
  };
  return (req, res, next) => {
    const surface = surfaceOf(req.originalUrl);
    const journaled = surface === 'api' || surface === 'storage';
    // Outside the journal a request is recorded only for its log line: none, nothing to record.
    if (!journaled && !logger.isLevelEnabled(ctx.byStatus ? 'error' : 'debug')) {
      then(req, res, next);
      return;
    }
    const r = new Recording(ctx, req, res, surface, clock.now(), simLocals(res).startedAt);
    (res as WithRecording).locals.recording = r;
    if (journaled && shared) {
      // A shared journal: the entry commits before the answer's last byte, so a client that
      // next lists the journal through another instance sees its own request.
      const path = req.originalUrl;
      beforeEnd(res, async (status) => {
        try {
          await r.recordOwned({ status });
        } catch (e) {
          r.failed(e, path);
        }
      });
    }
    res.on('close', recordOnClose);
    then(req, res, next);
  };
}
