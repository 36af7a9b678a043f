import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../core/root.js';
import { execFileTracked } from '../testing/spawnTracked.js';
import { BatchedOutput } from './batchedOutput.js';

const turn = () => new Promise<void>((r) => setImmediate(r));

function recorder() {
  const writes: string[] = [];
  return { writes, out: { write: (s: string) => writes.push(s) } };
}

describe('BatchedOutput', () => {
  it("writes a turn's lines in one call once the turn ends", async () => {
    const { writes, out } = recorder();
    const b = new BatchedOutput(out);
    b.write('a\n');
    b.write('b\n');
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual(['a\nb\n']);
    b.write('c\n');
    await turn();
    expect(writes).toEqual(['a\nb\n', 'c\n']);
  });

  it('writes at once when 64 KiB wait, and never throws when the output does', async () => {
    const { writes, out } = recorder();
    const b = new BatchedOutput(out);
    b.write(`${'x'.repeat(64 * 1024)}\n`);
    expect(writes).toHaveLength(1);
    const broken = new BatchedOutput({
      write: () => {
        throw new Error('EPIPE');
      },
    });
    broken.write('lost\n');
    expect(() => broken.flush()).not.toThrow();
  });

  it('writes what waits when the process exits in the same turn', async () => {
    // The built module (npm test's pretest builds dist/ when it is stale).
    const mod = pathToFileURL(fromRoot('dist', 'server', 'core', 'batchedOutput.js')).href;
    const script = `import(${JSON.stringify(mod)}).then(({ BatchedOutput }) => {
      const b = new BatchedOutput(process.stdout);
      b.write('first\\n');
      b.write('last\\n');
      process.exit(3);
    });`;
    const r = await execFileTracked(process.execPath, ['-e', script]).catch(
      (e: { code: number; stdout: string }) => e,
    );
    expect(r).toMatchObject({ code: 3, stdout: 'first\nlast\n' });
  });
});
