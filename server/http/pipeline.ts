import type { RequestHandler } from 'express';
import { faultHook } from '../control/faultHook.js';
import { rateLimitHook } from '../control/rateLimitHook.js';
import { journalRequests } from '../control/requestJournal.js';
import { slashRedirectTarget } from '../routes/transcriptionSlash.js';
import type { Services } from '../services.js';
import { ADMIN_PREFIX, API_PREFIXES, enabledPrefixes, STORAGE_PREFIX } from './apiPrefixes.js';
import { operationDispatcher } from './dispatch.js';
import type { MountedOperation, OperationHook } from './mountOperations.js';
import { requestContext } from './requestContext.js';
import { RequestIds } from './requestId.js';
import { surfaceClassifier } from './surfaces.js';

/*
 * The path of one request, in order. Partner API and storage host requests take every step;
 * the control API (/__admin) takes 1-3, its guard (http/adminGuard.ts), then 4, 5, 9-11.
 *
 * Every request, one app-level layer (`requestFront`), each step calling the next directly:
 *   1. context      http/requestContext.ts    res.locals.sim; X-Request-Id (http/requestId.ts);
 *                                             a shared store's mirrors synced
 *   2. journal      control/requestJournal.ts the recording starts; the entry is written when
 *                                             the connection is done (on a shared store, before
 *                                             the answer's last byte)
 *   3. dispatch     http/dispatch.ts          a partner-API path spelled exactly goes straight
 *                                             to its operation (4); anything else walks the
 *                                             routers of app.ts (surface mounts, /storage,
 *                                             the region prefixes, /__admin), which decide
 *                                             slashes, case, HEAD, 404 and 405
 * Per operation (http/mountOperations.ts, one chain per operation of the spec with a handler):
 *   4. body         body parsers, only for operations that declare a request body
 *   5. operation    sim.op; `--break-response` as the answer's effect (decided at mount)
 *   6. storage      fault: `storageHooks` (before anything: S3 checks the URL first)
 *   7. credentials  partner API: from the operation's `security` (http/auth.ts)
 *   8. partner API  fault, then the live rate limit: `apiHooks` (after credentials, so a
 *                   rule's client_id is the verified app)
 *   9. validation   partner API: the request against the spec (422 naming every field)
 *  10. handler      routes/*.ts, admin/*.ts: thin, one domain call, returns its reply
 *  11. send point   http/send.ts: the effects decided in 5-8 applied (a fault's cut body or
 *                   wrong ETag, --break-response), the answer held to the spec with
 *                   --validate-responses (spec/conformance.ts), written
 * On any throw in 4-10: http/errorHandler.ts turns the SimError into the surface's answer
 * (JSON, or S3 XML on storage) and writes it through the same send point (11).
 */

export interface OperationHooks {
  /** Step 6: on the storage host, before anything else. */
  storage: OperationHook[];
  /** Step 8: on the partner API, after credentials and before validation. */
  api: OperationHook[];
}

/**
 * The hooks of steps 6 and 8. An injected fault stands for the infrastructure in front of the
 * service, so it answers before the limiter counts anything.
 */
export function operationHooks(services: Services): OperationHooks {
  const faults = faultHook(services);
  const api = [faults];
  if (services.deps.config.liveRateLimits) api.push(rateLimitHook(services.rateLimits));
  return { storage: [faults], api };
}

/** Steps 1-3, as the app's first layer: `apiOperations` are what step 3 dispatches to. */
export function requestFront(services: Services, apiOperations: MountedOperation[]): RequestHandler {
  const surfaceOf = surfaceClassifier(
    API_PREFIXES.map(([p]) => p),
    STORAGE_PREFIX,
    ADMIN_PREFIX,
  );
  const dispatch = operationDispatcher(
    enabledPrefixes(API_PREFIXES, services.deps.config.regions),
    apiOperations,
    (p) => slashRedirectTarget(p) !== undefined,
  );
  const ids = new RequestIds(services.deps.random.fork('request-ids'));
  return requestContext(services.deps.store, ids, journalRequests(services, surfaceOf, dispatch));
}
