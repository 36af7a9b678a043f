import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project root, found by walking up from this module to the folder holding openapi.yaml.
 * Source (server/core) and build output (dist/server/core) sit at different depths, so a
 * fixed relative path would be wrong in one of them. Runs once, at import.
 */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'openapi.yaml')) && existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir)
      throw new Error(`partner-sim: cannot find openapi.yaml above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

const projectRoot = findRoot();
export const fromRoot = (...parts: string[]): string => join(projectRoot, ...parts);
