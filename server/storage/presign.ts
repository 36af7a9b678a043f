import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { SimError } from '../core/errors.js';

/**
 * SigV4-shaped presigned URLs. The canonical request is method, path (relative to the storage
 * mount, e.g. `/uploads/file_…`) and every query parameter but the signature, sorted and
 * RFC 3986-encoded; the signature is an HMAC-SHA256 with the instance's `presign` secret.
 *
 * The host is NOT part of the signature (although `X-Amz-SignedHeaders=host` is written, as
 * S3 does): the same URL keeps working behind a proxy, a port forward or a container name.
 */
const ALGORITHM = 'AWS4-HMAC-SHA256';
const ACCESS_KEY = 'SIMACCESSKEY';

/**
 * The access key of a URL signed for one app: `SIMACCESSKEY-<client_id>`. It sits in the signed
 * `X-Amz-Credential`, so it cannot be changed without breaking the signature, and it lets the
 * expiry follow that app's clock even after the session it named was swept or reset.
 */
export const accessKeyOf = (clientId: string): string => `${ACCESS_KEY}-${clientId}`;

/** The app a presigned URL was signed for (undefined: signed for no app, or not by us). */
function signerOf(params: URLSearchParams): string | undefined {
  const key = (params.get('X-Amz-Credential') ?? '').split('/')[0] ?? '';
  return key.startsWith(`${ACCESS_KEY}-`) ? key.slice(ACCESS_KEY.length + 1) || undefined : undefined;
}

/** Whether a credential is one of ours (any app's, or the bare key of older URLs). */
export const isOurCredential = (cred: string | null): boolean =>
  cred !== null && (cred.startsWith(`${ACCESS_KEY}/`) || cred.startsWith(`${ACCESS_KEY}-`));
const MAX_EXPIRES_S = 604_800;
const REQUIRED = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Signature',
  'X-Amz-Date',
  'X-Amz-SignedHeaders',
  'X-Amz-Expires',
] as const;

const rfc3986 = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** `20240101T000000Z` */
function amzDate(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

function parseAmzDate(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return Number.NaN;
  const [, y, mo, d, h, mi, se] = m.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, se!);
}

function canonicalQuery(params: URLSearchParams): string {
  return [...params]
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
    .sort()
    .join('&');
}

export class Presigner {
  constructor(
    private readonly secret: Buffer,
    private readonly region = 'us-east-1',
  ) {}

  private signature(method: string, path: string, params: URLSearchParams): string {
    const canonical = `${method}\n${path}\n${canonicalQuery(params)}\nhost\nUNSIGNED-PAYLOAD`;
    const cred = params.get('X-Amz-Credential') ?? '';
    const scope = cred.slice(cred.indexOf('/') + 1);
    const toSign = `${ALGORITHM}\n${params.get('X-Amz-Date')}\n${scope}\n${createHash('sha256').update(canonical).digest('hex')}`;
    return createHmac('sha256', this.secret).update(toSign).digest('hex');
  }

  /** The query string (without `?`) of a presigned URL for `method path`, signed at `nowMs`. */
  sign(
    method: string,
    path: string,
    extra: Record<string, string>,
    nowMs: number,
    expiresS: number,
    accessKey = ACCESS_KEY,
  ): string {
    const date = amzDate(nowMs);
    const params = new URLSearchParams(extra);
    params.set('X-Amz-Algorithm', ALGORITHM);
    params.set('X-Amz-Credential', `${accessKey}/${date.slice(0, 8)}/${this.region}/s3/aws4_request`);
    params.set('X-Amz-Date', date);
    params.set('X-Amz-Expires', String(Math.min(expiresS, MAX_EXPIRES_S)));
    params.set('X-Amz-SignedHeaders', 'host');
    params.set('X-Amz-Signature', this.signature(method, path, params));
    return params.toString();
  }

  /**
   * S3's order: some signature parameter present (403 AccessDenied for an anonymous request),
   * every one present and well-formed (400 AuthorizationQueryParametersError), not expired (403 AccessDenied), signature matches
   * (403 SignatureDoesNotMatch). Throws SimError; returns nothing when the URL is good.
   * `nowOf` tells the time on the clock of the app the URL names (see `signerOf`).
   */
  verify(
    method: string,
    path: string,
    params: URLSearchParams,
    nowOf: (signer: string | undefined) => number,
  ): void {
    // No signature parameter at all is an anonymous request, which S3 refuses on a private
    // bucket with 403 AccessDenied; only a partly signed URL is a malformed signature (400).
    if (REQUIRED.every((k) => !params.has(k))) throw SimError.forbidden('AccessDenied', 'Access Denied');
    for (const k of REQUIRED) {
      if (params.getAll(k).length !== 1) {
        throw SimError.badRequest(
          'AuthorizationQueryParametersError',
          'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
        );
      }
    }
    if (params.get('X-Amz-Algorithm') !== ALGORITHM) {
      throw SimError.badRequest(
        'AuthorizationQueryParametersError',
        'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"',
      );
    }
    const signedAt = parseAmzDate(params.get('X-Amz-Date')!);
    if (Number.isNaN(signedAt)) {
      throw SimError.badRequest(
        'AuthorizationQueryParametersError',
        "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"",
      );
    }
    const expiresRaw = params.get('X-Amz-Expires')!;
    const expires = /^\d{1,7}$/.test(expiresRaw) ? Number(expiresRaw) : Number.NaN;
    if (!(expires >= 0)) {
      throw SimError.badRequest('AuthorizationQueryParametersError', 'X-Amz-Expires should be a number');
    }
    if (expires > MAX_EXPIRES_S) {
      throw SimError.badRequest(
        'AuthorizationQueryParametersError',
        'X-Amz-Expires must be less than a week (in seconds) that is 604800',
      );
    }
    if (nowOf(signerOf(params)) > signedAt + expires * 1000)
      throw SimError.forbidden('AccessDenied', 'Request has expired');
    const given = Buffer.from(params.get('X-Amz-Signature')!);
    const expected = Buffer.from(this.signature(method, path, params));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw SimError.forbidden(
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      );
    }
  }
}
