import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { fromRoot } from '../core/root.js';

/**
 * The last step but one of `npm run build`: the compiled CLI entry, dist/server/cli.js, is
 * replaced by one file holding it and everything it imports statically (the simulator's ~100
 * modules, express, pino and their ~250 files). Node resolves, reads and links each ES module
 * separately; for `serve` that was ~70 % of the time from spawn to the first answer. One file
 * puts start-up near a bare Express app's (issue 16, target 2).
 *
 * Whatever is imported dynamically stays a separate file, loaded from the unbundled build
 * when run: the other commands (contract, transcribe, binding), the PostgreSQL store, faker,
 * music-metadata. So do packages loaded with `require` at run time (ajv when a validator must
 * be compiled, pino-pretty on a terminal). The rest of dist/ is untouched: the programmatic
 * API (dist/server/index.js) and the lazily loaded commands use the per-module files.
 *
 * Node reads, decodes and parses the whole file at every start, used or not, so what is
 * rarely run stays out of it (issue 33): iconv-lite (a third of the bundle: code pages and
 * CJK tables that a UTF-8 body never needs) is loaded from the installed package, and the
 * file is written without whitespace or comments (names kept, so stacks still read).
 */

/**
 * iconv-lite as body-parser (a dependency of the package) itself finds it, not by its name
 * from dist/: the package does not depend on it directly, and another version may sit higher
 * in a partner's node_modules.
 */
const INSTALLED_ICONV = `const { createRequire } = require('node:module');
module.exports = createRequire(require.resolve('body-parser'))('iconv-lite');`;

const iconvFromInstall: Plugin = {
  name: 'iconv-from-install',
  setup(b) {
    b.onResolve({ filter: /^iconv-lite$/ }, () => ({ path: 'iconv-lite', namespace: 'installed' }));
    b.onLoad({ filter: /.*/, namespace: 'installed' }, () => ({ contents: INSTALLED_ICONV, loader: 'js' }));
  },
};

/** Dynamic imports stay imports: of a package by name, of a project module by its path from the bundle. */
const keepDynamicImports = (serverDir: string): Plugin => ({
  name: 'keep-dynamic-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      if (!args.path.startsWith('.')) return { path: args.path, external: true };
      return { path: `./${relative(serverDir, resolve(args.resolveDir, args.path))}`, external: true };
    });
  },
});

/**
 * `serverDir`/cli.js bundled in place. Also the crash and multi-instance tests' source build
 * (testing/sourceBuild.ts), whose many child simulators start the way the package's does.
 */
export async function bundleCli(serverDir: string): Promise<void> {
  const entry = resolve(serverDir, 'cli.js');
  await build({
    entryPoints: [entry],
    outfile: entry,
    allowOverwrite: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    minifyWhitespace: true,
    // CommonJS packages inside an ES module bundle call `require` for Node's built-ins.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module';\nconst require = __bundleRequire(import.meta.url);",
    },
    plugins: [iconvFromInstall, keepDynamicImports(serverDir)],
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  await bundleCli(fromRoot('dist', 'server'));
