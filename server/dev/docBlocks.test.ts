import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../core/root.js';
import { fencedBlocks, runScript } from './docBlocks.mjs';

// docs/*.md (run by .ci/docs-examples from the packed package) and README (.ci/readme-snippets).
const pages = [
  ...readdirSync(fromRoot('docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'README.md',
];
const RUNNABLE = new Set(['sh', 'bash', 'js', 'mjs', 'ts']);

describe('example blocks of docs/ and README: each runs in CI or says why not', () => {
  it.each(pages)('%s: every fenced block is marked snippet-test or not-run with a reason', (page) => {
    const blocks = fencedBlocks(readFileSync(fromRoot(page), 'utf8'));
    const unmarked = blocks.filter((b) => b.marker === undefined).map((b) => `line ${b.line}`);
    const noReason = blocks
      .filter((b) => b.marker?.run === false && !b.marker.reason)
      .map((b) => `line ${b.line}`);
    const cannotRun = blocks
      .filter((b) => b.marker?.run && !RUNNABLE.has(b.lang))
      .map((b) => `line ${b.line}`);
    expect({ unmarked, noReason, cannotRun }).toEqual({ unmarked: [], noReason: [], cannotRun: [] });
  });

  it('runs some blocks of docs/ (the runner has work to do)', () => {
    const run = pages
      .filter((p) => p.startsWith('docs/'))
      .flatMap((p) => fencedBlocks(readFileSync(fromRoot(p), 'utf8')).filter((b) => b.marker?.run));
    expect(run.length).toBeGreaterThanOrEqual(10);
  });
});

describe('fencedBlocks', () => {
  const md = [
    'Intro.',
    '<!-- snippet-test -->',
    '```sh',
    'echo one',
    '```',
    '',
    '1. A step:',
    '   <!-- not-run: needs a phone on the LAN -->',
    '   ```sh',
    '   adb devices',
    '   ```',
    '',
    'A paragraph.',
    '```text',
    'output',
    '```',
    '<!-- snippet-test -->',
    '',
    'text between',
    '```sh',
    'echo unmarked',
    '```',
  ].join('\n');

  it('reads the marker on the nearest non-blank line above a fence, de-indenting list blocks', () => {
    expect(fencedBlocks(md)).toEqual([
      { line: 3, lang: 'sh', body: 'echo one\n', marker: { run: true } },
      {
        line: 9,
        lang: 'sh',
        body: 'adb devices\n',
        marker: { run: false, reason: 'needs a phone on the LAN' },
      },
      { line: 14, lang: 'text', body: 'output\n', marker: undefined },
      { line: 20, lang: 'sh', body: 'echo unmarked\n', marker: undefined },
    ]);
  });

  it('scripts only the run-marked blocks, in order, each after a header naming it', async () => {
    expect(await runScript(md, 'docs/x.md')).toBe('# --- x.md block 1 (line 3)\necho one\n');
  });

  it('writes a ts block to a file as JavaScript and runs it with node', async () => {
    const ts = '<!-- snippet-test -->\n```ts\nconst n: number = 1;\nconsole.log(n);\n```\n';
    const script = await runScript(ts, 'p.md');
    expect(script).toContain(
      "cat >p-md-block-1-line-2-.mjs <<'PROGRAM_EOF'\nconst n = 1;\nconsole.log(n);\n",
    );
    expect(script).toMatch(/PROGRAM_EOF\nnode p-md-block-1-line-2-\.mjs\n$/);
  });

  it('refuses a run-marked block no shell or node can run', async () => {
    await expect(runScript('<!-- snippet-test -->\n```yaml\na: 1\n```\n', 'y.md')).rejects.toThrow(
      'y.md block 1 (line 2): a yaml block cannot run',
    );
  });
});
