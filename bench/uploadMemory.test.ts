import { describe, expect, it } from 'vitest';
import { startTestServer } from '../server/testing/testServer.js';
import { runUploadMemory } from './uploadMemory.js';

// A smoke test of the benchmark's code with a few MiB against an in-process simulator; the
// real 1 GiB run is `npm run bench -- --only upload-memory` (child process, bytes on disk).
describe('upload-memory benchmark', () => {
  it('uploads, completes with the right MD5 and reports its numbers', async () => {
    const MiB = 1024 * 1024;
    const sim = await startTestServer({ chunkSize: MiB });
    try {
      const r = await runUploadMemory({
        sizeMiB: 3.5,
        partBytes: MiB,
        concurrency: 2,
        rssLimit: Number.POSITIVE_INFINITY,
        sim: { url: sim.url, rssBytes: async () => process.memoryUsage().rss, stop: async () => {} },
      });
      // r.ok also holds the speed targets, which a few MiB in-process cannot show.
      expect(r.metrics).toMatchObject({ size_bytes: 3.5 * MiB, parts: 4, concurrency: 2 });
      expect(r.metrics.upload_to_md5_ratio).toBeGreaterThan(0);
      expect(r.lines.join('\n')).toContain('FileMd5 matches');
      expect(r.lines.join('\n')).toMatch(/complete-upload: +\d+ ms \(target ≤ 300\)/);
    } finally {
      await sim.stop();
    }
  });
});
