import type { JournalEntry } from '../store/store.js';

/** The facts of one request the readable line shows (a journal entry's, without the rest). */
export type LineFacts = Pick<
  JournalEntry,
  'method' | 'path' | 'status' | 'latency_ms' | 'client_id' | 'fault_id'
> & {
  unverified?: boolean | undefined;
  request_id?: string | undefined;
  error?: string | undefined;
};

const CODE = /^[A-Za-z][A-Za-z0-9_.]{0,63}$/;

/**
 * The error code of a non-2xx answer as it was sent: the partner API's `code` (or `detail`
 * when it is a code, as the auth endpoints answer), an S3 error document's `<Code>`. Only a
 * code-shaped word is taken, so a log line never carries free text from a body.
 */
export function errorCodeOf(answer: unknown): string | undefined {
  let code: unknown;
  if (typeof answer === 'string') code = /<Code>([^<]{1,64})<\/Code>/.exec(answer)?.[1];
  else if (answer !== null && typeof answer === 'object') {
    const a = answer as { code?: unknown; detail?: unknown };
    code = a.code ?? a.detail;
  }
  return typeof code === 'string' && CODE.test(code) ? code : undefined;
}

/**
 * One request as a person at a terminal reads it, on one line:
 *
 *     GET /developer/api/open/partner/sdk/binding?sn=… 401 TOKEN_EXPIRED 1.8ms app=demo-client-us id=sim-…
 *
 * The path is the journal's, already through the one redactor (control/redact.ts).
 */
export function readableLine(e: LineFacts, code: string | undefined): string {
  const parts = [e.method, e.path, e.status === 0 ? '---' : String(e.status)];
  if (code !== undefined) parts.push(code);
  if (e.error !== undefined) parts.push(`(${e.error})`);
  parts.push(`${e.latency_ms}ms`);
  if (e.client_id !== null) parts.push(`app=${e.client_id}${e.unverified ? '?' : ''}`);
  if (e.fault_id !== null) parts.push(`fault=${e.fault_id}`);
  if (e.request_id !== undefined) parts.push(`id=${e.request_id}`);
  return parts.join(' ');
}

export type LineLevel = 'debug' | 'info' | 'warn' | 'error';

/** A request line's level: a client's mistake warns, a server error or a dropped answer is an error. */
export function levelOf(status: number): LineLevel {
  if (status === 0 || status >= 500) return 'error';
  return status >= 400 ? 'warn' : 'info';
}

/**
 * The fields of a log line: everything but headers and body, which only debug adds. The
 * simulated arrival time becomes `sim_time`, beside pino's own (real) `time`.
 */
export function lineOf(e: JournalEntry): Record<string, unknown> {
  const { headers: _h, body_summary: _b, time, ...line } = e;
  return { ...line, sim_time: time };
}

export const detail = (debug: boolean, e: JournalEntry): Record<string, unknown> =>
  debug ? { headers: e.headers, body_summary: e.body_summary } : {};
