import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CA_CERT_FILE } from './caFiles.js';
import { createCa, type KeyPair } from './certificates.js';

/**
 * The local certificate authority: created once, kept in a folder of its own (by default
 * `<data-dir>/ca`), its key readable by the owner only. The key is never served: the app
 * reads only the certificate (caFiles.ts, for the `/ca` page); the TLS listener signs leaves
 * with the key in memory.
 */
const CA_KEY_FILE = 'partner-sim-ca.key';

export interface LocalCa extends KeyPair {
  /** Folder holding both files. */
  dir: string;
  /** What clients trust (NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, --cacert, …). */
  certPath: string;
  keyPath: string;
  /** True when this call created it. */
  created: boolean;
}

/** A CA found in a state this process must not use (loose permissions, half written). */
export class CaError extends Error {
  override readonly name = 'CaError';
}

async function checkPrivate(path: string): Promise<void> {
  if (process.platform === 'win32') return; // no POSIX modes: ACLs decide there
  const s = await stat(path);
  const loose = s.mode & 0o077;
  if (loose) {
    throw new CaError(
      `the CA key ${path} is readable or writable by others (mode ${(s.mode & 0o777).toString(8)}); ` +
        `refusing to use it. Run 'chmod 600 ${path}' if only you have seen it, or delete its folder to create a new CA (clients must then trust the new one).`,
    );
  }
  if (typeof process.getuid === 'function' && s.uid !== process.getuid()) {
    throw new CaError(`the CA key ${path} belongs to another user (uid ${s.uid}); refusing to use it`);
  }
}

async function read(dir: string): Promise<LocalCa | undefined> {
  const certPath = join(dir, CA_CERT_FILE);
  const keyPath = join(dir, CA_KEY_FILE);
  const certPem = await readFile(certPath, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (certPem === undefined) return undefined;
  await checkPrivate(keyPath).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') throw new CaError(`${certPath} exists but its key ${keyPath} does not`);
    throw e;
  });
  return { dir, certPath, keyPath, certPem, keyPem: await readFile(keyPath, 'utf8'), created: false };
}

/**
 * Load the CA in `dir`, or create it there. Creation writes both files into a private temporary
 * folder beside it and renames that folder into place, so an instance starting at the same
 * moment sees either no CA or a whole one, never a key without its certificate.
 */
export async function loadOrCreateCa(dir: string): Promise<LocalCa> {
  const found = await read(dir);
  if (found) return found;
  const parent = join(dir, '..');
  await mkdir(parent, { recursive: true });
  const tmp = await mkdtemp(join(parent, '.ca-')); // mode 0700
  try {
    const ca = createCa(`partner-sim local CA (${hostname()}, ${new Date().toISOString().slice(0, 10)})`);
    await writeFile(join(tmp, CA_KEY_FILE), ca.keyPem, { mode: 0o600, flag: 'wx' });
    await writeFile(join(tmp, CA_CERT_FILE), ca.certPem, { mode: 0o644, flag: 'wx' });
    try {
      await rename(tmp, dir);
    } catch (e) {
      // Someone else's CA landed first (or an empty folder is in the way): use what is there.
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
      const other = await read(dir);
      if (other) return other;
      throw new CaError(
        `${dir} holds other files but no ${CA_CERT_FILE}: give --ca-dir an empty or new folder`,
      );
    }
    return { ...(await read(dir))!, created: true };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
