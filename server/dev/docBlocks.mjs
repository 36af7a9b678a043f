// The fenced blocks of a Markdown file and the marker just above each, one reading for every
// step that runs documentation: .ci/readme-snippets (README's walkthrough), .ci/docs-examples
// (docs/*.md from the packed package) and the test that no block of docs/ goes unmarked.
//
//   <!-- snippet-test -->            the block below runs in CI (sh in bash; js/mjs/ts as a program)
//   <!-- not-run: <reason> -->       it does not, and why (output, a fragment, needs Docker, …)
//
// As a command: `node server/dev/docBlocks.mjs script <file.md>` prints one bash script of the
// file's run-marked blocks in order (de-indented; a js/ts block as a heredoc into a .mjs file
// that node runs, ts transpiled by the repository's TypeScript), each after a line
// `# --- <file> block <n> (line <l>)`.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';

const RUN = /^<!-- snippet-test -->$/;
const NOT_RUN = /^<!-- not-run:(.*)-->$/;
const FENCE = /^( *)```(\S*)\s*$/;

/** The marker a block carries: the nearest non-blank line above its fence. */
function markerOf(line) {
  const t = (line ?? '').trim();
  if (RUN.test(t)) return { run: true };
  const m = NOT_RUN.exec(t);
  if (m) return { run: false, reason: m[1].trim() };
  return undefined;
}

/** Every fenced block: its first line (1-based), language, body (de-indented) and marker. */
export function fencedBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  let above;
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) {
      if (lines[i].trim()) above = lines[i];
      continue;
    }
    const indent = open[1].length;
    const body = [];
    let j = i + 1;
    while (j < lines.length && !/^ *```\s*$/.test(lines[j])) body.push(lines[j++].slice(indent));
    blocks.push({ line: i + 1, lang: open[2], body: `${body.join('\n')}\n`, marker: markerOf(above) });
    above = lines[j];
    i = j;
  }
  return blocks;
}

const PROGRAM = new Set(['js', 'mjs', 'ts']);

/** A run-marked block as bash: sh as written, a program written to a file and run by node. */
async function asBash(block, name) {
  if (block.lang === 'sh' || block.lang === 'bash') return block.body;
  if (!PROGRAM.has(block.lang)) throw new Error(`${name}: a ${block.lang || 'plain'} block cannot run`);
  let code = block.body;
  if (block.lang === 'ts') {
    const { default: ts } = await import('typescript');
    code = ts.transpileModule(code, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
  }
  const file = `${name.replace(/\W+/g, '-')}.mjs`;
  return `cat >${file} <<'PROGRAM_EOF'\n${code}PROGRAM_EOF\nnode ${file}\n`;
}

/** The bash script of a file's run-marked blocks, in order. */
export async function runScript(markdown, file) {
  const parts = [];
  let n = 0;
  for (const block of fencedBlocks(markdown)) {
    if (!block.marker?.run) continue;
    n++;
    const name = `${basename(file)} block ${n} (line ${block.line})`;
    parts.push(`# --- ${name}\n${await asBash(block, name)}`);
  }
  return parts.join('');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [cmd, file] = process.argv.slice(2);
  if (cmd !== 'script' || !file) {
    process.stderr.write('usage: node server/dev/docBlocks.mjs script <file.md>\n');
    process.exit(2);
  }
  process.stdout.write(await runScript(readFileSync(file, 'utf8'), file));
}
