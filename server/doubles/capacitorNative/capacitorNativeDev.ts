import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { CapacitorNativeOptions } from './capacitorNative.js';

/**
 * Loading the Capacitor native-side double into a page before its own code, from Node:
 * the script for playwright's `addInitScript`, a connect-style middleware (Vite's
 * `configureServer`, webpack-dev-server's `setupMiddlewares`, Express), a Vite plugin that
 * puts it first in index.html, and a Fetch handler (a Next.js route). Dev and test only.
 */

/** What survives into a page's script: no functions (`fetch`, `onError`, `plugins` stay in-page). */
export type CapacitorNativeScriptOptions = Omit<CapacitorNativeOptions, 'fetch' | 'onError' | 'plugins'>;

/** The one-file browser build, as `npm run build` writes it into the package. */
export const CAPACITOR_NATIVE_BUNDLE = fileURLToPath(
  new URL('../../../browser/capacitor-native.js', import.meta.url),
);

const bundles = new Map<string, Promise<string>>();

/** The browser build plus its install call: one classic script, to run before any module. */
export async function capacitorNativeScript(
  options: CapacitorNativeScriptOptions = {},
  bundlePath: string = CAPACITOR_NATIVE_BUNDLE,
): Promise<string> {
  let bundle = bundles.get(bundlePath);
  if (!bundle) {
    bundle = readFile(bundlePath, 'utf8');
    bundles.set(bundlePath, bundle);
    bundle.catch(() => bundles.delete(bundlePath));
  }
  return `${await bundle}\n;PartnerSimCapacitorNative.install(${JSON.stringify(options)});\n`;
}

/** The URL the middleware and the Vite plugin serve the script at. */
export const CAPACITOR_NATIVE_PATH = '/__partner-sim/capacitor-native.js';

type Next = (err?: unknown) => void;

/** Where the helpers serve the script from and at (defaults: the package build, CAPACITOR_NATIVE_PATH). */
export interface ServeAt {
  path?: string;
  bundlePath?: string;
}

/** Serves the script at `path`; anything else goes to `next`. */
export function capacitorNativeMiddleware(
  options: CapacitorNativeScriptOptions = {},
  { path = CAPACITOR_NATIVE_PATH, bundlePath }: ServeAt = {},
) {
  return (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    if ((req.url ?? '').split('?')[0] !== path) {
      next();
      return;
    }
    capacitorNativeScript(options, bundlePath).then((js) => {
      res.setHeader('content-type', 'text/javascript; charset=utf-8');
      res.setHeader('cache-control', 'no-store');
      res.end(js);
    }, next);
  };
}

/** A Fetch-API handler for the script (a Next.js route handler's `GET`). */
export function capacitorNativeRoute(
  options: CapacitorNativeScriptOptions = {},
  { bundlePath }: ServeAt = {},
) {
  return async (): Promise<Response> =>
    new Response(await capacitorNativeScript(options, bundlePath), {
      headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' },
    });
}

/** A Vite plugin (dev server only): the script first in index.html's head. */
export function capacitorNativeVite(
  options: CapacitorNativeScriptOptions = {},
  { bundlePath }: ServeAt = {},
) {
  return {
    name: 'partner-sim-capacitor-native',
    apply: 'serve' as const,
    async transformIndexHtml() {
      return [
        {
          tag: 'script',
          children: (await capacitorNativeScript(options, bundlePath)).replace(/<\/script/gi, '<\\/script'),
          injectTo: 'head-prepend' as const,
        },
      ];
    },
  };
}
