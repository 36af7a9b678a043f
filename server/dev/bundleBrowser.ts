import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { fromRoot } from '../core/root.js';

/**
 * A step of `npm run build`: the Capacitor native-side double as one classic script
 * (dist/browser/capacitor-native.js, an IIFE defining `PartnerSimCapacitorNative`), for a
 * `<script>` tag or an init script that must run before any of the page's modules.
 */
export async function bundleCapacitorNative(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2020',
    legalComments: 'none',
    logLevel: 'warning',
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await bundleCapacitorNative(
    fromRoot('dist/server/doubles/capacitorNative/capacitorNativeGlobal.js'),
    fromRoot('dist/browser/capacitor-native.js'),
  );
}
