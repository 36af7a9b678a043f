import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../core/root.js';
import { type ExecFileError, execFileTracked } from '../testing/spawnTracked.js';

/** The script's exit status and output (a child a timed-out test cannot leave: spawnTracked). */
const check = (folder: string): Promise<{ status: number | null; stdout: string; stderr: string }> =>
  execFileTracked(process.execPath, [fromRoot('.ci', 'check-links.mjs'), folder]).then(
    (r) => ({ status: 0, ...r }),
    (e: ExecFileError) => ({ status: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

describe('.ci/check-links.mjs', () => {
  it('finds every link and anchor of README.md and docs/ alive in this repository', async () => {
    const r = await check(fromRoot());
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
      expect((await check(dir)).status).toBe(0);
      await writeFile(join(dir, 'docs', 'b.md'), '[x](a.md#notes-2) [y](a.md#not-a-heading) [z](#nowhere)\n');
      const r = await check(dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain("docs/b.md: a.md#notes-2 (no heading '#notes-2' in docs/a.md)");
      expect(r.stderr).toContain("docs/b.md: a.md#not-a-heading (no heading '#not-a-heading' in docs/a.md)");
      expect(r.stderr).toContain("docs/b.md: #nowhere (no heading '#nowhere' in docs/b.md)");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
