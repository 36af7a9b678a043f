import { createHash, randomFillSync } from 'node:crypto';

/**
 * The random source of an instance. Every id, generated secret and probabilistic fault comes
 * from here. Without a seed it reads the operating system's CSPRNG (node:crypto), so nobody
 * can compute an instance's keys or credentials; with a seed it is sfc32, so the same
 * `--seed` and the same requests give the same answers (and guessable secrets: tests only).
 * `fork(label)` derives an independent stream, so adding a consumer in one place does not
 * shift the numbers seen by another.
 */
export class Random {
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 0;
  /** CSPRNG mode: bytes fetched a page at a time (one syscall per 1 KiB, not per draw). */
  private pool: Buffer | undefined;
  private poolPos = 0;

  /** `seed` undefined: cryptographically random, not reproducible. */
  constructor(readonly seed: string | undefined) {
    if (seed === undefined) {
      this.pool = Buffer.alloc(1024);
      this.poolPos = this.pool.length;
      return;
    }
    const h = createHash('sha256').update(seed).digest();
    this.a = h.readUInt32LE(0);
    this.b = h.readUInt32LE(4);
    this.c = h.readUInt32LE(8);
    this.d = h.readUInt32LE(12);
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** True when drawn from the CSPRNG (no seed). */
  get secure(): boolean {
    return this.pool !== undefined;
  }

  private nextUint32(): number {
    if (this.pool) {
      if (this.poolPos + 4 > this.pool.length) {
        randomFillSync(this.pool);
        this.poolPos = 0;
      }
      const v = this.pool.readUInt32LE(this.poolPos);
      this.poolPos += 4;
      return v;
    }
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [0, max). */
  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i += 4) {
      const v = this.nextUint32();
      for (let j = 0; j < 4 && i + j < n; j++) out[i + j] = (v >>> (j * 8)) & 0xff;
    }
    return out;
  }

  hex(bytes: number): string {
    return this.bytes(bytes).toString('hex');
  }

  /** RFC 4122 version-4 shaped UUID drawn from this stream. */
  uuid(): string {
    const b = this.bytes(16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    return formatUuid(b);
  }

  /** URL-safe token of `bytes` random bytes. */
  token(bytes = 24): string {
    return this.bytes(bytes).toString('base64url');
  }

  fork(label: string): Random {
    return new Random(this.seed === undefined ? undefined : `${this.seed}/${label}`);
  }
}

function formatUuid(b: Buffer): string {
  const h = b.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** Name-based UUID (version 5 layout over SHA-1): stable for the same inputs, no state needed. */
export function stableUuid(...parts: string[]): string {
  const b = createHash('sha1').update(parts.join('\u0000')).digest();
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  return formatUuid(b);
}
