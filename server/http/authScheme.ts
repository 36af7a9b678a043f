/**
 * The one reading of an `Authorization` header for every surface (partner API, device
 * protocol, control API, the recorder, compare's replay): `<scheme> <credentials>`. The
 * scheme is case-insensitive (RFC 9110 §11.1): `bearer`, `BEARER` and `Bearer` are one scheme,
 * as clients and proxies spell it variously; the credentials are kept as sent.
 */
export type AuthScheme = 'Basic' | 'Bearer';

/** Whether `header` names `scheme` (in any case), whatever follows it. */
export function hasScheme(header: unknown, scheme: AuthScheme): boolean {
  if (typeof header !== 'string') return false;
  return /^\S+/.exec(header)?.[0].toLowerCase() === scheme.toLowerCase();
}

/** The credentials of `header`, one token after `scheme`; undefined for any other header or none. */
export function credentialsOf(header: unknown, scheme: AuthScheme): string | undefined {
  if (!hasScheme(header, scheme)) return undefined;
  return /^\S+\s+(\S+)\s*$/.exec(header as string)?.[1];
}
