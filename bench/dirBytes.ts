import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Bytes a folder takes on disk (allocated blocks, as `du` counts them, not file lengths): a
 * store of many small files costs a block each, and that is what fills a disk.
 */
export async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  const walk = async (d: string): Promise<void> => {
    const entries = await readdir(d, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else
        total += await lstat(p).then(
          (s) => s.blocks * 512,
          () => 0,
        );
    }
  };
  await walk(dir);
  return total;
}
