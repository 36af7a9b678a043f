import { chmod, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../testing/cliRun.js';
import { startTestServer, tempDataDir } from '../testing/testServer.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await cleanup?.();
});

describe('partner-sim ca', () => {
  it('--help tells how every kind of client trusts the CA', async () => {
    const r = await runCli('ca', '--help');
    expect(r.code).toBe(0);
    for (const s of [
      'NODE_EXTRA_CA_CERTS',
      'REQUESTS_CA_BUNDLE',
      'SSL_CERT_FILE',
      'curl --cacert',
      'keytool -importcert',
      'xcrun simctl keychain booted add-root-cert',
      'network_security_config',
      '10.0.2.2',
      'HTTPS_PROXY',
    ])
      expect(r.out).toContain(s);
  });

  it('creates the CA in the data folder once, prints its path, and refuses a key others can read', async () => {
    const tmp = await tempDataDir();
    cleanup = tmp.cleanup;
    const first = await runCli('ca', '--data-dir', tmp.dir);
    expect(first.code).toBe(0);
    const cert = join(tmp.dir, 'ca', 'partner-sim-ca.pem');
    expect(first.out).toContain(`Created the local certificate authority`);
    expect(first.out).toContain(`certificate: ${cert}`);
    expect(first.out).toContain(`NODE_EXTRA_CA_CERTS=${cert}`);
    // Where a device downloads it while the simulator runs, on the port asked for.
    expect(first.out).toContain('page:        http://127.0.0.1:4010/ca');
    expect(first.out).toContain('http://10.0.2.2:4010/ca');
    expect((await runCli('ca', '--data-dir', tmp.dir, '--port', '4123')).out).toContain(
      'http://127.0.0.1:4123/ca',
    );
    const key = join(tmp.dir, 'ca', 'partner-sim-ca.key');
    expect((await stat(key)).mode & 0o777).toBe(0o600);
    const pem = await runCli('ca', '--data-dir', tmp.dir, '--pem');
    expect(pem.out).toMatch(/^-----BEGIN CERTIFICATE-----\r?\n[\s\S]+-----END CERTIFICATE-----\s*$/);
    expect(pem.out).not.toContain('PRIVATE KEY');

    await chmod(key, 0o640);
    const loose = await runCli('ca', '--data-dir', tmp.dir);
    expect(loose.code).toBe(1);
    expect(loose.err).toContain(`chmod 600 ${key}`);
    // serve --https refuses it the same way, before listening.
    const serve = await runCli(
      'serve',
      '--https',
      '--in-memory',
      '--port',
      '0',
      '--data-dir',
      tmp.dir,
      '--log-level',
      'silent',
    );
    expect(serve.code).toBe(1);
    expect(serve.err).toContain('refusing to use it');
  }, 30_000);
});

describe('partner-sim ca: the shared --json and --target', () => {
  it('--json reports the local CA as one JSON document', async () => {
    const tmp = await tempDataDir();
    cleanup = tmp.cleanup;
    const r = await runCli('ca', '--data-dir', tmp.dir, '--port', '4123', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      certificate: join(tmp.dir, 'ca', 'partner-sim-ca.pem'),
      key: join(tmp.dir, 'ca', 'partner-sim-ca.key'),
      created: true,
      page: 'http://127.0.0.1:4123/ca',
    });
  });

  it("--target <URL> downloads a running simulator's CA; sim, live and a plain server say why not", async () => {
    const tmp = await tempDataDir();
    const https = await startTestServer({ https: true, caDir: join(tmp.dir, 'ca') });
    const plain = await startTestServer();
    cleanup = async () => {
      await Promise.all([https.stop(), plain.stop()]);
      await tmp.cleanup();
    };
    const local = (await runCli('ca', '--ca-dir', join(tmp.dir, 'ca'), '--pem')).out;
    expect(local).toContain('-----BEGIN CERTIFICATE-----');
    expect(await runCli('ca', '--target', https.url, '--pem')).toEqual({ code: 0, out: local, err: '' });
    const json = await runCli('ca', '--base-url', `${https.url}/developer/api`, '--json');
    expect(JSON.parse(json.out)).toEqual({ page: `${https.url}/ca`, pem: local });
    const told = await runCli('ca', '--target', https.url);
    expect(told.out).toContain(`save it: partner-sim ca --target ${https.url} --pem > partner-sim-ca.pem`);
    const none = await runCli('ca', '--target', plain.url);
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/\/ca\/partner-sim-ca\.pem answered \d+: .*\(is it serving with --https\?\)/);
    for (const target of ['sim', 'live']) {
      const r = await runCli('ca', '--target', target);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`--target ${target}: `);
    }
  }, 30_000);
});
