import { afterEach } from 'vitest';
import type { Config } from '../config.js';
import { startTestServer, type TestServer, tempDataDir } from './testServer.js';

/**
 * For test files that start servers per test: `start()` a fresh simulator and `tempDir()` a
 * data folder; after each test every server is stopped (stopping twice is harmless, so a
 * test may stop one itself to restart on the same folder) and every folder removed.
 */
export function useTestServers() {
  const running: TestServer[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (running.length) await running.pop()!.stop();
    while (cleanups.length) await cleanups.pop()!();
  });
  return {
    async start(overrides: Partial<Config> = {}): Promise<TestServer> {
      const s = await startTestServer(overrides);
      running.push(s);
      return s;
    },
    async tempDir(): Promise<string> {
      const { dir, cleanup } = await tempDataDir();
      cleanups.push(cleanup);
      return dir;
    },
  };
}
