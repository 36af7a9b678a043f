import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Minimal HS256 JSON Web Tokens. Hand-written on purpose: the simulator only ever signs and
 * verifies its own tokens with one algorithm, and a synchronous HMAC keeps verification in the
 * microseconds (general JWT libraries are async and negotiate algorithms we never use).
 */
export type JwtClaims = Record<string, unknown> & { iat: number; exp: number };

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

export function signJwt(claims: JwtClaims, secret: Buffer): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const sig = createHmac('sha256', secret).update(`${HEADER}.${payload}`).digest('base64url');
  return `${HEADER}.${payload}.${sig}`;
}

/** The claims of a token signed with `secret`, or undefined when it is malformed or tampered. */
export function verifyJwt(token: string, secret: Buffer): JwtClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, sig] = parts as [string, string, string];
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  // Node's decoder skips characters outside the alphabet and padding, so 'sig*' or 'sig=='
  // would decode to the same bytes: only the one canonical spelling of the signature counts.
  const given = Buffer.from(sig, 'base64url');
  if (given.toString('base64url') !== sig) return undefined;
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const h = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string };
    if (h.alg !== 'HS256') return undefined;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as JwtClaims;
    if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') return undefined;
    return claims;
  } catch {
    return undefined;
  }
}

/** Decode without verifying: for tests and for clients that read their own token's claims. */
export function decodeJwt(token: string): Record<string, unknown> {
  const payload = token.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
}
