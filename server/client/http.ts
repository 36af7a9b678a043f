import type { RawAnswer } from './steps.js';

/** A non-success answer of the partner API. `code` is the error code in either body shape. */
export class PartnerApiError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number,
    readonly code: string | undefined,
    /** The service's message (or the client's explanation), without the status. */
    readonly detail = '',
  ) {
    super(`${operation}: HTTP ${status}${code ? ` ${code}` : ''}${detail ? `: ${detail}` : ''}`);
    this.name = 'PartnerApiError';
  }
}

/** The error code of an error body: `{detail}` (seed) or `{code, message}` (live). */
export function errorCodeOf(body: unknown): string | undefined {
  const b = body as { detail?: unknown; message?: unknown } | undefined;
  if (typeof b?.detail === 'string') return b.detail;
  if (typeof b?.message === 'string') return /^([A-Za-z_]+)(:|$)/.exec(b.message)?.[1];
  return undefined;
}

/** Send one request of `operation`; any status outside `ok` throws a PartnerApiError. */
export async function send(
  operation: string,
  url: string,
  init: RequestInit,
  ok = [200],
): Promise<RawAnswer> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (an HTML error page of a proxy, an S3 XML error): kept as text.
  }
  if (!ok.includes(res.status)) {
    const code = errorCodeOf(body);
    const message = (body as { message?: unknown } | undefined)?.message;
    const detail = typeof message === 'string' && message !== code ? message : '';
    throw new PartnerApiError(operation, res.status, code, detail);
  }
  return { status: res.status, headers: res.headers, body, text };
}

export const bearerJson = (token: string, body: unknown): RequestInit => ({
  method: 'POST',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
