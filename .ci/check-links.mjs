// Every relative link of the Markdown a folder ships (README.md and docs/*.md) resolves to a
// file in that folder: run on the installed package, so a reader of node_modules/partner-sim
// (or of the registry page) never meets a link to a file the package left out.
//   node .ci/check-links.mjs node_modules/partner-sim
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = process.argv[2];
if (!root) {
  console.error('usage: node .ci/check-links.mjs <package folder>');
  process.exit(2);
}
const docs = existsSync(join(root, 'docs')) ? readdirSync(join(root, 'docs')) : [];
const files = ['README.md', ...docs.filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const dead = [];
let checked = 0;
for (const file of files) {
  const text = readFileSync(join(root, file), 'utf8');
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue; // absolute URL, anchor
    checked++;
    const path = join(dirname(join(root, file)), decodeURIComponent(target.split('#')[0]));
    if (!existsSync(path)) dead.push(`${file}: ${target} (no ${relative(root, path)} in the package)`);
  }
}
if (dead.length > 0) {
  console.error(
    `check-links: ${dead.length} link(s) point at files the package does not hold:\n  ${dead.join('\n  ')}`,
  );
  process.exit(1);
}
console.log(`check-links: ${checked} relative links in ${files.length} files all resolve in the package`);
