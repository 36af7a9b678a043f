import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useContractRuns } from '../testing/contractRuns.js';
import { http } from '../testing/http.js';
import { sourceSuite } from '../testing/sourceBuild.js';
import { spawnTracked } from '../testing/spawnTracked.js';
import { startTestServer } from '../testing/testServer.js';
import { runContract } from './command.js';

const { cleanEnv, reportsDir, onCleanup } = useContractRuns();

interface Result {
  name: string;
  tags: string[];
  state: string;
  reason?: string;
}

describe('partner-sim contract (runner)', () => {
  it('prints its help', async () => {
    let out = '';
    expect(
      await runContract(['--help'], {
        onOutput: (s) => {
          out += s;
        },
      }),
    ).toBe(0);
    expect(out).toContain('--target <sim|url|live|URL>');
    expect(out).toContain('--compare <sim|live|URL>');
    expect(out).toContain('--fail-on-drift');
    expect(out).toContain('PARTNER_CLIENT_ID');
  });

  it('fails fast on live without credentials, naming every missing setting, and starts nothing', async () => {
    let out = '';
    const code = await runContract(['--live'], {
      suite: await sourceSuite(),
      spawn: spawnTracked,
      env: cleanEnv({}),
      onOutput: (s) => {
        out += s;
      },
    });
    expect(code).toBe(2);
    for (const name of [
      'CONTRACT_REGION',
      'PARTNER_CLIENT_ID',
      'PARTNER_SECRET_KEY',
      'PARTNER_API_KEY',
      'PARTNER_USER_ID',
    ])
      expect(out).toContain(name);
    expect(out).not.toContain('RUN');
  });

  it(
    'with fake credentials against a local simulator, --live runs only the live-safe subset',
    {
      timeout: 90_000,
    },
    async () => {
      const sim = await startTestServer({ transcriptionDelay: 0 });
      onCleanup(() => sim.stop());
      const fake = {
        client_id: 'fake-live-client',
        secret_key: 'fake-live-secret-0001',
        api_key: 'fake-live-api-key-0001',
      };
      expect((await http('POST', `${sim.admin}/apps`, { json: { ...fake, region: 'us' } })).status).toBe(201);
      const serials = { bound: '881FAKE0000001', unbound: '882FAKE0000002', never: '881FAKE0000003' };
      const other = 'client_user_3f2c8a90-1b2c-4d5e-8f90-123456789abc';
      await http('PUT', `${sim.admin}/devices/${serials.bound}`, {
        json: { is_bind: true, bind_history: [other], owner: { sub: other, client_id: 'other-partner-us' } },
      });
      await http('PUT', `${sim.admin}/devices/${serials.unbound}`, {
        json: { is_bind: false, bind_history: [other] },
      });
      await http('PUT', `${sim.admin}/devices/${serials.never}`, { json: { is_bind: null } });
      const dir = await reportsDir();
      // The suite's process hands vitest its config (contracts/run.ts): vite importing the
      // file registered module hooks, a thread serving every later import (issue 33).
      const hooks = await reportsDir();
      const preload = join(hooks, 'register.cjs');
      await writeFile(
        preload,
        `const m = require('node:module');
const register = m.register;
m.register = function (...args) {
  if (require('node:worker_threads').isMainThread)
    require('node:fs').appendFileSync(${JSON.stringify(join(hooks, 'log'))}, String(args[0]).slice(0, 60) + '\\n');
  return register.apply(this, args);
};\n`,
      );
      let out = '';
      const code = await runContract(['--live', '--reports-dir', dir], {
        suite: await sourceSuite(),
        spawn: spawnTracked,
        env: cleanEnv({
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require "${preload}"`.trim(),
          CONTRACT_BASE_URL: sim.url,
          PARTNER_CLIENT_ID: fake.client_id,
          PARTNER_SECRET_KEY: fake.secret_key,
          PARTNER_API_KEY: fake.api_key,
          PARTNER_USER_ID: 'contract-live-user-01',
          CONTRACT_SN_BOUND_OTHER: serials.bound,
          CONTRACT_SN_UNBOUND: serials.unbound,
          CONTRACT_SN_NEVER_BOUND: serials.never,
          CONTRACT_RATE_PER_SECOND: '500',
        }),
        onOutput: (s) => {
          out += s;
        },
      });
      const { results } = JSON.parse(await readFile(join(dir, 'contract-results.json'), 'utf8')) as {
        results: Result[];
      };
      expect(code, out.slice(-3000)).toBe(0);
      const ran = results.filter((r) => r.state !== 'skipped');
      expect(ran.length).toBeGreaterThan(10);
      for (const r of ran) {
        expect(r.tags, r.name).toEqual(['live-safe']);
        expect(r.state, `${r.name}: ${r.reason}`).toBe('passed');
      }
      // Everything else was collected but not run.
      const notSafe = results.filter((r) => !r.tags.includes('live-safe'));
      expect(notSafe.some((r) => r.tags.includes('arranged'))).toBe(true);
      expect(notSafe.some((r) => r.tags.includes('mutates'))).toBe(true);
      for (const r of notSafe) expect(r.state, r.name).toBe('skipped');
      // No secret in the output or the reports.
      const reports = out + (await readFile(join(dir, 'contract-summary.md'), 'utf8'));
      expect(reports).not.toContain(fake.secret_key);
      expect(reports).not.toContain(fake.api_key);
      const junit = await readFile(join(dir, 'contract-junit.xml'), 'utf8');
      expect(junit.match(/<skipped message="not run on live/g)?.length).toBe(notSafe.length);
      expect(await readFile(join(hooks, 'log'), 'utf8').catch(() => '')).toBe('');
    },
  );

  it(
    'fails naming the field when the target drops a required field from a response',
    {
      timeout: 60_000,
    },
    async () => {
      const sim = await startTestServer({
        breakResponse: 'createUserToken:access_token',
        validateResponses: false,
      });
      onCleanup(() => sim.stop());
      const dir = await reportsDir();
      let out = '';
      const code = await runContract(
        ['--target', 'url', '--base-url', sim.url, '--reports-dir', dir, 'tokens.test'],
        {
          suite: await sourceSuite(),
          spawn: spawnTracked,
          env: cleanEnv({}),
          onOutput: (s) => {
            out += s;
          },
        },
      );
      expect(code).not.toBe(0);
      expect(out).toContain(
        "createUserToken 200 response body: /access_token must have required property 'access_token'",
      );
      const summary = await readFile(join(dir, 'contract-summary.md'), 'utf8');
      expect(summary).toMatch(/## Failed/);
      expect(summary).toContain('/access_token');
    },
  );
});
