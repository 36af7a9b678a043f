import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useContractRuns } from '../testing/contractRuns.js';
import { freePort } from '../testing/freePort.js';
import { sourceSuite } from '../testing/sourceBuild.js';
import { spawnTracked } from '../testing/spawnTracked.js';
import { startTestServer } from '../testing/testServer.js';
import { runContract } from './command.js';

const { cleanEnv, reportsDir, onCleanup } = useContractRuns();

async function run(argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runContract(argv, {
    suite: await sourceSuite(),
    spawn: spawnTracked,
    env: cleanEnv(),
    onOutput: (s) => {
      out += s;
    },
  });
  return { code, out };
}

interface Results {
  unreachable?: string;
  coverage: { operations: { operation: string; statuses: { status: string; exercised: boolean }[] }[] };
  results: { state: string; reason?: string }[];
}
const results = async (dir: string) =>
  JSON.parse(await readFile(join(dir, 'contract-results.json'), 'utf8')) as Results;

// Each test runs the suite in vitest children (two with --compare): minutes on a busy machine.
describe('partner-sim contract reports', { timeout: 120_000 }, () => {
  it('a target that is down fails the run, and every report says target unreachable with the URL', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const dir = await reportsDir();
    const { code, out } = await run(['--target', url, '--reports-dir', dir]);
    expect(code).toBe(1);
    expect(out).toMatch(new RegExp(`partner-sim contract: target unreachable: ${url}: .*ECONNREFUSED`));
    const summary = await readFile(join(dir, 'contract-summary.md'), 'utf8');
    expect(summary).toContain(`Run failed: target unreachable: ${url}`);
    expect(summary).toMatch(/passed 0, failed \d+, skipped 0/);
    expect(summary).not.toContain('not selected');
    const json = await results(dir);
    expect(json.results.length).toBeGreaterThan(40);
    for (const r of json.results) {
      expect(r.state).toBe('failed');
      expect(r.reason).toContain(`target unreachable: ${url}`);
    }
    const junit = await readFile(join(dir, 'contract-junit.xml'), 'utf8');
    expect(junit).not.toContain('<skipped');
    expect(
      junit.match(/<failure message="failed: target unreachable: http:\/\/127\.0\.0\.1:\d+: /g)?.length,
    ).toBe(json.results.length);
  });

  it('the summary, the JSON and JUnit carry the status coverage index of what the run exercised', async () => {
    const dir = await reportsDir();
    const { code, out } = await run(['--reports-dir', dir, 'tokens.test']);
    expect(code, out.slice(-2000)).toBe(0);
    const summary = await readFile(join(dir, 'contract-summary.md'), 'utf8');
    expect(summary).toMatch(/## Status coverage: \d+\/\d+ declared responses exercised \([\d.]+%\)/);
    // The tokens scenarios get a 200 and a 401 from the exchange; nothing touched transcriptions.
    const line = (op: string) => summary.split('\n').find((l) => new RegExp(`^\\W*${op} `).test(l)) ?? '';
    expect(line('getPartnerToken')).toMatch(/ 200 ✓ .* 401 ✓ .* 429 ✗ .*\(\d+\/\d+\)/);
    // Every declared status of an operation nothing touched is listed, none exercised.
    expect(line('createTranscription')).toMatch(/ 200 ✗ .* 401 ✗ .*\(0\/\d+\)/);
    expect(line('createTranscription')).not.toContain('✓');
    const op = (await results(dir)).coverage.operations.find((o) => o.operation === 'createUserToken')!;
    expect(op.statuses.filter((s) => s.exercised).map((s) => s.status)).toEqual(['200', '401', '403', '422']);
    const junit = await readFile(join(dir, 'contract-junit.xml'), 'utf8');
    expect(junit).toMatch(
      /<property name="coverage.createUserToken" value="200 ✓ .*401 ✓ 403 ✓ .*422 ✓ 429 ✗ .*\(4\/\d+\)"\/>/,
    );
  });

  it('--compare reports where two differently configured simulators differ in shape', async () => {
    const spec = await startTestServer({ transcriptionDelay: 0 });
    const live = await startTestServer({ transcriptionDelay: 0, errorShape: 'live', resultShape: 'live' });
    onCleanup(
      () => spec.stop(),
      () => live.stop(),
    );
    const dir = await reportsDir();
    const { code, out } = await run([
      '--target',
      spec.url,
      '--compare',
      live.url,
      '--fail-on-drift',
      '--reports-dir',
      dir,
      'tokens.test',
      'transcription.test',
    ]);
    expect(code, out.slice(-3000)).toBe(1);
    const md = await readFile(join(dir, 'contract-drift.md'), 'utf8');
    expect(out).toContain(md);
    expect(md).toContain('| createUserToken | 401 | error form |  | {detail,message} | {code,message} |');
    expect(md).toContain('| getTranscription | 200 | only in main | /data/segments | array | - |');
    expect(md).toContain('| getTranscription | 200 | only in main | /data/segments[]/speaker | string | - |');
    expect(md).toMatch(/Same shape: .*getPartnerToken/);
    const report = JSON.parse(await readFile(join(dir, 'contract-drift.json'), 'utf8')) as {
      drift: { operation: string; kind: string }[];
    };
    expect(report.drift.some((d) => d.operation === 'getPartnerToken')).toBe(false);
    const skipped = (await results(join(dir, 'compare'))).results.filter((r) => r.state === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    for (const r of skipped)
      expect(r.reason).toBe('not run by --compare: only live-safe scenarios are compared');
    // Both runs kept their own reports.
    expect(await readFile(join(dir, 'main', 'contract-summary.md'), 'utf8')).toContain(`url (${spec.url})`);
    expect(await readFile(join(dir, 'compare', 'contract-summary.md'), 'utf8')).toContain(
      `url (${live.url})`,
    );
  });

  it('--compare of two alike simulators finds no drift and passes even with --fail-on-drift', async () => {
    const a = await startTestServer({ transcriptionDelay: 0 });
    const b = await startTestServer({ transcriptionDelay: 0 });
    onCleanup(
      () => a.stop(),
      () => b.stop(),
    );
    const dir = await reportsDir();
    const { code, out } = await run([
      '--target',
      a.url,
      '--compare',
      b.url,
      '--fail-on-drift',
      '--reports-dir',
      dir,
      'tokens.test',
    ]);
    expect(code, out.slice(-3000)).toBe(0);
    expect(await readFile(join(dir, 'contract-drift.md'), 'utf8')).toContain('No drift');
  });
});
