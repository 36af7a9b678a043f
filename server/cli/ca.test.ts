import { chmod, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../cli.js';
import { tempDataDir } from '../testing/testServer.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await cleanup?.();
});

/** Run `partner-sim …` in process; what it printed on stdout and stderr, and its exit code. */
async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    out += String(s);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => {
    err += String(s);
    return true;
  });
  const code = await main(argv);
  vi.restoreAllMocks();
  return { code, out, err };
}

describe('partner-sim ca', () => {
  it('--help tells how every kind of client trusts the CA', async () => {
    const r = await cli('ca', '--help');
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
    const first = await cli('ca', '--data-dir', tmp.dir);
    expect(first.code).toBe(0);
    const cert = join(tmp.dir, 'ca', 'partner-sim-ca.pem');
    expect(first.out).toContain(`Created the local certificate authority`);
    expect(first.out).toContain(`certificate: ${cert}`);
    expect(first.out).toContain(`NODE_EXTRA_CA_CERTS=${cert}`);
    // Where a device downloads it while the simulator runs, on the port asked for.
    expect(first.out).toContain('page:        http://127.0.0.1:4010/ca');
    expect(first.out).toContain('http://10.0.2.2:4010/ca');
    expect((await cli('ca', '--data-dir', tmp.dir, '--port', '4123')).out).toContain(
      'http://127.0.0.1:4123/ca',
    );
    const key = join(tmp.dir, 'ca', 'partner-sim-ca.key');
    expect((await stat(key)).mode & 0o777).toBe(0o600);
    const pem = await cli('ca', '--data-dir', tmp.dir, '--pem');
    expect(pem.out).toMatch(/^-----BEGIN CERTIFICATE-----\r?\n[\s\S]+-----END CERTIFICATE-----\s*$/);
    expect(pem.out).not.toContain('PRIVATE KEY');

    await chmod(key, 0o640);
    const loose = await cli('ca', '--data-dir', tmp.dir);
    expect(loose.code).toBe(1);
    expect(loose.err).toContain(`chmod 600 ${key}`);
    // serve --https refuses it the same way, before listening.
    const serve = await cli(
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
