import { copyFile, mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fromRoot } from '../core/root.js';
import { VIEWER_ASSETS, VIEWER_LICENCE_FILES } from '../docs/viewerFiles.js';

/**
 * A step of `npm run build`: copies what `/docs` serves out of the `swagger-ui-dist`
 * devDependency into dist/swagger-ui (see docs/viewerFiles.ts), so the package does not
 * depend on the whole of it.
 */
export async function copyViewer(): Promise<void> {
  const from = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const to = fromRoot('dist', 'swagger-ui');
  await rm(to, { recursive: true, force: true });
  await mkdir(to, { recursive: true });
  for (const f of [...VIEWER_ASSETS, ...VIEWER_LICENCE_FILES]) await copyFile(join(from, f), join(to, f));
}

await copyViewer();
