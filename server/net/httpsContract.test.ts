import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../config.js';
import { runContract } from '../contract/command.js';
import { useContractRuns } from '../testing/contractRuns.js';
import { sourceSuite } from '../testing/sourceBuild.js';
import { spawnTracked } from '../testing/spawnTracked.js';
import { startTestServer, tempDataDir } from '../testing/testServer.js';

// The whole contract suite, `--target url`, against an HTTPS instance and one with an
// S3-shaped --storage-host (a plain instance: contract/parallel.test.ts, eight runs at once), as CI runs it: no environment for the user to set (no
// NODE_EXTRA_CA_CERTS, no proxy). The runner learns from the instance what it intercepts and
// its CA, and sends presigned URLs through the simulator's own proxy. The storage host is a
// real DNS name that is never resolved: nothing leaves loopback.
const { cleanEnv, reportsDir, onCleanup } = useContractRuns();

interface Result {
  name: string;
  state: string;
  reason?: string;
}

const instances: [string, Partial<Config>][] = [
  ['https', { https: true }],
  ['https --storage-host', { https: true, storageHost: 'partner-sim.s3.us-east-1.amazonaws.com' }],
];

describe('contract suite against HTTPS and storage-host instances', () => {
  // One local CA for both instances, as a developer's machine keeps one (its RSA keygen is
  // paid once per file, not per instance; each instance still issues its own leaf).
  let caDir: string;
  beforeAll(async () => {
    const tmp = await tempDataDir();
    caDir = join(tmp.dir, 'ca');
    return () => tmp.cleanup();
  });

  it.each(instances)(
    'passes every scenario against a %s instance',
    { timeout: 300_000 },
    async (_name, extra) => {
      const sim = await startTestServer({ ...extra, caDir, transcriptionDelay: 0 });
      onCleanup(() => sim.stop());
      const base = sim.https?.url ?? sim.url;
      const dir = await reportsDir();
      let out = '';
      const code = await runContract(['--target', 'url', '--base-url', base, '--reports-dir', dir], {
        suite: await sourceSuite(),
        spawn: spawnTracked,
        env: cleanEnv(),
        onOutput: (s) => {
          out += s;
        },
      });
      const summary = await readFile(join(dir, 'contract-summary.md'), 'utf8').catch(() => out.slice(-4000));
      expect(code, summary.slice(summary.indexOf('## Failed'), 4000)).toBe(0);
      expect(summary).toContain(base);
      const { results } = JSON.parse(await readFile(join(dir, 'contract-results.json'), 'utf8')) as {
        results: Result[];
      };
      // Every scenario ran and passed: none skipped for want of something on this instance.
      expect(results.length).toBeGreaterThanOrEqual(48);
      for (const r of results) expect(r.state, `${r.name}: ${r.reason}`).toBe('passed');
    },
  );
});
