import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures of both documented schemes, shared by the simulator (signing) and the
 * package's receiver helper (verifying), so partners check deliveries with the very code that
 * signed them — and the docs show the same in Node and Python (docs/webhooks.md).
 *
 * - `current`: `plaud-signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>`
 *   and `plaud-timestamp: <Unix seconds>`.
 * - `legacy`: `Plaud-Signature: <hex HMAC-SHA256(secret, raw body)>`, no timestamp.
 */
export type WebhookScheme = 'current' | 'legacy';

const SIGNATURE_HEADER = 'plaud-signature';
const TIMESTAMP_HEADER = 'plaud-timestamp';
/** A receiver's usual replay window: deliveries stamped further from its clock are refused. */
const DEFAULT_TOLERANCE_S = 300;

const hmacHex = (secret: string, text: string | Uint8Array): string =>
  createHmac('sha256', secret).update(text).digest('hex');

/** The signature headers of a delivery of `body` sent at `timestampS` (Unix seconds). */
export function signatureHeaders(
  scheme: WebhookScheme,
  secret: string,
  body: string,
  timestampS: number,
): Record<string, string> {
  if (scheme === 'legacy') return { 'Plaud-Signature': hmacHex(secret, body) };
  return {
    [SIGNATURE_HEADER]: `sha256=${hmacHex(secret, `${timestampS}.${body}`)}`,
    [TIMESTAMP_HEADER]: String(timestampS),
  };
}

export interface VerifyWebhookInput {
  /**
   * The endpoint's secret, as shown when it was registered. Missing or empty (an unset or
   * blank variable) is never a pass: the answer is `{ok: false, reason: 'no_secret'}`.
   */
  secret: string | undefined;
  /** The raw request body, exactly as received (parse JSON only after verifying). */
  body: string | Buffer;
  /** The request headers (any case; Node's `req.headers` or a fetch `Headers` object). */
  headers: Record<string, string | string[] | undefined> | { get(name: string): string | null };
  /** Default `current`. */
  scheme?: WebhookScheme | undefined;
  /** Replay window in seconds for the `current` scheme (default 300). */
  toleranceS?: number | undefined;
  /** The receiver's clock in ms (default Date.now()). */
  nowMs?: number | undefined;
}

export type VerifyWebhookResult =
  | { ok: true }
  | {
      ok: false;
      reason:
        | 'no_secret'
        | 'missing_signature'
        | 'bad_signature'
        | 'missing_timestamp'
        | 'stale_timestamp'
        | 'body_not_raw'
        | 'bad_input';
    };

/** A header's first value when it is a string; anything else (absent, a number, null) is none. */
function header(h: unknown, name: string): string | undefined {
  if (typeof h !== 'object' || h === null) return undefined;
  const get = (h as { get?: unknown }).get;
  let v: unknown;
  if (typeof get === 'function') v = get.call(h, name);
  else {
    const key = Object.keys(h).find((k) => k.toLowerCase() === name);
    v = key === undefined ? undefined : (h as Record<string, unknown>)[key];
  }
  if (Array.isArray(v)) v = v[0];
  return typeof v === 'string' ? v : undefined;
}

/** Equal hex strings, compared in constant time (a length mismatch leaks only the length). */
function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Verify a delivery as a partner's receiver should: the signature of the scheme (constant-time
 * compare) and, for `current`, that `plaud-timestamp` lies within `toleranceS` of now. It runs
 * in the partner's process, so it never throws, whatever it is handed: what it cannot judge
 * (not an input object, a parsed body, a header object whose getter throws) is a refusal.
 */
export function verifyWebhook(input: VerifyWebhookInput): VerifyWebhookResult {
  try {
    return verify(input);
  } catch {
    return { ok: false, reason: 'bad_input' };
  }
}

function verify(input: VerifyWebhookInput): VerifyWebhookResult {
  if (typeof input !== 'object' || input === null) return { ok: false, reason: 'bad_input' };
  // An empty key signs whatever anyone sends: a receiver without its secret accepts nothing.
  const { secret } = input;
  if (typeof secret !== 'string' || secret.trim() === '') return { ok: false, reason: 'no_secret' };
  const given = header(input.headers, SIGNATURE_HEADER)?.trim();
  if (!given) return { ok: false, reason: 'missing_signature' };
  const raw: unknown = input.body;
  // The signature covers the bytes sent: a body already parsed (JSON) cannot be checked.
  if (typeof raw !== 'string' && !(raw instanceof Uint8Array)) return { ok: false, reason: 'body_not_raw' };
  const body = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  if ((input.scheme ?? 'current') === 'legacy')
    return sameHex(given.toLowerCase(), hmacHex(secret, body))
      ? { ok: true }
      : { ok: false, reason: 'bad_signature' };
  const ts = header(input.headers, TIMESTAMP_HEADER)?.trim();
  if (!ts || !/^\d{1,12}$/.test(ts)) return { ok: false, reason: 'missing_timestamp' };
  const expected = `sha256=${createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex')}`;
  if (!sameHex(given.toLowerCase(), expected)) return { ok: false, reason: 'bad_signature' };
  const skewS = Math.abs(Number(input.nowMs ?? Date.now()) / 1000 - Number(ts));
  // A tolerance that is not a number (NaN) leaves nothing inside the window: never a pass.
  return skewS <= Number(input.toleranceS ?? DEFAULT_TOLERANCE_S)
    ? { ok: true }
    : { ok: false, reason: 'stale_timestamp' };
}
