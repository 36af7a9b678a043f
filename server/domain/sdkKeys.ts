import { createHmac, generateKeyPair, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { DeviceType } from './deviceModel.js';

const generate = promisify(generateKeyPair);

/**
 * The SDK's cloud cryptography: serial signatures (`sn-sign`, checked by `sn-verify`) and the
 * key pair `gen-key` hands out. A signature is an HMAC of the simulator's own secret over the
 * type and serial, so it is the same on every call and every instance, and a tampered one fails.
 */
export class SdkKeys {
  constructor(private readonly secret: Buffer) {}

  signature(type: DeviceType, sn: string): string {
    return createHmac('sha256', this.secret).update(`${type}\u0000${sn}`).digest('base64url');
  }

  verify(type: DeviceType, sn: string, signature: string): boolean {
    const want = Buffer.from(this.signature(type, sn));
    const got = Buffer.from(signature);
    return got.length === want.length && timingSafeEqual(got, want);
  }

  /** A fresh 2048-bit RSA pair in PEM; generated off the event loop (libuv's pool). */
  async keyPair(): Promise<{ publicKey: string; privateKey: string }> {
    return generate('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
  }
}
