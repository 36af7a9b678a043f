#!/usr/bin/env node
// `npm run build:assets`: what every build does after compiling the sources (`npm run build`'s
// tsc, or the transpile of `npm start` and `npm test`, buildIfStale.mjs). The steps are
// independent, so they run side by side: ~1.1 s instead of ~2 s one after another. The build
// stamps (the spec cache, BUILD_STAMPS) are touched once all succeeded, so they still date
// a finished build.
import { spawn } from 'node:child_process';
import { utimesSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Each step is a compiled module run with node (its source beside it under server/). */
export const ASSET_STEPS = [
  'dist/server/dev/bundleCli.js', // the CLI entry as one file
  'dist/server/dev/bundleBrowser.js', // the doubles' browser bundles
  'dist/server/dev/copyViewer.js', // Swagger UI's served files
  'dist/server/spec/buildSpecCache.js', // the parsed documents and compiled validators (the stamps)
];
/** Written by the last step and touched when all are done, so they date a finished build. */
export const BUILD_STAMPS = [
  join('dist', 'spec-cache', 'openapi.yaml.json'),
  join('dist', 'spec-cache', 'admin.openapi.yaml.json'),
];

function run(root, step) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(root, step)], { cwd: root, stdio: 'inherit' });
    child.once('error', (e) => {
      process.stderr.write(`build:assets: ${step}: ${e.message}\n`);
      done(1);
    });
    child.once('close', (code) => done(code ?? 1));
  });
}

/** Resolves with 0 when every step succeeded, else the first failure's status. */
export async function buildAssets(root) {
  const codes = await Promise.all(ASSET_STEPS.map((step) => run(root, step)));
  const failed = codes.find((c) => c !== 0);
  if (failed !== undefined) return failed;
  const now = new Date();
  for (const stamp of BUILD_STAMPS) utimesSync(join(root, stamp), now, now);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(
      `Usage: npm run build:assets\n\nAfter the sources are compiled into dist/, runs side by side:\n${ASSET_STEPS.map((s) => `  ${s}`).join('\n')}\n`,
    );
  } else {
    process.exitCode = await buildAssets(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'));
  }
}
