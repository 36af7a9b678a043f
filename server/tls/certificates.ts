import { constants, generateKeyPairSync, privateEncrypt, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

/**
 * X.509 certificates of the local CA and its leaves, built with node-forge (pure JS, no native
 * build, the same on Node 20 and 24) instead of hand-written ASN.1: extension encodings,
 * SAN IP addresses and signature algorithms are exactly where hand-rolled DER goes subtly
 * wrong and a client's verifier then fails with an unhelpful message. Keys come from Node's
 * own crypto (native, ~60 ms for RSA 2048), and so do the signatures: forge assembles and
 * hashes what is signed.
 */
const DAY_MS = 86_400_000;

export interface KeyPair {
  keyPem: string;
  certPem: string;
}

function rsaKey(): { privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privatePem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** A positive serial of 16 random bytes (the high bit cleared: DER integers are signed). */
function serial(): string {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b.toString('hex');
}

/** DER of a DigestInfo's SHA-256 AlgorithmIdentifier and digest header (RFC 8017, 9.2 note 1). */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/**
 * A signer for forge's `cert.sign` that signs with Node's native RSA: forge's own is pure
 * JavaScript and took ~0.3 s of CPU per certificate (issue 33), blocking the event loop of an
 * instance starting with --https. The same RSASSA-PKCS1-v1_5 signature: the private-key
 * operation on the DigestInfo of forge's SHA-256 digest, with block type 1 padding.
 */
function nativeSigner(keyPem: string): forge.pki.rsa.PrivateKey {
  return {
    sign: (md: forge.md.MessageDigest) =>
      privateEncrypt(
        { key: keyPem, padding: constants.RSA_PKCS1_PADDING },
        Buffer.concat([SHA256_DIGEST_INFO, Buffer.from(md.digest().getBytes(), 'binary')]),
      ).toString('binary'),
  } as unknown as forge.pki.rsa.PrivateKey;
}

function skeleton(publicPem: string, nowMs: number, days: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicPem);
  cert.serialNumber = serial();
  // A day back: a phone or emulator whose clock runs behind still accepts it.
  cert.validity.notBefore = new Date(nowMs - DAY_MS);
  cert.validity.notAfter = new Date(nowMs + days * DAY_MS);
  return cert;
}

/** A new self-signed CA, valid ten years: what clients are told to trust. */
export function createCa(commonName: string, nowMs = Date.now()): KeyPair {
  const key = rsaKey();
  const cert = skeleton(key.publicPem, nowMs, 3650);
  const subject = [
    { name: 'commonName', value: commonName },
    { name: 'organizationName', value: 'partner-sim (local testing only)' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(nativeSigner(key.privatePem), forge.md.sha256.create());
  return { keyPem: key.privatePem, certPem: forge.pki.certificateToPem(cert) };
}

/**
 * The key of every leaf this process issues: made on the first, in memory only. A process
 * starting several listeners (an embedding app, a test file) pays one RSA keygen for them,
 * not one each (~0.3 s of CPU that blocks the event loop; issue 33). Each certificate is still
 * its own (serial, names, validity).
 */
let leafKey: ReturnType<typeof rsaKey> | undefined;

/**
 * A server certificate for `names` (DNS names and IP addresses), signed by the CA. 397 days
 * at most: Apple platforms refuse longer-lived server certificates even from a trusted root.
 */
export function issueLeaf(ca: KeyPair, names: readonly string[], nowMs = Date.now()): KeyPair {
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  leafKey ??= rsaKey();
  const key = leafKey;
  const cert = skeleton(key.publicPem, nowMs, 397);
  cert.setSubject([{ name: 'commonName', value: names[0] ?? 'localhost' }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })),
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(nativeSigner(ca.keyPem), forge.md.sha256.create());
  return { keyPem: key.privatePem, certPem: forge.pki.certificateToPem(cert) };
}
