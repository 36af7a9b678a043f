import { dirname, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCLI, startVitest } from 'vitest/node';
import config from './vitest.config.js';

/**
 * `partner-sim contract`'s vitest process: `node run.js [vitest run options and filters]`, what
 * `vitest run --root <this folder> --config vitest.config.js` does, with the config passed as
 * the object it is. Given a file, vite imports it through Node's module hooks to learn its
 * dependencies for watching, which on Node 20 starts a loader thread that then handles every
 * later import of the run as well: about 0.1-0.2 s of CPU per run (issue 33).
 */
const args = process.argv.slice(2);
const parsed = parseCLI(['vitest', 'run', ...args]);
const { options } = parsed;
// As vitest's own `run` command prepares its filters and options (its CLI's start()).
const filter = parsed.filter.map((f) => normalize(f).replaceAll('\\', '/'));
if (options.exclude) {
  options.cliExclude = [options.exclude].flat();
  delete options.exclude;
}
if (filter.some((f) => f.includes(':'))) options.includeTaskLocation ??= true;
try {
  const root = dirname(fileURLToPath(import.meta.url));
  const ctx = await startVitest('test', filter, { ...options, root, config: false }, config);
  if (!ctx.shouldKeepServer()) await ctx.exit();
} catch (e) {
  console.error('\nStartup Error', e);
  process.exitCode ??= 1;
  process.exit();
}
