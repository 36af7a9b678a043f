import { createServer } from 'node:net';

/**
 * A loopback port free a moment ago (bound, then released): for a child process that is told
 * its port, or as a port nothing listens on.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
