import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CA_FILES, CA_PATH } from '../tls/caFiles.js';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The CA of an `https://` simulator on this machine, from its own `/ca` page (plain HTTP on
 * the same port, served even with --https-only), so `partner-sim contract --base-url
 * https://127.0.0.1:4010` needs no NODE_EXTRA_CA_CERTS. Loopback only: fetched over plain
 * HTTP, a certificate from across a network could be anyone's (there the user trusts the CA).
 * Undefined when the target is not such a simulator.
 */
export async function loopbackSimulatorCa(root: string, timeoutMs: number): Promise<string | undefined> {
  const at = new URL(root);
  if (at.protocol !== 'https:' || !LOOPBACK.test(at.hostname)) return undefined;
  try {
    const res = await fetch(`http://${at.hostname}:${at.port || 443}${CA_PATH}/${CA_FILES.pem}`, {
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const pem = await res.text();
    return res.ok && new X509Certificate(pem).ca ? pem : undefined;
  } catch {
    return undefined; // not a simulator's page: the probe says what is wrong with the target
  }
}

/**
 * The run's environment with `pem` trusted too: NODE_EXTRA_CA_CERTS is read once, at the
 * start of the suite's process, so it names a file holding the certificates the user already
 * trusts that way and this one. `cleanup` removes the file after the run.
 */
export async function trusting(
  env: NodeJS.ProcessEnv,
  pem: string,
): Promise<{ env: NodeJS.ProcessEnv; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'partner-sim-contract-ca-'));
  const file = join(dir, 'trusted.pem');
  const already = env.NODE_EXTRA_CA_CERTS
    ? await readFile(env.NODE_EXTRA_CA_CERTS, 'utf8').catch(() => '')
    : '';
  await writeFile(file, `${already.trimEnd()}\n${pem}`.trimStart());
  return {
    env: { ...env, NODE_EXTRA_CA_CERTS: file },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
