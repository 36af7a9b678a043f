import { X509Certificate } from 'node:crypto';
import { chmod, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import forge from 'node-forge';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDataDir } from '../testing/testServer.js';
import { CaError, loadOrCreateCa } from './caStore.js';
import { issueLeaf } from './certificates.js';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.map((c) => c()));
  cleanups = [];
});
async function tmp(): Promise<string> {
  const { dir, cleanup } = await tempDataDir();
  cleanups.push(cleanup);
  return dir;
}

describe('the local CA', () => {
  it('is created once, key and folder owner-only, and loaded as it is afterwards', async () => {
    const dir = join(await tmp(), 'ca');
    const first = await loadOrCreateCa(dir);
    expect(first.created).toBe(true);
    expect((await stat(first.keyPath)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const cert = new X509Certificate(await readFile(first.certPath));
    expect(cert.ca).toBe(true);
    expect(cert.checkPrivateKey((await import('node:crypto')).createPrivateKey(first.keyPem))).toBe(true);
    const again = await loadOrCreateCa(dir);
    expect(again.created).toBe(false);
    expect(again.certPem).toBe(first.certPem);
  });

  it('two instances creating it at once end up with the same one', async () => {
    const dir = join(await tmp(), 'ca');
    const [a, b] = await Promise.all([loadOrCreateCa(dir), loadOrCreateCa(dir)]);
    expect(a.certPem).toBe(b.certPem);
    expect(await readFile(a.certPath, 'utf8')).toBe(a.certPem);
  });

  it.skipIf(process.platform === 'win32')('refuses a key others can read, naming the fix', async () => {
    const dir = join(await tmp(), 'ca');
    const ca = await loadOrCreateCa(dir);
    await chmod(ca.keyPath, 0o644);
    const err = await loadOrCreateCa(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CaError);
    expect((err as Error).message).toContain(`chmod 600 ${ca.keyPath}`);
    expect((err as Error).message).toContain('mode 644');
  });

  it('issues leaves that verify against it, for DNS names and IP addresses', async () => {
    const ca = await loadOrCreateCa(join(await tmp(), 'ca'));
    const leaf = new X509Certificate(
      issueLeaf(ca, ['localhost', '127.0.0.1', '::1', 'platform-us.plaud.ai']).certPem,
    );
    expect(leaf.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(leaf.checkHost('platform-us.plaud.ai')).toBe('platform-us.plaud.ai');
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkIP('::1')).toBe('::1');
    expect(leaf.checkHost('platform-eu.plaud.ai')).toBeUndefined();
    expect(leaf.ca).toBe(false);
    // Apple platforms refuse server certificates valid for more than 398 days.
    const days = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 86_400_000;
    expect(days).toBeLessThanOrEqual(398);
  });

  it('issues every leaf of a process with one key, made once, each certificate its own', async () => {
    const [a, b] = await Promise.all([tmp(), tmp()]);
    const caA = await loadOrCreateCa(join(a, 'ca'));
    const caB = await loadOrCreateCa(join(b, 'ca'));
    const one = issueLeaf(caA, ['localhost']);
    const two = issueLeaf(caB, ['127.0.0.1']);
    expect(two.keyPem).toBe(one.keyPem);
    expect(caB.keyPem).not.toBe(caA.keyPem);
    const [x, y] = [new X509Certificate(one.certPem), new X509Certificate(two.certPem)];
    expect(y.serialNumber).not.toBe(x.serialNumber);
    expect(x.verify(new X509Certificate(caA.certPem).publicKey)).toBe(true);
    expect(y.verify(new X509Certificate(caB.certPem).publicKey)).toBe(true);
    expect(y.verify(new X509Certificate(caA.certPem).publicKey)).toBe(false);
  });

  it("signs with Node's native RSA, not forge's JavaScript one (~0.3 s of CPU per certificate)", async () => {
    const toForgeKey = vi.spyOn(forge.pki, 'privateKeyFromPem');
    try {
      const ca = await loadOrCreateCa(join(await tmp(), 'ca'));
      const leaf = new X509Certificate(issueLeaf(ca, ['localhost']).certPem);
      expect(leaf.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
      expect(new X509Certificate(ca.certPem).verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
      expect(toForgeKey).not.toHaveBeenCalled();
    } finally {
      toForgeKey.mockRestore();
    }
  });
});
