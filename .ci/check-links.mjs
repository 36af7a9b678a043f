// Every relative link of the Markdown a folder ships (README.md and docs/*.md) resolves to a
// file in that folder, and every `#anchor` (`file.md#anchor`, or `#anchor` within the page)
// to a heading of its target, by GitHub's slug rules: run on the installed package, so a
// reader of node_modules/partner-sim (or of the registry page) never meets a dead link, and
// on the repository by its tests.
//   node .ci/check-links.mjs node_modules/partner-sim
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = process.argv[2];
if (!root) {
  console.error('usage: node .ci/check-links.mjs <package folder>');
  process.exit(2);
}

/** GitHub's heading id: the rendered text, lower case, punctuation dropped, spaces as hyphens. */
function slug(heading) {
  const text = heading
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '') // images
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // links: their text
    // Inline HTML is dropped outside code spans only: `<ms>` in a code span is text to GitHub.
    .split('`')
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/<[^>]+>/g, '')))
    .join('')
    .replace(/(\*\*|__)(.+?)\1/g, '$2');
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

const anchorsOf = new Map();
/** The ids a Markdown file's headings get (repeats suffixed -1, -2, …), and explicit <a id>s. */
function anchors(path) {
  if (anchorsOf.has(path)) return anchorsOf.get(path);
  const ids = new Set();
  const seen = new Map();
  let fence = null;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const f = /^\s*(```+|~~~+)/.exec(line);
    if (f) {
      if (fence === null) fence = f[1][0];
      else if (f[1][0] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    for (const [, id] of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) ids.add(id);
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = slug(h[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  anchorsOf.set(path, ids);
  return ids;
}

const docs = existsSync(join(root, 'docs')) ? readdirSync(join(root, 'docs')) : [];
const files = ['README.md', ...docs.filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const dead = [];
let checked = 0;
let anchored = 0;
for (const file of files) {
  const text = readFileSync(join(root, file), 'utf8');
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // absolute URL
    const [pathPart, anchor] = target.split('#');
    const path = pathPart ? join(dirname(join(root, file)), decodeURIComponent(pathPart)) : join(root, file);
    if (pathPart) {
      checked++;
      if (!existsSync(path)) {
        dead.push(`${file}: ${target} (no ${relative(root, path)} in the package)`);
        continue;
      }
    }
    if (anchor === undefined || !path.endsWith('.md')) continue;
    anchored++;
    if (!anchors(path).has(decodeURIComponent(anchor)))
      dead.push(`${file}: ${target} (no heading '#${anchor}' in ${relative(root, path)})`);
  }
}
if (dead.length > 0) {
  console.error(`check-links: ${dead.length} dead link(s):\n  ${dead.join('\n  ')}`);
  process.exit(1);
}
console.log(
  `check-links: ${checked} relative links in ${files.length} files all resolve in the package, and ${anchored} anchors name a heading`,
);
