import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fromRoot } from '../core/root.js';
import { bundleCli } from '../dev/bundleCli.js';
import { transpileFiles } from '../dev/transpile.mjs';

/** The package's entries (package.json `exports`: the CLI, the API, the doubles) of the current sources. */
const PACKAGE_ENTRIES = ['cli', 'index', 'doubles/reactNative/reactNative', 'doubles/capacitor/capacitor'];

/** The contract suite as the package ships it (dist/contracts): its entry, config, reporter and scenario files. */
async function suiteEntries(): Promise<string[]> {
  const scenarios = (await readdir(fromRoot('contracts'))).filter((f) => f.endsWith('.test.ts'));
  return ['run.ts', 'vitest.config.ts', 'reporter/summaryReporter.ts', ...scenarios].map((f) =>
    fromRoot('contracts', f),
  );
}

/** Relative imports (static and dynamic) of a module's source: its project dependencies. */
const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)\.js['"]/g;

/** Every project source file reachable from `entries` by relative imports, with its text. */
async function reachable(entries: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const queue = [...entries];
  for (let f = queue.pop(); f; f = queue.pop()) {
    if (found.has(f)) continue;
    const text = await readFile(f, 'utf8');
    found.set(f, text);
    for (const m of text.matchAll(IMPORT)) queue.push(resolve(dirname(f), `${m[1]}.ts`));
  }
  return found;
}

/**
 * Entries of the current sources, runnable by plain `node` in a child process: tests that
 * must kill a real simulator process (crash safety) need the code under test, not a `dist/`
 * that may be older. Transpile only (no type check: `npm run typecheck` does that) the files
 * the entries import, into node_modules/.cache/partner-sim-source/package-<hash of their
 * content>, so it runs once per change. Project files are still found: fromRoot() walks up
 * to openapi.yaml. Returns the folder standing for the project root.
 */
async function sourceBuild(): Promise<string> {
  const files = await reachable([
    ...PACKAGE_ENTRIES.map((e) => fromRoot('server', `${e}.ts`)),
    ...(await suiteEntries()),
  ]);
  const h = createHash('sha256');
  for (const [f, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) h.update(`${f}\0${text}\0`);
  h.update(await readFile(fromRoot('server', 'dev', 'bundleCli.ts')));
  h.update(await readFile(fromRoot('server', 'testing', 'sourceBuild.ts')));
  const out = fromRoot(
    'node_modules',
    '.cache',
    'partner-sim-source',
    `package-${h.digest('hex').slice(0, 16)}`,
  );
  if (existsSync(out)) return out;
  const temp = `${out}.${process.pid}.tmp`;
  // esbuild, not TypeScript's transpileModule: the same output for these files (types erased,
  // imports kept as written) in a tenth of the time on a fresh clone, as `npm start`'s and
  // `npm test`'s build of dist/ makes it (server/dev/transpile.mjs).
  await transpileFiles(fromRoot(), [...files.keys()], temp);
  // As in the package: a child simulator starts from one file, not ~350 modules resolved and
  // linked one by one (dynamically imported modules stay files of their own).
  await bundleCli(join(temp, 'server'));
  // As in the package, too: ES modules by their package's "type". Under node_modules/ the
  // project's package.json does not count, and without this Node first read and compiled the
  // bundle as CommonJS, then again as a module, at every child's start.
  await writeFile(join(temp, 'package.json'), '{ "type": "module" }\n');
  try {
    await rename(temp, out);
  } catch {
    // Another test file built the same sources first: use theirs.
    await rm(temp, { recursive: true, force: true });
  }
  // Builds of earlier sources (and of the former per-entry sets) are never used again.
  for (const old of await readdir(dirname(out))) {
    if (old !== basename(out) && !old.endsWith('.tmp'))
      await rm(join(dirname(out), old), { recursive: true, force: true });
  }
  return out;
}

/** One of them as plain JavaScript, e.g. `cli` (bundled as `npm run build` does), `index` or `doubles/capacitor/capacitor`. */
export async function sourceEntry(name: (typeof PACKAGE_ENTRIES)[number]): Promise<string> {
  return join(await currentBuild(), 'server', `${name}.js`);
}

/**
 * The contract suite compiled as the package's dist/contracts is, for `runContract`'s `suite`:
 * tests run what an installed package runs, on the current sources.
 */
export async function sourceSuite(): Promise<string> {
  return join(await currentBuild(), 'contracts');
}

function currentBuild(): Promise<string> {
  // One build for every entry (they share most files), the CLI bundled as the package's is. A
  // `vitest run` looks it up once per worker (the check reads and hashes every reachable
  // source); watch mode looks each time, as sources change between runs.
  const build = built ?? sourceBuild();
  if (process.env.VITEST_MODE === 'RUN') built = build;
  return build;
}
let built: Promise<string> | undefined;
