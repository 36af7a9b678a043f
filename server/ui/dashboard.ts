import { readdir, readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { type RequestHandler, Router } from 'express';
import { WEBHOOK_DELIVERY } from '../control/faultModel.js';
import { SimError } from '../core/errors.js';
import { fromRoot } from '../core/root.js';
import { API_PREFIXES } from '../http/apiPrefixes.js';
import { adminSpec, apiSpec, type SchemaObject } from '../spec/openapi.js';

/**
 * The dashboard at `/__admin/ui`: one HTML shell rendered once (with what the page must know
 * from the specs: operation ids, statuses, fault actions, region prefixes) and a few static
 * ES modules and a stylesheet from server/ui/assets. These routes hold no data, so they sit
 * outside the admin guard; every data call the page makes goes through the guarded control
 * API (and the partner API, with the chosen app's credentials).
 */
const ASSETS = fromRoot('server', 'ui', 'assets');
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
// Nothing loads from anywhere but the simulator, and nothing inline runs.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export interface DashboardConfig {
  operations: string[];
  statuses: string[];
  faultActions: string[];
  outcomes: string[];
  webhookFaults: string[];
  /** The pseudo-operation of delivery fault rules. */
  webhookOperation: string;
  regions: Record<string, string>;
}

function enumOf(schema: unknown, prop?: string): string[] {
  const s = schema as SchemaObject | undefined;
  const target = prop ? (s?.properties?.[prop] as SchemaObject | undefined) : s;
  return (target?.enum as string[] | undefined) ?? [];
}

/** What the page needs from the two documents, read once. */
export function dashboardConfig(): DashboardConfig {
  const schemas = adminSpec().doc.components?.schemas ?? {};
  const regions: Record<string, string> = {};
  for (const [prefix, region] of API_PREFIXES) regions[region] ??= prefix;
  return {
    operations: [...apiSpec().operations.keys()].sort(),
    statuses: enumOf(schemas.TranscriptionStatus),
    faultActions: enumOf(schemas.FaultRule, 'action'),
    outcomes: enumOf(schemas.FaultRule, 'transcription_outcome'),
    webhookFaults: enumOf(schemas.FaultRule, 'webhook_fault'),
    webhookOperation: WEBHOOK_DELIVERY,
    regions,
  };
}

/** The shell with the config embedded as inert JSON (`<` escaped so it cannot end the tag). */
export function renderShell(template: string, config: DashboardConfig): string {
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  return template.replace('"SIM_CONFIG"', json);
}

let cache: Promise<Map<string, { type: string; body: string }>> | undefined;

/** Read the assets and render the shell on first use; every later request is a map lookup. */
function load(): Promise<Map<string, { type: string; body: string }>> {
  cache ??= (async () => {
    const files = new Map<string, { type: string; body: string }>();
    for (const name of await readdir(ASSETS)) {
      const type = TYPES[extname(name)];
      if (type) files.set(name, { type, body: await readFile(`${ASSETS}/${name}`, 'utf8') });
    }
    const shell = renderShell(await readFile(`${ASSETS}/dashboard.html`, 'utf8'), dashboardConfig());
    files.set('', { type: 'text/html; charset=utf-8', body: shell });
    return files;
  })();
  // A failed read is tried again on the next request, not cached for the life of the process.
  cache.catch(() => {
    cache = undefined;
  });
  return cache;
}

const serve: RequestHandler = async (req, res, next) => {
  const name = req.path === '/' ? '' : req.path.slice(1);
  const file = (await load()).get(name);
  if (!file) return next();
  res
    .set({ 'content-type': file.type, 'cache-control': 'no-cache', 'content-security-policy': CSP })
    .set('x-content-type-options', 'nosniff')
    .send(file.body);
};

export function dashboardRouter(): Router {
  const router = Router({ caseSensitive: true });
  router.get(/^\/[\w.-]*$/, serve);
  // Nothing else lives under /ui: an unknown asset is a 404, not the control API's 401.
  router.use((req) => {
    throw SimError.notFound('NOT_FOUND', `No dashboard file at ${req.originalUrl.split('?')[0]}`);
  });
  return router;
}
