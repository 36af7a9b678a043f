import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { fromRoot } from '../core/root.js';

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

/** What a child process may run: the CLI, the package entry and the doubles (package.json `exports`). */
const ENTRIES = ['cli', 'index', 'doubles/reactNative', 'doubles/capacitor'];

/**
 * The CLI entry of the current sources, runnable by plain `node` in a child process: tests
 * that must kill a real simulator process (crash safety) need the code under test, not a
 * `dist/` that may be older. Transpile only (no type check: `npm run typecheck` does that)
 * the files the package's entries import, into node_modules/.cache keyed by their content, so
 * it runs once per change; the other entries are beside it (sourceEntry). Project files are
 * still found: fromRoot() walks up to openapi.yaml.
 */
export async function sourceCliEntry(): Promise<string> {
  const files = await reachable(ENTRIES.map((e) => fromRoot('server', `${e}.ts`)));
  const h = createHash('sha256');
  for (const [f, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) h.update(`${f}\0${text}\0`);
  const out = fromRoot('node_modules', '.cache', 'partner-sim-source', h.digest('hex').slice(0, 16));
  const entry = join(out, 'server', 'cli.js');
  if (existsSync(entry)) return entry;
  const temp = `${out}.${process.pid}.tmp`;
  const compilerOptions = {
    module: ts.ModuleKind.ESNext,
    target: ts.ScriptTarget.ES2022,
    verbatimModuleSyntax: true,
  };
  for (const [f, text] of files) {
    const js = ts.transpileModule(text, { fileName: f, compilerOptions }).outputText;
    const target = join(temp, relative(fromRoot(), f)).replace(/\.ts$/, '.js');
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, js);
  }
  try {
    await rename(temp, out);
  } catch {
    // Another test file built the same sources first: use theirs.
    await rm(temp, { recursive: true, force: true });
  }
  // Builds of earlier sources are never used again.
  for (const old of await readdir(dirname(out))) {
    if (old !== basename(out) && !old.endsWith('.tmp'))
      await rm(join(dirname(out), old), { recursive: true, force: true });
  }
  return entry;
}

/** Another entry of the same transpiled sources, e.g. `index` or `doubles/capacitor`. */
export async function sourceEntry(name: string): Promise<string> {
  return join(dirname(await sourceCliEntry()), `${name}.js`);
}
