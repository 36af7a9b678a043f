import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Where the local CA's files are, and its certificate as the simulator hands it out (the
 * `/ca` page, the control API). Only the certificate is ever read here, never the key; no
 * node-forge either, so a plain start that answers `/ca` loads nothing of `serve --https`.
 */
export const CA_CERT_FILE = 'partner-sim-ca.pem';

/** The page that hands the certificate to devices (server/docs/caPage.ts), and its downloads. */
export const CA_PATH = '/ca';
export const CA_FILES = { pem: CA_CERT_FILE, crt: 'partner-sim-ca.crt' } as const;

/** Whether a request target is the CA page or one of its downloads (plain HTTP even with --https-only). */
export const isCaPath = (target: string): boolean => /^\/ca(\/[^?]*)?(\?|$)/.test(target);

/** The folder the CA lives in: `--ca-dir`, else `ca` inside the data folder. */
export const caDirOf = (cfg: { caDir?: string | undefined; dataDir: string }): string =>
  cfg.caDir ?? join(cfg.dataDir, 'ca');

export interface CaCertificate {
  pem: string;
  /** The same certificate in DER (the `.crt` download: what Android and Windows install). */
  der: Buffer;
  /** SHA-256 fingerprint, `AB:CD:…`, to compare with what a device shows before trusting it. */
  fingerprint256: string;
  subject: string;
  validTo: string;
}

// Read once per folder, on first ask: the certificate does not change while an instance runs
// (the leaf it signed is issued at start). A failed read is not kept, so it is tried again.
const read = new Map<string, Promise<CaCertificate | undefined>>();

/** The CA certificate in `dir`, or undefined when there is none (yet). */
export function caCertificate(dir: string): Promise<CaCertificate | undefined> {
  let got = read.get(dir);
  if (!got) {
    got = readFile(join(dir, CA_CERT_FILE), 'utf8').then(
      (pem) => {
        const x = new X509Certificate(pem);
        return { pem, der: x.raw, fingerprint256: x.fingerprint256, subject: x.subject, validTo: x.validTo };
      },
      (e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return undefined;
        throw e;
      },
    );
    read.set(dir, got);
    got.then(
      (c) => c ?? read.delete(dir),
      () => read.delete(dir),
    );
  }
  return got;
}
