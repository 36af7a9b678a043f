import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../core/root.js';

/**
 * The Swagger UI files `/docs` serves, and where they are. The build copies exactly these
 * (with the package's licence files, Apache-2.0 asks for them) out of the `swagger-ui-dist`
 * devDependency into dist/swagger-ui, so an installed package or the Docker image carries
 * 2 MB instead of the package's 12 MB (source maps, ES bundles, a demo page).
 */
export const VIEWER_ASSETS = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'favicon-16x16.png',
  'favicon-32x32.png',
];

/** Copied beside the assets, never served: the licence, its notice, the bundles' third-party notices, the version. */
export const VIEWER_LICENCE_FILES = [
  'LICENSE',
  'NOTICE',
  'swagger-ui-bundle.js.LICENSE.txt',
  'swagger-ui-standalone-preset.js.LICENSE.txt',
  'package.json',
];

/**
 * The folder holding them: the build's copy when there is one (always in an installed package
 * and the image); else, in a checkout not built yet, the devDependency itself.
 */
export function viewerDir(resolvePackage: () => string): string {
  const copy = fromRoot('dist', 'swagger-ui');
  return existsSync(join(copy, 'package.json')) ? copy : resolvePackage();
}
