import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import express, { type RequestHandler, Router } from 'express';
import { VIEWER_ASSETS, viewerDir } from './viewerFiles.js';

/**
 * `GET /docs`: the API reference, rendered in the browser by Swagger UI from the served
 * `/openapi.yaml` (and the control API's document, one pick away). Every asset is a copy of
 * `swagger-ui-dist`'s (viewerFiles.ts) under a versioned path, so nothing is fetched from
 * outside, the page works offline, and the assets can be cached for a year: a new version of
 * the viewer is a new path. The Content-Security-Policy makes "nothing from outside" a rule the
 * browser enforces, not only a property of today's bundle.
 */
const ASSET_FILES = new Set(VIEWER_ASSETS);

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
function docsCsp(publicUrl: string | undefined): string {
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
  const dir = viewerDir(() =>
    dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')),
  );
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
  // Only the viewer's files: not the package's demo page, which points at an outside example
  // document, nor the source maps, which the package no longer carries.
  const onlyAssets: RequestHandler = (req, _res, next) => {
    if (ASSET_FILES.has(req.path.slice(1))) next();
    else next('router');
  };
  router.use(assets, onlyAssets, express.static(dir, { immutable: true, maxAge: '365d', index: false }));
  return router;
}
