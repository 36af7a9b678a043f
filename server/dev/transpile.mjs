// The TypeScript sources as JavaScript without a type check: `npm start` and `npm test` build
// dist/ this way when it is stale (buildIfStale.mjs), and the tests' build of the current
// sources uses the same settings (server/testing/sourceBuild.ts). esbuild erases the types and
// keeps every import as written; on a fresh clone this takes ~0.6 s where `tsc` took ~10 s.
// `npm run build` (the package, the image) still compiles with `tsc`, declarations included,
// and `npm run typecheck` checks the types. Plain JavaScript: it runs before anything is built.
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { build } from 'esbuild';

/** Folders compiled into dist/ (tsconfig.build.json `include`). */
export const SOURCE_DIRS = ['server', 'bench', 'contracts'];

/** Unit tests are not built; the contract scenarios (contracts/*.test.ts) are, and shipped. */
export const isTest = (path) => /\.test\.[cm]?[jt]s$/.test(path) && !path.startsWith(`contracts${sep}`);

/** What tsconfig.build.json compiles: every .ts under SOURCE_DIRS but unit tests and declarations. */
function sources(root) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.ts$/.test(entry.name) && !/\.d\.[cm]?ts$/.test(entry.name) && !isTest(relative(root, path)))
        found.push(path);
    }
  };
  for (const dir of SOURCE_DIRS) {
    try {
      walk(join(root, dir));
    } catch (e) {
      if (e.code !== 'ENOENT') throw e;
    }
  }
  return found;
}

/**
 * `files` (paths under `root`) as `outdir`/<same path>.js: types erased, imports kept as
 * written (what tsconfig.json would emit). Throws, writing nothing, on a syntax error.
 */
export async function transpileFiles(root, files, outdir) {
  await build({
    entryPoints: files,
    outbase: root,
    outdir,
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: 'es2022',
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
    // The error is thrown (and said by the caller), not also printed here.
    logLevel: 'silent',
  });
}

/** Every source as dist/<same path>.js; resolves with how many files were written. */
export async function transpileSources(root) {
  const files = sources(root);
  await transpileFiles(root, files, join(root, 'dist'));
  return files.length;
}
