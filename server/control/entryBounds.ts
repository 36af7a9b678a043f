import type { Request } from 'express';
import { isSecretName, REDACTED, scrub } from './redact.js';

/**
 * Hard size bounds of one journal entry, whatever the request looked like. The journal keeps
 * `--journal-size` entries per ring and anyone can send requests (refused ones too), so what
 * one entry may hold must not grow with what its request sent: a 1 MB body of many keys once
 * kept every key (about 9 MiB per entry). Two stages are bounded: what the recorder retains
 * until the entry is built (`retained*`, `summarizeBody`), and the built entry itself
 * (`boundEntry`, in UTF-8 bytes of its JSON, keys included).
 */
export const MAX_ENTRY_BYTES = 16 * 1024;
export const MAX_BODY_SUMMARY_BYTES = 2048;
const MAX_PATH = 2048;
const MAX_HEADERS = 64;
const MAX_HEADER_VALUE = 1024;
const MAX_HEADER_BYTES = 8192;
const MAX_TEXT = 256;
const MAX_STRING = 256;
const MAX_KEY = 64;
const MAX_KEYS = 20;
const MAX_ITEMS = 5;
const MAX_DEPTH = 3;
/** Kept free while walking a body, for the "… more" markers closing each open level. */
const MARKER_RESERVE = 256;

const jsonBytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v) ?? 'null');
const cut = (s: string, max: number): string =>
  s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
/** A request URL as the recorder keeps it: a long one masked (before the cut) and cut. */
export const retainedUrl = (url: string): string => (url.length > MAX_PATH ? cut(scrub(url), MAX_PATH) : url);

/** A member set without ever touching a prototype (a body may send `__proto__`). */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

interface Budget {
  left: number;
}

function summarizeValue(value: unknown, depth: number, budget: Budget): unknown {
  if (typeof value === 'string') {
    const clean = cut(scrub(value), MAX_STRING);
    budget.left -= jsonBytes(clean);
    return clean;
  }
  if (value === null || typeof value !== 'object') {
    budget.left -= jsonBytes(value);
    return value;
  }
  if (depth >= MAX_DEPTH) {
    const short = Array.isArray(value) ? `[${value.length} items]` : '{…}';
    budget.left -= jsonBytes(short);
    return short;
  }
  budget.left -= 2;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      if (out.length >= MAX_ITEMS || budget.left <= MARKER_RESERVE) break;
      out.push(summarizeValue(item, depth + 1, budget));
    }
    if (value.length > out.length) out.push(`… ${value.length - out.length} more`);
    return out;
  }
  const out: Record<string, unknown> = {};
  // The names only (one array, no [key, value] pair per member as Object.entries builds),
  // and only the first few looked at: 100,000 keys cost about a millisecond.
  const names = Object.keys(value);
  let shown = 0;
  for (const k of names) {
    if (shown >= MAX_KEYS || budget.left <= MARKER_RESERVE) break;
    const key = cut(k, MAX_KEY);
    budget.left -= jsonBytes(key) + 1;
    const v = (value as Record<string, unknown>)[k];
    const secret = isSecretName(k) && v !== undefined && v !== null && v !== '';
    if (secret) budget.left -= jsonBytes(REDACTED);
    put(out, key, secret ? REDACTED : summarizeValue(v, depth + 1, budget));
    shown++;
  }
  if (names.length > shown) put(out, '…', `${names.length - shown} more keys`);
  return out;
}

/**
 * Summary of a request body, at most MAX_BODY_SUMMARY_BYTES: the redacted JSON/form fields
 * when the body was parsed (long values cut, at most MAX_KEYS members and MAX_ITEMS items per
 * level, MAX_DEPTH levels, within one byte budget), else its size and type (binary
 * uploads), else nothing. Built when the request is recorded, so the parsed body is let go.
 */
export function summarizeBody(
  parsed: unknown,
  headers: Record<string, string | string[] | undefined>,
): unknown {
  const length = Number(headers['content-length']);
  const type = headers['content-type'];
  const sized = Number.isFinite(length) && length > 0;
  const about = {
    bytes: sized ? length : null,
    ...(typeof type === 'string' ? { content_type: cut(type, MAX_TEXT) } : {}),
  };
  if (parsed !== undefined && parsed !== null && typeof parsed === 'object' && !Buffer.isBuffer(parsed)) {
    const out = summarizeValue(parsed, 0, { left: MAX_BODY_SUMMARY_BYTES - MARKER_RESERVE });
    return jsonBytes(out) <= MAX_BODY_SUMMARY_BYTES ? out : { ...about, truncated: true };
  }
  if (sized) return about;
  if (headers['transfer-encoding'])
    return { bytes: null, content_type: typeof type === 'string' ? about.content_type : null };
  return undefined;
}

/** A text answer (S3 XML, a fault's string body) is kept up to this many characters. */
const MAX_ANSWER_CHARS = 1024;

/**
 * The excerpt of a non-2xx answer the journal keeps (`response_excerpt`), at most
 * MAX_BODY_SUMMARY_BYTES: a JSON body summarised and redacted as request bodies are (secret
 * names, JWTs, signatures), a text body (S3 XML) scrubbed and cut. Taken when the request is
 * recorded, so the answer is let go.
 */
export function summarizeAnswer(answer: unknown): unknown {
  if (answer === undefined) return undefined;
  if (typeof answer === 'string' || Buffer.isBuffer(answer)) {
    const text = cut(scrub(String(answer)), MAX_ANSWER_CHARS);
    return jsonBytes(text) <= MAX_BODY_SUMMARY_BYTES ? text : cut(text, 128);
  }
  const out = summarizeValue(answer, 0, { left: MAX_BODY_SUMMARY_BYTES - MARKER_RESERVE });
  return jsonBytes(out) <= MAX_BODY_SUMMARY_BYTES ? out : { truncated: true };
}

/**
 * The request headers the recorder may keep until the entry is built: the request's own
 * object when it is small (almost always: no copy), else a copy of at most MAX_HEADERS
 * headers within MAX_HEADER_BYTES.
 */
export function retainedHeaders(req: Request): Request['headers'] {
  const raw = req.rawHeaders;
  let bytes = 0;
  if (raw.length <= 2 * MAX_HEADERS) {
    for (const s of raw) bytes += s.length;
    if (bytes <= MAX_HEADER_BYTES) return req.headers;
  }
  return boundHeaders(req.headers) as Request['headers'];
}

/** Headers (already redacted, or raw) cut to the bounds: values, count and total size. */
function boundHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  let bytes = 0;
  let omitted = 0;
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = cut(Array.isArray(raw) ? raw.join(', ') : raw, MAX_HEADER_VALUE);
    const size = name.length + value.length;
    if (Object.keys(out).length >= MAX_HEADERS || bytes + size > MAX_HEADER_BYTES || name.length > MAX_KEY) {
      omitted++;
      continue;
    }
    bytes += size;
    put(out, name, value);
  }
  if (omitted > 0) put(out, '…', `${omitted} more headers`);
  return out;
}

interface BoundableEntry {
  path: string;
  headers: Record<string, string>;
  client_id: string | null;
  body_summary?: unknown;
  response_excerpt?: unknown;
  warnings?: string[];
  error?: string;
}

/**
 * A built entry within MAX_ENTRY_BYTES (UTF-8 JSON, keys included): each part cut to its own
 * bound, then, should the whole still be over (escaped control characters can weigh six bytes
 * each), the largest parts replaced by what they were.
 */
export function boundEntry<T extends BoundableEntry>(e: T): T {
  // A URL cut when recorded already carries its "… (n chars)".
  if (e.path.length > MAX_PATH + 32) e.path = cut(e.path, MAX_PATH);
  e.headers = boundHeaders(e.headers);
  if (e.client_id !== null) e.client_id = cut(e.client_id, MAX_TEXT);
  if (e.error !== undefined) e.error = cut(e.error, MAX_TEXT);
  if (e.warnings) e.warnings = e.warnings.slice(0, 4).map((w) => cut(w, 512));
  if (jsonBytes(e) <= MAX_ENTRY_BYTES) return e;
  e.headers = { '…': `${Object.keys(e.headers).length} headers, over the entry's size bound` };
  if (e.body_summary !== undefined) e.body_summary = { truncated: true };
  if (e.response_excerpt !== undefined) e.response_excerpt = { truncated: true };
  if (e.warnings) e.warnings = [`${e.warnings.length} warnings, over the entry's size bound`];
  if (jsonBytes(e) > MAX_ENTRY_BYTES) e.path = cut(e.path, 128);
  return e;
}
