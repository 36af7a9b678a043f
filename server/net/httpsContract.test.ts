import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { runContract } from '../contract/command.js';
import { useContractRuns } from '../testing/contractRuns.js';
import { startTestServer, tempDataDir } from '../testing/testServer.js';

// The contract suite, `--target url`, against the HTTPS listener: every scenario over TLS,
// the local CA trusted the way a user trusts it (NODE_EXTRA_CA_CERTS in the suite's process).
const { cleanEnv, reportsDir, onCleanup } = useContractRuns();

describe('contract suite against serve --https', () => {
  it('passes with --target url --base-url https://…', { timeout: 300_000 }, async () => {
    const tmp = await tempDataDir();
    const sim = await startTestServer({ https: true, caDir: join(tmp.dir, 'ca'), transcriptionDelay: 0 });
    const ca = sim.https!.caCertPath;
    // The reachability probe runs in this process, which started without the CA: as a user's
    // `NODE_EXTRA_CA_CERTS=… partner-sim contract` would have it, this process trusts it too.
    const previous = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ connect: { ca: await readFile(ca, 'utf8') } }));
    onCleanup(
      async () => setGlobalDispatcher(previous),
      () => sim.stop(),
      () => tmp.cleanup(),
    );
    const dir = await reportsDir();
    let out = '';
    const code = await runContract(['--target', 'url', '--base-url', sim.https!.url, '--reports-dir', dir], {
      env: cleanEnv({ NODE_EXTRA_CA_CERTS: ca }),
      onOutput: (s) => {
        out += s;
      },
    });
    const summary = await readFile(join(dir, 'contract-summary.md'), 'utf8').catch(() => out.slice(-4000));
    expect(code, summary.slice(summary.indexOf('## Failed'), 4000)).toBe(0);
    expect(summary).toMatch(/passed/);
    expect(summary).toContain(sim.https!.url);
  });
});
