import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../core/root.js';

const check = (folder: string) =>
  spawnSync(process.execPath, [fromRoot('.ci', 'check-links.mjs'), folder], { encoding: 'utf8' });

describe('.ci/check-links.mjs', () => {
  it('finds every link and anchor of README.md and docs/ alive in this repository', () => {
    const r = check(fromRoot());
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/and [1-9]\d* anchors name a heading/);
  });

  it("holds an anchor to the target's headings by GitHub's slug rules", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'check-links-'));
    try {
      await mkdir(join(dir, 'docs'));
      await writeFile(
        join(dir, 'docs', 'a.md'),
        '# A\n\n## Walkthrough: tokens → `binding`\n\n## `run [--timeout <ms>]` <em>now</em>\n\n## Notes\n\n## Notes\n\n```\n## not a heading\n```\n',
      );
      await writeFile(
        join(dir, 'README.md'),
        '# R\n\n## See also\n\n[x](docs/a.md#walkthrough-tokens--binding) [x](docs/a.md#notes-1) [x](docs/a.md#run---timeout-ms-now) [x](#see-also) [x](docs/a.md)\n',
      );
      expect(check(dir).status).toBe(0);
      await writeFile(join(dir, 'docs', 'b.md'), '[x](a.md#notes-2) [y](a.md#not-a-heading) [z](#nowhere)\n');
      const r = check(dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain("docs/b.md: a.md#notes-2 (no heading '#notes-2' in docs/a.md)");
      expect(r.stderr).toContain("docs/b.md: a.md#not-a-heading (no heading '#not-a-heading' in docs/a.md)");
      expect(r.stderr).toContain("docs/b.md: #nowhere (no heading '#nowhere' in docs/b.md)");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
