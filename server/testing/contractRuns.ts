import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/**
 * For tests that run `partner-sim contract` itself: an environment without vitest's own and
 * without any contract settings of the developer, and temporary report folders (plus any other
 * clean-up a test registers) removed after each test.
 */
export function useContractRuns() {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });
  return {
    cleanEnv: (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
      ...Object.fromEntries(
        Object.entries(process.env).filter(
          ([k]) => !/^(VITEST|CONTRACT_|PARTNER_)/.test(k) && k !== 'NODE_ENV',
        ),
      ),
      ...extra,
    }),
    async reportsDir(): Promise<string> {
      const dir = await mkdtemp(join(tmpdir(), 'contract-reports-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      return dir;
    },
    /** Run after the test, e.g. stopping a simulator it started. */
    onCleanup(...c: (() => Promise<unknown>)[]): void {
      cleanups.push(...c);
    },
  };
}
