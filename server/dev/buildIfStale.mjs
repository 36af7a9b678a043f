#!/usr/bin/env node
// `npm start` and `npm run dev` run this before starting: it builds only when dist/ is older
// than what it is built from, so an unchanged checkout starts at once instead of compiling
// for 7-11 s. Plain JavaScript: it must run before anything is compiled.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUILD_STAMPS, buildAssets } from './buildAssets.mjs';
import { isTest, SOURCE_DIRS, transpileSources } from './transpile.mjs';

/** Files outside them the build reads: the documents (spec cache) and the compiler settings. */
const SOURCE_FILES = [
  'openapi.yaml',
  join('server', 'admin.openapi.yaml'),
  'tsconfig.json',
  'tsconfig.build.json',
  'package-lock.json',
];

/**
 * The newest input, folders included: a deleted or renamed source changes its folder's
 * mtime, so a removal triggers a build too. Unit tests are not built and do not count.
 */
function newestInput(root) {
  let newest = { path: '', mtimeMs: 0 };
  const consider = (path, mtimeMs) => {
    if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
  };
  const walk = (dir) => {
    consider(dir, statSync(dir).mtimeMs);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!isTest(relative(root, path))) consider(path, statSync(path).mtimeMs);
    }
  };
  for (const dir of SOURCE_DIRS) {
    try {
      walk(join(root, dir));
    } catch (e) {
      if (e.code !== 'ENOENT') throw e;
    }
  }
  for (const file of SOURCE_FILES) {
    try {
      consider(join(root, file), statSync(join(root, file)).mtimeMs);
    } catch (e) {
      if (e.code !== 'ENOENT') throw e;
    }
  }
  return newest;
}

/** Why `root` needs a build (a sentence), or undefined when dist/ is up to date. */
export function staleReason(root) {
  let built = Number.POSITIVE_INFINITY;
  for (const stamp of BUILD_STAMPS) {
    try {
      built = Math.min(built, statSync(join(root, stamp)).mtimeMs);
    } catch {
      return 'no complete build in dist/';
    }
  }
  const newest = newestInput(root);
  if (newest.mtimeMs > built) return `${newest.path.slice(root.length + 1)} changed since the last build`;
  return undefined;
}

/**
 * Build `root` when stale; resolves with the exit status (0 when nothing had to be done).
 */
export async function buildIfStale(root) {
  const reason = staleReason(root);
  if (reason === undefined) {
    process.stderr.write('partner-sim: dist/ is up to date, not rebuilding\n');
    return 0;
  }
  process.stderr.write(`partner-sim: building (${reason})\n`);
  return quickBuild(root);
}

/**
 * The build `npm start` and `npm test` make: the sources transpiled without a type check
 * (transpile.mjs: ~0.6 s where `tsc` took ~10 s on a fresh clone), then the same steps as
 * `npm run build` after `tsc` (`build:assets`). Resolves with the exit status.
 */
export async function quickBuild(root) {
  try {
    await transpileSources(root);
  } catch (e) {
    process.stderr.write(`partner-sim: the build failed: ${e.message}\n`);
    return 1;
  }
  return buildAssets(root);
}

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const [flag, ...rest] = process.argv.slice(2);
  if (flag === '--help' || flag === '-h') {
    process.stdout.write(
      'Usage: node server/dev/buildIfStale.mjs [--force]\n\n' +
        'Builds dist/ as npm start and npm test do (sources transpiled, then npm run build:assets)\n' +
        'when it is older than its sources; --force builds it anyway (the bench times it).\n',
    );
  } else if (rest.length > 0 || (flag !== undefined && flag !== '--force')) {
    process.stderr.write(
      `buildIfStale: unexpected argument ${flag === '--force' ? rest[0] : flag}; see --help\n`,
    );
    process.exitCode = 2;
  } else
    process.exitCode = flag === '--force' ? await quickBuild(projectRoot) : await buildIfStale(projectRoot);
}
