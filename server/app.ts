import express, { type RequestHandler, Router } from 'express';
import { SimError } from './core/errors.js';
import { apiDocs, DOCS_PATH } from './docs/apiDocs.js';
import { API_SERVERS, servedSpec } from './docs/servedSpec.js';
import type { Region } from './domain/apps.js';
import { adminGuard } from './http/adminGuard.js';
import { ADMIN_PREFIX, API_PREFIXES, STORAGE_PREFIX } from './http/apiPrefixes.js';
import { errorHandler } from './http/errorHandler.js';
import { mountOperations, publicUrlOf } from './http/mountOperations.js';
import { operationHooks, requestFront } from './http/pipeline.js';
import { type SimLocals, simLocals } from './http/types.js';
import { adminHandlers, apiHandlers } from './routes/index.js';
import { transcriptionSlashRedirects } from './routes/transcriptionSlash.js';
import { type CoreDeps, createServices, type Services } from './services.js';
import { adminSpec, apiSpec } from './spec/openapi.js';
import { dashboardRouter } from './ui/dashboard.js';

export interface AppDeps extends CoreDeps {
  /** Prebuilt services (the CLI builds them to seed fixtures first); built from deps if absent. */
  services?: Services;
}

const surface =
  (s: SimLocals['surface'], region?: Region): RequestHandler =>
  (_req, res, next) => {
    const sim = simLocals(res);
    sim.surface = s;
    if (region) sim.region = region;
    next();
  };

const notFound: RequestHandler = (req) => {
  throw SimError.notFound('NOT_FOUND', `No operation at ${req.method} ${req.originalUrl.split('?')[0]}`);
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
  // The order every request takes is listed in http/pipeline.ts.
  const hooks = operationHooks(services);
  const storage = Router();
  mountOperations(storage, apiSpec(), apiHandlers, {
    services,
    include: (op) => op.storage,
    authenticate: false,
    validateRequests: false,
    beforeAuth: hooks.storage,
  });
  // S3 names an unknown key NoSuchKey: the storage host speaks only codes of its enum.
  const noSuchKey: RequestHandler = () => {
    throw SimError.notFound('NoSuchKey', 'The specified key does not exist.');
  };

  const api = Router();
  api.use(transcriptionSlashRedirects(config.publicUrl));
  const apiOperations = mountOperations(api, apiSpec(), apiHandlers, {
    services,
    bodyParsers: [express.json({ limit: '1mb' }), express.urlencoded({ extended: false, limit: '1mb' })],
    include: (op) => !op.storage,
    afterAuth: hooks.api,
  });
  api.use(notFound);

  // Steps 1-3 of every request (context, journal, dispatch): see http/pipeline.ts.
  app.use(requestFront(services, apiOperations));
  app.use(STORAGE_PREFIX, surface('storage'), storage, noSuchKey);
  for (const [prefix, region] of API_PREFIXES) app.use(prefix, surface('api', region), api);

  // The dashboard's page and assets hold no data: reachable without the admin token; the
  // page's own data calls go through the guarded control API below.
  app.use(`${ADMIN_PREFIX}/ui`, surface('admin'), dashboardRouter());
  const admin = Router();
  // Host, Origin, admin token and JSON-only checks run before any body is read.
  admin.use(adminGuard(config));
  mountOperations(admin, adminSpec(), adminHandlers, {
    services,
    include: () => true,
    authenticate: false,
    bodyParsers: [express.json({ limit: '1mb' })],
  });
  admin.use(notFound);
  app.use(ADMIN_PREFIX, surface('admin'), admin);

  app.use(apiDocs(config.publicUrl));
  app.get('/openapi.yaml', (req, res) => {
    res.type('text/yaml').send(servedSpec(apiSpec(), publicUrlOf(req, config.publicUrl), API_SERVERS));
  });
  app.get('/', (req, res) => {
    const base = publicUrlOf(req, config.publicUrl);
    res.json({
      name: 'partner-sim',
      api: Object.fromEntries(API_PREFIXES.map(([p, r]) => [p.startsWith('/us') ? 'us-alias' : r, base + p])),
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
