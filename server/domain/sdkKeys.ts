import {
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { promisify } from 'node:util';
import type { Collection, Store } from '../store/store.js';
import type { Region } from './apps.js';
import type { DeviceType } from './deviceModel.js';

const generate = promisify(generateKeyPair);

/** An RSA-2048 signature (PKCS#1 v1.5): exactly this many bytes. */
const SIGNATURE_BYTES = 256;

interface SigningKeyRecord {
  /** PKCS#8 PEM. */
  privateKey: string;
}

interface SigningKey {
  private: KeyObject;
  public: KeyObject;
}

/**
 * The SDK's cloud cryptography: serial signatures (`sn-sign`, checked by `sn-verify`) and the
 * key pair `gen-key` hands out. A signature is RSA-2048 PKCS#1 v1.5 over SHA-256 of the type
 * and serial, in standard base64 (256 bytes, padding included: what a public provisioner
 * decodes strictly), made with the simulator's own key of the caller's region. Each region's
 * key is made once, off the event loop, and stored (every instance on a shared store, and
 * every restart, signs alike); PKCS#1 v1.5 is deterministic, so a serial's signature is the
 * same on every call and any change to it fails.
 */
export class SdkKeys {
  private readonly keys = new Map<Region, Promise<SigningKey>>();
  private readonly stored: Collection<SigningKeyRecord> | undefined;

  /** Without a store the keys live in memory only (unit tests). */
  constructor(store?: Store) {
    this.stored = store?.collection<SigningKeyRecord>('sdkSigningKeys');
  }

  async signature(region: Region, type: DeviceType, sn: string): Promise<string> {
    const key = await this.signingKey(region);
    return sign('sha256', message(type, sn), key.private).toString('base64');
  }

  /** Strict: canonical standard base64 of exactly 256 bytes, verified with the region's key. */
  async verify(region: Region, type: DeviceType, sn: string, signature: string): Promise<boolean> {
    const bytes = Buffer.from(signature, 'base64');
    if (bytes.length !== SIGNATURE_BYTES || bytes.toString('base64') !== signature) return false;
    const key = await this.signingKey(region);
    return verify('sha256', message(type, sn), key.public, bytes);
  }

  /** Forget the keys held in memory (the store was emptied): they are loaded or made again. */
  forget(): void {
    this.keys.clear();
  }

  private signingKey(region: Region): Promise<SigningKey> {
    let key = this.keys.get(region);
    if (!key) {
      key = this.loadOrMake(region);
      this.keys.set(region, key);
      key.catch(() => this.keys.delete(region));
    }
    return key;
  }

  private async loadOrMake(region: Region): Promise<SigningKey> {
    const id = `serial-signing/${region}`;
    let rec = await this.stored?.get(id);
    if (!rec) {
      const fresh = { privateKey: (await this.pem()).privateKey };
      // update: of two instances making a key at once, the first one stored is everyone's.
      rec = this.stored
        ? await this.stored.update(id, (prev) => (prev ? { result: prev } : { next: fresh, result: fresh }))
        : fresh;
    }
    const priv = createPrivateKey(rec.privateKey);
    return { private: priv, public: createPublicKey(priv) };
  }

  /** A fresh 2048-bit RSA pair in PEM (SPKI / PKCS#8); generated off the event loop (libuv's pool). */
  private pem(): Promise<{ publicKey: string; privateKey: string }> {
    return generate('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
  }

  /**
   * gen-key's answer: the SDK's own response class is snake_case (`public_key`,
   * `private_key`); camelCase beside it for the clients that read that.
   */
  async keyPair(): Promise<{
    public_key: string;
    private_key: string;
    publicKey: string;
    privateKey: string;
  }> {
    const { publicKey, privateKey } = await this.pem();
    return { public_key: publicKey, private_key: privateKey, publicKey, privateKey };
  }
}

const message = (type: DeviceType, sn: string): Buffer => Buffer.from(`${type}\u0000${sn}`);
