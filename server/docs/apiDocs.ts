import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import express, { type RequestHandler, Router } from 'express';

/**
 * `GET /docs`: the API reference, rendered in the browser by Swagger UI from the served
 * `/openapi.yaml` (and the control API's document, one pick away). Every asset comes from the
 * installed `swagger-ui-dist` package under a versioned path, so nothing is fetched from
 * outside, the page works offline, and the assets can be cached for a year: a new version of
 * the viewer is a new path. The Content-Security-Policy makes "nothing from outside" a rule the
 * browser enforces, not only a property of today's bundle.
 */
const ASSET_FILES = new Set([
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'favicon-16x16.png',
  'favicon-32x32.png',
]);

export const DOCS_PATH = '/docs';

// `validatorUrl: null`: Swagger UI would otherwise send the document to validator.swagger.io.
const INIT_JS = `window.ui = SwaggerUIBundle({
  urls: [
    { url: '/openapi.yaml', name: 'Partner API (openapi.yaml)' },
    { url: '/__admin/openapi.yaml', name: 'Control API (admin.openapi.yaml)' },
  ],
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
`;

function page(assets: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>partner-sim API reference</title>
<link rel="icon" type="image/png" href="${assets}/favicon-32x32.png">
<link rel="stylesheet" href="${assets}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${assets}/swagger-ui-bundle.js"></script>
<script src="${assets}/swagger-ui-standalone-preset.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;
}

/** The CSP of the page: its own origin only, plus `publicUrl` for "Try it out" calls. */
export function docsCsp(publicUrl: string | undefined): string {
  const connect = publicUrl ? `'self' ${new URL(publicUrl).origin}` : "'self'";
  return [
    "default-src 'self'",
    "img-src 'self' data:",
    // Swagger UI renders with inline style attributes.
    "style-src 'self' 'unsafe-inline'",
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/** The router for `/docs` and its assets; everything is resolved once, here. */
export function apiDocs(publicUrl: string | undefined): Router {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  const assets = `${DOCS_PATH}/assets/${version}`;
  const html = page(assets);
  const csp = docsCsp(publicUrl);
  const router = Router({ caseSensitive: true });
  router.get(DOCS_PATH, (_req, res) => {
    res.set({ 'Content-Security-Policy': csp, 'Cache-Control': 'no-cache' }).type('html').send(html);
  });
  router.get(`${DOCS_PATH}/init.js`, (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('js').send(INIT_JS);
  });
  // Only the viewer's files (and their source maps): not the package's demo page, which
  // points at an outside example document.
  const onlyAssets: RequestHandler = (req, _res, next) => {
    const name = req.path.slice(1);
    if (ASSET_FILES.has(name) || ASSET_FILES.has(name.replace(/\.map$/, ''))) next();
    else next('router');
  };
  router.use(assets, onlyAssets, express.static(dir, { immutable: true, maxAge: '365d', index: false }));
  return router;
}
