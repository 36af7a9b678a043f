#!/usr/bin/env node
// `npm start` and `npm run dev` run this before starting: it builds only when dist/ is older
// than what it is built from, so an unchanged checkout starts at once instead of compiling
// for 7-11 s. Plain JavaScript: it must run before anything is compiled.
import { spawn } from 'node:child_process';
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
 * `full`: the package's own build (`npm run build`: tsc, declarations included), for the
 * `prepare` script: a git install (`npm i -D github:…`, `git+file://…`) builds the clone there,
 * and a clone's `npm ci` runs it too, when an up-to-date dist/ makes it a few stat calls.
 */
export async function buildIfStale(root, { full = false } = {}) {
  const reason = staleReason(root);
  if (reason === undefined) {
    process.stderr.write('partner-sim: dist/ is up to date, not rebuilding\n');
    return 0;
  }
  process.stderr.write(`partner-sim: building (${reason})\n`);
  return full ? fullBuild(root) : quickBuild(root);
}

/** `npm run build` without npm: tsc with declarations, then the assets. */
export async function fullBuild(root) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const code = await new Promise((done) => {
    const child = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
      cwd: root,
      stdio: 'inherit',
    });
    child.on('error', (e) => {
      process.stderr.write(`partner-sim: cannot run tsc: ${e.message}\n`);
      done(1);
    });
    child.on('close', (c) => done(c ?? 1));
  });
  if (code !== 0) {
    process.stderr.write('partner-sim: the build failed (tsc)\n');
    return code;
  }
  return buildAssets(root);
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
      'Usage: node server/dev/buildIfStale.mjs [--force | --full]\n\n' +
        'Builds dist/ as npm start and npm test do (sources transpiled, then npm run build:assets)\n' +
        'when it is older than its sources; --force builds it anyway (the bench times it);\n' +
        '--full builds it as npm run build does (tsc, declarations), when it is older (prepare).\n',
    );
  } else if (rest.length > 0 || (flag !== undefined && flag !== '--force' && flag !== '--full')) {
    const bad = flag === '--force' || flag === '--full' ? rest[0] : flag;
    process.stderr.write(`buildIfStale: unexpected argument ${bad}; see --help\n`);
    process.exitCode = 2;
  } else
    process.exitCode =
      flag === '--force'
        ? await quickBuild(projectRoot)
        : await buildIfStale(projectRoot, { full: flag === '--full' });
}
