import express, { type RequestHandler, Router } from 'express';
import { SimError } from './core/errors.js';
import { regionNotEnabled } from './core/regions.js';
import { deviceCors } from './device/cors.js';
import { deviceHandlers } from './device/handlers.js';
import { apiDocs, DOCS_PATH } from './docs/apiDocs.js';
import { caPage } from './docs/caPage.js';
import { adminInBrowser, indexPage } from './docs/indexPage.js';
import { API_SERVERS, servedSpec } from './docs/servedSpec.js';
import type { Region } from './domain/apps.js';
import { adminGuard } from './http/adminGuard.js';
import {
  ADMIN_PREFIX,
  API_PREFIXES,
  DEVICE_PREFIXES,
  enabledPrefixes,
  STORAGE_PREFIX,
} from './http/apiPrefixes.js';
import { errorHandler } from './http/errorHandler.js';
import { jsonBody } from './http/jsonBody.js';
import { mountOperations, publicUrlOf } from './http/mountOperations.js';
import { nearestPath } from './http/nearestPath.js';
import { operationHooks, requestFront } from './http/pipeline.js';
import { type SimLocals, simLocals } from './http/types.js';
import { adminHandlers, apiHandlers } from './routes/index.js';
import { transcriptionSlashRedirects } from './routes/transcriptionSlash.js';
import { type CoreDeps, createServices, type Services } from './services.js';
import { adminSpec, apiSpec, deviceSpec } from './spec/openapi.js';
import { CA_PATH } from './tls/caFiles.js';
import { dashboardRouter } from './ui/dashboard.js';

export interface AppDeps extends CoreDeps {
  /** Prebuilt services (the CLI builds them to seed fixtures first); built from deps if absent. */
  services?: Services;
}

/** The storage prefix in any case, followed by a path, a query or nothing. */
const STORAGE_ANY_CASE = new RegExp(`^${STORAGE_PREFIX}(?=/|\\?|$)`, 'i');

const surface =
  (s: SimLocals['surface'], region?: Region): RequestHandler =>
  (_req, res, next) => {
    const sim = simLocals(res);
    sim.surface = s;
    if (region) sim.region = region;
    next();
  };

/** An unknown path: a 404 that names the operation probably meant, in the body and X-Sim-Warning. */
const notFound: RequestHandler = (req) => {
  const path = req.originalUrl.split('?')[0]!;
  const near = nearestPath(req.method, path);
  const hint = near === undefined ? '' : `did you mean ${near}?`;
  throw new SimError(404, 'NOT_FOUND', `No operation at ${req.method} ${path}${hint && `; ${hint}`}`, {
    headers: hint ? { 'X-Sim-Warning': hint } : {},
  });
};

/**
 * A region `--regions` leaves out (EU, SG: "Coming soon" on live, where their hosts do not
 * resolve): its prefix answers a 404 that names the flag, whatever the path under it.
 */
const regionOff =
  (enabled: readonly Region[], region: Region): RequestHandler =>
  () => {
    throw SimError.notFound('REGION_NOT_ENABLED', regionNotEnabled(enabled, region));
  };

/**
 * Build the Express app: partner API (per region prefix), storage host, control API. Never
 * listens — the CLI does, and tests listen on port 0.
 */
export function createApp(deps: AppDeps): express.Express {
  const services = deps.services ?? createServices(deps);
  const { config, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // No validators, so no conditional answers: without this, `If-None-Match: *` turned the
  // served documents and the docs page into a 304 no operation declares.
  Object.defineProperty(app.request, 'fresh', { configurable: true, get: () => false });
  // One path rule everywhere (docs/architecture.md "Paths"): case-sensitive, as the live
  // service is; set before the first `use`, which builds the app's router. Every Router
  // below says so too (a Router does not inherit the app's setting).
  app.set('case sensitive routing', true);
  // The order every request takes is listed in http/pipeline.ts.
  const hooks = operationHooks(services);
  // Strict too: a presigned URL's path is what was signed, trailing slash included.
  const storage = Router({ caseSensitive: true, strict: true });
  mountOperations(storage, apiSpec(), apiHandlers, {
    services,
    include: (op) => op.storage,
    authenticate: false,
    validateRequests: false,
    beforeAuth: hooks.storage,
  });
  // S3 checks a signed request's signature before it looks up the key, and the signature
  // covers the path: a signed URL whose path was changed (case, a trailing slash) is
  // SignatureDoesNotMatch. Unsigned, an unknown key is NoSuchKey (only codes of its enum).
  const storageMiss: RequestHandler = (req) => {
    const q = req.originalUrl.indexOf('?');
    if (q >= 0 && new URLSearchParams(req.originalUrl.slice(q + 1)).has('X-Amz-Signature')) {
      throw SimError.forbidden(
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      );
    }
    throw SimError.notFound('NoSuchKey', 'The specified key does not exist.');
  };

  const api = Router({ caseSensitive: true });
  api.use(transcriptionSlashRedirects(config.publicUrl));
  const apiOperations = mountOperations(api, apiSpec(), apiHandlers, {
    services,
    bodyParsers: [jsonBody({ limit: '1mb' }), express.urlencoded({ extended: false, limit: '1mb' })],
    include: (op) => !op.storage,
    afterAuth: hooks.api,
  });
  api.use(notFound);

  // Steps 1-3 of every request (context, journal, dispatch): see http/pipeline.ts.
  app.use(requestFront(services, apiOperations));
  app.use(STORAGE_PREFIX, surface('storage'), storage, storageMiss);
  // The storage prefix in another case (`/STORAGE/…`) is still the storage host, as a host
  // name would be, but no signed path starts so: the rule above answers it.
  app.use(STORAGE_ANY_CASE, surface('storage'), storageMiss);
  for (const [prefix, region] of API_PREFIXES) {
    if (config.regions.includes(region)) app.use(prefix, surface('api', region), api);
    else app.use(prefix, surface('api'), regionOff(config.regions, region));
  }

  // The dashboard's page and assets hold no data: reachable without the admin token; the
  // page's own data calls go through the guarded control API below.
  app.use(`${ADMIN_PREFIX}/ui`, surface('admin'), dashboardRouter());
  // The banner names /__admin: a browser opening it wants the dashboard, not a JSON 404.
  app.get(ADMIN_PREFIX, adminInBrowser);
  const admin = Router({ caseSensitive: true });
  // Host, Origin, admin token and JSON-only checks run before any body is read.
  admin.use(adminGuard(config));
  mountOperations(admin, adminSpec(), adminHandlers, {
    services,
    include: () => true,
    authenticate: false,
    bodyParsers: [jsonBody({ limit: '1mb' })],
  });
  admin.use(notFound);
  app.use(ADMIN_PREFIX, surface('admin'), admin);

  // The device protocol: what a phone's SDK does over Bluetooth, per region of its base URL.
  // No admin token (phones are apps, not operators); CORS open for browser doubles.
  const device = Router();
  device.use(deviceCors);
  mountOperations(device, deviceSpec(), deviceHandlers, {
    services,
    include: () => true,
    bodyParsers: [jsonBody({ limit: '64kb' })],
  });
  device.use(notFound);
  for (const [prefix, region] of DEVICE_PREFIXES) {
    if (config.regions.includes(region)) app.use(prefix, surface('device', region), device);
    else app.use(prefix, surface('device'), regionOff(config.regions, region));
  }

  app.use(apiDocs(config.publicUrl));
  app.use(CA_PATH, caPage(config));
  app.get('/openapi.yaml', (req, res) => {
    res.type('text/yaml').send(servedSpec(apiSpec(), publicUrlOf(req, config.publicUrl), API_SERVERS));
  });
  app.get('/', indexPage, (req, res) => {
    const base = publicUrlOf(req, config.publicUrl);
    res.json({
      name: 'partner-sim',
      api: Object.fromEntries(
        enabledPrefixes(API_PREFIXES, config.regions).map(([p, r]) => [
          p.startsWith('/us') ? 'us-alias' : r,
          base + p,
        ]),
      ),
      storage: base + STORAGE_PREFIX,
      admin: base + ADMIN_PREFIX,
      openapi: `${base}/openapi.yaml`,
      docs: `${base}${DOCS_PATH}`,
      admin_openapi: `${base}${ADMIN_PREFIX}/openapi.yaml`,
    });
  });
  app.use(notFound);
  app.use(errorHandler(config, logger, (id) => services.apps.get(id)));
  return app;
}
