import pactum from 'pactum';
import { errorCodeOf } from '../../server/client/http.js';
import type { Target } from '../target/types.js';
import { type Observed, specOf, violations } from './conform.js';
import { getBytes, isTextual } from './getBytes.js';
import { recordExercised, recordShape } from './record.js';
import { redact, redactHeaders } from './redact.js';

// pactum prints request/response dumps (Authorization included) at WARN on failure; the suite
// keeps it at ERROR and routes what remains through `redact`.
pactum.settings.setLogLevel('ERROR');
pactum.settings.setLogger({
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error: (...msg: unknown[]) =>
    console.error(redact(msg.map((m) => (typeof m === 'string' ? m : JSON.stringify(m))).join(' '))),
});

export interface Req {
  /** operationId in openapi.yaml, or `admin:<operationId>` for the control API. */
  op: string;
  /** Absolute URL (storage operations: the presigned URL). Default: the op's path on `t.api`. */
  url?: string;
  path?: Record<string, string>;
  query?: Record<string, string | number>;
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  raw?: Buffer | string;
  /** The status the scenario expects. */
  expect: number;
}

export interface Res extends Observed {
  // biome-ignore lint/suspicious/noExplicitAny: scenarios read documented fields; the spec check types them
  body: any;
  buffer: Buffer;
}

/** Thrown when a response breaks the scenario or the spec; the message is safe to print. */
class ContractViolation extends Error {
  override name = 'ContractViolation';
}

function urlOf(t: Target, req: Req): string {
  if (req.url) return req.url;
  const { spec, id } = specOf(req.op);
  let path = spec.get(id).path;
  for (const [k, v] of Object.entries(req.path ?? {})) path = path.replace(`{${k}}`, encodeURIComponent(v));
  const base = req.op.startsWith('admin:') ? `${t.control?.admin}` : t.api;
  const qs = req.query
    ? `?${new URLSearchParams(Object.entries(req.query).map(([k, v]): [string, string] => [k, String(v)]))}`
    : '';
  return `${base}${path}${qs}`;
}

const TIMEOUT_MS = Number(process.env.CONTRACT_REQUEST_TIMEOUT_MS ?? 20_000);
pactum.request.setDefaultTimeout(TIMEOUT_MS);

/** Operations whose answer is stored audio: fetched as bytes (getBytes.ts says why). */
const BYTES = new Set(['downloadFile']);

async function bytesOnce(t: Target, req: Req, url: string): Promise<Res> {
  let r: Awaited<ReturnType<typeof getBytes>>;
  try {
    r = await getBytes(url, req.headers ?? {}, t.connectionFor(url), TIMEOUT_MS);
  } catch (e) {
    throw new ContractViolation(
      `${req.op}: request to ${redact(url)} failed: ${redact(String((e as Error).message))}`,
    );
  }
  // Audio stays bytes; an error document (S3 XML) is read as text, as pactum would.
  const text = isTextual(r.headers['content-type']) ? r.buffer.toString() : '';
  return { status: r.status, headers: r.headers, text, body: text, buffer: r.buffer };
}

async function once(t: Target, req: Req, url: string): Promise<Res> {
  await t.throttle();
  const { spec, id } = specOf(req.op);
  if (BYTES.has(req.op)) return bytesOnce(t, req, url);
  const s = pactum.spec().withMethod(spec.get(id).method.toUpperCase()).withPath(url);
  const createConnection = t.connectionFor(url);
  if (createConnection) s.withCore({ createConnection });
  if (req.headers) s.withHeaders(req.headers);
  if (req.json !== undefined) s.withJson(req.json as object);
  else if (req.form !== undefined) s.withForm(req.form);
  else if (req.raw !== undefined) s.withBody(req.raw);
  let r: { statusCode: number; headers: Res['headers']; text?: string; buffer?: Buffer } | Error;
  try {
    r = await s.toss();
  } catch (e) {
    r = e as Error;
  }
  if (r instanceof Error || typeof r?.statusCode !== 'number')
    throw new ContractViolation(
      `${req.op}: request to ${redact(url)} failed: ${redact(String((r as Error)?.message ?? r))}`,
    );
  const buffer = Buffer.isBuffer(r.buffer) ? r.buffer : Buffer.from(r.text ?? '');
  const text = r.text ?? '';
  let body: unknown = text;
  if (/json/.test(String(r.headers['content-type'] ?? '')) && text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: r.statusCode, headers: r.headers, text, body, buffer };
}

/**
 * One scenario step: send the request (through pactum, rate-limited on live, honouring
 * Retry-After on an unexpected 429), then assert the expected status and that the response
 * conforms to the spec. Failure messages name the operation, the status and the field, and
 * never carry a credential.
 */
export async function call(t: Target, req: Req): Promise<Res> {
  const url = urlOf(t, req);
  let res = await once(t, req, url);
  for (let retry = 0; res.status === 429 && req.expect !== 429 && retry < 3; retry++) {
    const waitMs = t.backOff(String(res.headers['retry-after'] ?? ''));
    console.warn(`${req.op}: 429, honouring Retry-After (${waitMs} ms) before retry ${retry + 1}/3`);
    res = await once(t, req, url);
  }
  recordShape(req.op, res);
  if (res.status !== req.expect) {
    throw new ContractViolation(
      `${req.op}: expected HTTP ${req.expect}, got ${res.status}` +
        `${res.text ? `: ${redact(res.text.slice(0, 400))}` : ' (no body)'}`,
    );
  }
  const problems = violations(req.op, res);
  if (problems.length > 0) {
    const where = req.op.startsWith('admin:') ? 'server/admin.openapi.yaml' : 'openapi.yaml';
    throw new ContractViolation(
      `${req.op} ${res.status} does not conform to ${where}:\n${problems.map((p) => `  - ${redact(p)}`).join('\n')}` +
        `\n  response headers: ${redact(JSON.stringify(redactHeaders(res.headers as Record<string, string | string[] | undefined>)))}`,
    );
  }
  recordExercised(req.op, res.status);
  return res;
}

/** The `detail` code of an error body, in either error shape (`{detail}` or live `{code, message}`). */
export const errorCode = (res: Res): string | undefined => errorCodeOf(res.body);
