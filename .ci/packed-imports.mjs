#!/usr/bin/env node
// Checks an installed (or unpacked) package folder: every relative import of every module and
// declaration file it holds names a file it also holds. `files` in package.json leaves tests,
// test kits and dev tools out; a shipped module that imports one of them would fail only when
// a user reaches that import. Usage: node .ci/packed-imports.mjs <package folder>
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? '.');
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
const COMMENT = /^\s*(?:\/\/|\/\*|\*)|@type\s*\{import\(/;
const CHECKED = /\.(?:js|mjs|cjs|d\.ts|d\.mts)$/;

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (CHECKED.test(e.name)) yield p;
  }
}

/** A specifier as TypeScript and Node resolve it: the file itself, or its declarations. */
function present(from, spec) {
  const target = resolve(dirname(from), spec);
  if (existsSync(target)) return true;
  if (/\.d\.m?ts$/.test(from)) return existsSync(target.replace(/\.(m?)js$/, '.d.$1ts'));
  return false;
}

const missing = [];
let count = 0;
for (const file of files(root)) {
  count++;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    // JSDoc types of bundled libraries (`@type {import('./x')}`) and comments import nothing.
    if (COMMENT.test(line)) continue;
    for (const m of line.matchAll(IMPORT)) {
      if (!present(file, m[1])) missing.push(`${relative(root, file)} imports ${m[1]}`);
    }
  }
}
if (missing.length > 0) {
  console.error(`packed imports: ${missing.length} import(s) of files the package leaves out:`);
  for (const line of missing) console.error(`  ${line}`);
  process.exit(1);
}
console.log(`packed imports: ${count} files, every relative import is in the package`);
