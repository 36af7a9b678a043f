import type { RequestHandler } from 'express';
import { ADMIN_PREFIX } from '../http/apiPrefixes.js';
import { DOCS_PATH } from './apiDocs.js';

/** Where the local CA's certificate is served (serve --https). */
const CA_PATH = '/ca';

// Links only, relative to this origin: nothing the request brought (its Host) is written in.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>partner-sim</title>
<link rel="icon" href="data:,">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}a{color:#0b57d0}code{font-size:.95em}li{margin:.4rem 0}</style>
</head>
<body>
<main>
<h1>partner-sim</h1>
<p>A simulator of the partner API: tokens, device binding, uploads, transcription.</p>
<ul>
<li><a href="${ADMIN_PREFIX}/ui">Dashboard</a>: arrange and watch apps, devices, faults, the clock and every request</li>
<li><a href="${DOCS_PATH}">API reference</a> (Swagger UI) of the partner API and the control API</li>
<li><a href="${ADMIN_PREFIX}/openapi.yaml">Control API document</a> (<code>${ADMIN_PREFIX}</code>, OpenAPI)</li>
<li><a href="/openapi.yaml">Partner API document</a> (<code>/developer/api</code>, <code>/jp/developer/api</code>)</li>
<li><a href="${CA_PATH}">Local CA certificate</a>: only in an HTTPS mode (<code>serve --https</code>), to trust the simulator's certificates</li>
</ul>
<p>API clients asking for JSON at <code>/</code> get the same links as JSON.</p>
</main>
</body>
</html>
`;

// img-src data: for the page's own empty icon (`data:,`), which keeps the browser from asking
// for /favicon.ico; without it every load logged a CSP refusal in the console.
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A browser asks for HTML first; curl (`*\/*`) and API clients get JSON, as before. */
const wantsHtml = (req: Parameters<RequestHandler>[0]): boolean => req.accepts(['json', 'html']) === 'html';

/** `GET /`: for a browser, a page linking what a person looks for; otherwise `next()`. */
export const indexPage: RequestHandler = (req, res, next) => {
  if (!wantsHtml(req)) return next();
  res.set({ 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', vary: 'Accept' });
  res.type('html').send(PAGE);
};

/** `GET /__admin` in a browser: the dashboard (the control API itself answers JSON). */
export const adminInBrowser: RequestHandler = (req, res, next) => {
  if (!wantsHtml(req)) return next();
  res.set('vary', 'Accept').redirect(302, `${ADMIN_PREFIX}/ui`);
};
